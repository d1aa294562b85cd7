// One memory arena per session. Every buffer a session will ever use is declared up front with its
// size and its lifetime; the planner lays them out in a single block, letting buffers whose
// lifetimes never overlap share bytes. The block is allocated once at session creation (or handed
// in by the caller), so running a session never touches the heap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heed/arena.h"
#include "heed/status.h"

namespace heed {

// A buffer request. Lifetimes are closed intervals [first, last] of "phase" numbers chosen by the
// caller (for example encoder = 0, cross K/V = 1, decoder step = 2, beam reorder = 3). Two
// buffers may share memory only if their intervals are disjoint.
struct ArenaRequest {
  std::string name;
  size_t bytes = 0;
  uint32_t first = 0;
  uint32_t last = 0;
  size_t offset = 0;  // filled by ArenaPlanner::plan()
};

// Greedy-by-size interval placement: requests are placed largest first, each at the lowest
// 64-aligned offset where it does not collide with an already placed request that is alive at
// the same time. Not optimal in general, but simple, deterministic and never wrong.
class ArenaPlanner {
 public:
  // Declares a buffer; returns its id (ids count up from 0 in request order).
  size_t request(std::string name, size_t bytes, uint32_t first, uint32_t last);
  // Computes every offset and the total. Call once after the last request.
  void plan();

  size_t offset(size_t id) const { return requests_[id].offset; }
  const std::vector<ArenaRequest>& requests() const { return requests_; }
  // Bytes the arena needs (a multiple of kArenaAlignment).
  size_t total_bytes() const { return total_; }
  // Bytes the same requests would need without any reuse (each rounded up to the alignment).
  size_t unshared_bytes() const;
  // True when the sizes do not fit in size_t (possible on 32-bit targets with huge limits):
  // the plan is then unusable and the session must refuse the limits.
  bool overflowed() const { return overflowed_; }

 private:
  std::vector<ArenaRequest> requests_;
  size_t total_ = 0;
  bool planned_ = false;
  bool overflowed_ = false;
};

// The memory itself: owned (an anonymous mapping, page-aligned) or borrowed from the caller.
class Arena {
 public:
  Arena() = default;
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena(Arena&& other) noexcept;
  Arena& operator=(Arena&& other) noexcept;

  // Prepares `bytes` of 64-aligned memory. With options.buffer set, uses that memory (aligning
  // its start up if needed) and fails with kInvalidArgument naming the needed size when it is too
  // small; otherwise maps fresh pages (resident only once touched), kOutOfMemory on failure.
  // The memory reads as zero.
  static Status create(size_t bytes, const ArenaOptions& options, Arena* out);

  uint8_t* base() const { return base_; }
  size_t size() const { return size_; }
  bool owned() const { return owned_ != nullptr; }
  template <typename T> T* at(size_t offset) const { return reinterpret_cast<T*>(base_ + offset); }

 private:
  void release();
  void* owned_ = nullptr;
  uint8_t* base_ = nullptr;
  size_t size_ = 0;
};

inline size_t align_up(size_t n, size_t alignment = kArenaAlignment) {
  return (n + alignment - 1) / alignment * alignment;
}

// a * b, or SIZE_MAX when the product does not fit: sizes built with it make the planner report
// overflowed() instead of silently wrapping around.
inline size_t saturating_mul(size_t a, size_t b) {
  if (a != 0 && b > static_cast<size_t>(-1) / a) return static_cast<size_t>(-1);
  return a * b;
}

}  // namespace heed
