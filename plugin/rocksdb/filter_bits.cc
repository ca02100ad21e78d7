#include "plugin/rocksdb/filter_bits.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "plugin/rocksdb/bits_builder.h"
#include "plugin/rocksdb/compat.h"

namespace sstfilter::bits {

namespace rdb = ROCKSDB_NAMESPACE;

Builder::Builder(const rdb::FilterPolicy& policy, const rdb::FilterBuildingContext& context)
    : builder_(policy.GetBuilderWithContext(context)) {}
Builder::Builder(Builder&&) noexcept = default;
Builder& Builder::operator=(Builder&&) noexcept = default;
Builder::~Builder() = default;

void Builder::AddKey(const rdb::Slice& key) { builder_->AddKey(key); }

void Builder::AddKeys(const char* keys, size_t key_bytes, size_t n) {
  for (size_t i = 0; i < n; ++i) builder_->AddKey(rdb::Slice(keys + i * key_bytes, key_bytes));
}

rdb::Slice Builder::Finish(std::unique_ptr<const char[]>* buf) { return builder_->Finish(buf); }

size_t Builder::ApproximateNumEntries(size_t bytes) {
  return builder_->ApproximateNumEntries(bytes);
}

double Builder::EstimatedFpRate(size_t keys, size_t bytes, FpModel* model) const {
  FpModel whose = FpModel::kNone;
  double fp_rate = NAN;
  if (auto* ours = dynamic_cast<SstFilterBitsBuilder*>(builder_.get())) {
    whose = FpModel::kSstfilter;
    fp_rate = ours->EstimatedFpRate(keys, bytes);
  } else if (auto* builtin = compat::WithSpaceModel(builder_.get())) {
    whose = FpModel::kRocksDB;
    fp_rate = builtin->EstimatedFpRate(keys, bytes);
  }
  if (model != nullptr) *model = whose;
  return fp_rate;
}

// From RocksDB 10.9 every builder has the model's methods, ours included:
// only RocksDB's own count, so that the answer is the same on every version.
bool Builder::HasRocksDBSpaceModel() const {
  return dynamic_cast<SstFilterBitsBuilder*>(builder_.get()) == nullptr &&
         compat::WithSpaceModel(builder_.get()) != nullptr;
}

size_t Builder::CalculateSpace(size_t keys) const {
  assert(HasRocksDBSpaceModel());
  return compat::WithSpaceModel(builder_.get())->CalculateSpace(keys);
}

Reader::Reader(const rdb::FilterPolicy& policy, const rdb::Slice& block)
    : reader_(policy.GetFilterBitsReader(block)) {}
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;
Reader::~Reader() = default;

bool Reader::MayMatch(const rdb::Slice& key) const { return reader_->MayMatch(key); }

// The single-query loop has no dependency between iterations, so an
// out-of-order core overlaps several queries' cache misses: a throughput
// figure, as in RocksDB's filter_bench.
uint64_t Reader::CountMayMatch(const char* keys, size_t key_bytes, size_t n) const {
  uint64_t count = 0;
  for (size_t i = 0; i < n; ++i) count += reader_->MayMatch(rdb::Slice(keys + i * key_bytes, key_bytes));
  return count;
}

uint64_t Reader::CountMayMatchBatched(const char* keys, size_t key_bytes, size_t n,
                                      int batch) const {
  rdb::Slice slices[kMaxBatch];
  rdb::Slice* pointers[kMaxBatch];
  bool may_match[kMaxBatch];
  for (int j = 0; j < kMaxBatch; ++j) pointers[j] = &slices[j];
  batch = std::clamp(batch, 1, kMaxBatch);
  uint64_t count = 0;
  for (size_t start = 0; start < n; start += static_cast<size_t>(batch)) {
    const int m = static_cast<int>(std::min<size_t>(static_cast<size_t>(batch), n - start));
    for (int j = 0; j < m; ++j) slices[j] = rdb::Slice(keys + (start + j) * key_bytes, key_bytes);
    reader_->MayMatch(m, pointers, may_match);
    for (int j = 0; j < m; ++j) count += may_match[j];
  }
  return count;
}

}  // namespace sstfilter::bits
