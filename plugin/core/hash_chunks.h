// Append-only list of 64-bit key hashes in fixed 8 KiB chunks.
//
// Why not std::vector: a vector doubles, so while it grows it holds the old
// and the new array at once - up to 24 bytes per key at the peak, where the
// hashes need 8 (filter_bench measured 14.5 B/key of temporary memory for a
// 100K-key blocked Bloom filter against RocksDB's 8.3, whose builders use a
// std::deque). Chunks never move: the peak is 8 bytes per key plus one
// chunk. Kinds that need one contiguous array (Ribbon sorts in place) get it
// from MoveTo, which frees each chunk as soon as it is copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace sstfilter {

class HashChunks {
 public:
  static constexpr size_t kChunkHashes = 1024;  // 8 KiB: < 0.1 B/key of slack at 100K keys

  void Append(uint64_t h) {
    if (fill_ == kChunkHashes || chunks_.empty()) NewChunk();
    chunks_.back()[fill_++] = h;
  }
  size_t size() const {
    return chunks_.empty() ? 0 : (chunks_.size() - 1) * kChunkHashes + fill_;
  }
  bool empty() const { return size() == 0; }
  uint64_t back() const { return chunks_.back()[fill_ - 1]; }

  // Calls f(const uint64_t* hashes, size_t n) for each chunk, in order.
  template <class F>
  void ForEachChunk(F f) const {
    for (size_t c = 0; c < chunks_.size(); ++c) {
      f(chunks_[c].get(), c + 1 == chunks_.size() ? fill_ : kChunkHashes);
    }
  }

  // Moves every hash, in order, into `out` (replacing its contents) and
  // leaves this empty.
  void MoveTo(std::vector<uint64_t>* out) {
    out->clear();
    out->reserve(size());
    for (size_t c = 0; c < chunks_.size(); ++c) {
      const size_t n = c + 1 == chunks_.size() ? fill_ : kChunkHashes;
      out->insert(out->end(), chunks_[c].get(), chunks_[c].get() + n);
      chunks_[c].reset();
    }
    Clear();
  }

  void Clear() {
    chunks_.clear();
    fill_ = 0;
  }

 private:
  void NewChunk() {
    chunks_.emplace_back(new uint64_t[kChunkHashes]);
    fill_ = 0;
  }

  std::vector<std::unique_ptr<uint64_t[]>> chunks_;
  size_t fill_ = 0;  // hashes in the last chunk
};

// The hashes one filter is built from, as a kind's build reads them: in
// place, chunk by chunk (the Bloom kinds: no copy, no extra memory), or as
// one array the kind may reorder (Ribbon sorts), gathered on first request
// into `array`, which the caller owns and keeps afterwards.
class BuildHashes {
 public:
  BuildHashes(HashChunks* chunks, std::vector<uint64_t>* array)
      : chunks_(chunks), array_(array) {}
  // Hashes that are already one array (a fallback build from a kind that
  // gathered them).
  BuildHashes(uint64_t* data, size_t n) : data_(data), size_(n) {}

  size_t size() const { return Gathered() ? size_ : chunks_->size(); }

  // Calls f(const uint64_t* hashes, size_t n) over every hash, in order.
  template <class F>
  void ForEachChunk(F f) const {
    if (Gathered()) {
      f(data_, size_);
    } else {
      chunks_->ForEachChunk(f);
    }
  }

  // All hashes as one writable array of size().
  uint64_t* Contiguous() {
    if (!Gathered()) {
      chunks_->MoveTo(array_);
      data_ = array_->data();
      size_ = array_->size();
    }
    return data_;
  }

 private:
  bool Gathered() const { return chunks_ == nullptr || data_ != nullptr; }

  HashChunks* chunks_ = nullptr;
  std::vector<uint64_t>* array_ = nullptr;
  uint64_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace sstfilter
