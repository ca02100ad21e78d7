#include "plugin/rocksdb/bits_builder.h"

#include "plugin/core/hash.h"

namespace sstfilter {

void SstFilterBitsBuilder::AddKey(const ROCKSDB_NAMESPACE::Slice& key) {
  core_.AddKeyHash(HashKey(key.data(), key.size()));
}

#if SSTF_HAS_ADD_KEY_AND_ALT
void SstFilterBitsBuilder::AddKeyAndAlt(const ROCKSDB_NAMESPACE::Slice& key,
                                        const ROCKSDB_NAMESPACE::Slice& alt) {
  const uint64_t alt_hash = HashKey(alt.data(), alt.size());
  core_.AddKeyHash(HashKey(key.data(), key.size()));
  if (!have_alt_ || alt_hash != last_alt_hash_) core_.AddKeyHash(alt_hash);
  have_alt_ = true;
  last_alt_hash_ = alt_hash;
}
#endif

ROCKSDB_NAMESPACE::Slice SstFilterBitsBuilder::Finish(
    std::unique_ptr<const char[]>* buf) {
  size_t len = 0;
  std::unique_ptr<char[]> block = core_.Finish(&len);
  const char* data = block.get();
  buf->reset(block.release());
#if SSTF_HAS_ADD_KEY_AND_ALT
  have_alt_ = false;
#endif
  return ROCKSDB_NAMESPACE::Slice(data, len);
}

}  // namespace sstfilter
