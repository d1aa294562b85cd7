// Where a session's memory comes from, and what the planner laid out for it. A session declares
// every buffer it will ever use up front; the planner (runtime/src/arena/) lays them out in one
// block, allocated once at session creation or handed in by the caller, so running a session never
// touches the heap.
#pragma once

#include <cstddef>

namespace heed {

// Alignment of every buffer offset (a cache line, and what SIMD wants); a caller-provided arena
// buffer is used from its first address aligned to this.
inline constexpr size_t kArenaAlignment = 64;

// Where a session's arena comes from.
struct ArenaOptions {
  void* buffer = nullptr;  // caller-provided memory (kept alive by the caller), or null: allocate
  size_t size = 0;         // bytes at `buffer`
};

// What the arena planner laid out for a session.
struct ArenaReport {
  size_t arena_bytes = 0;     // the one block the session uses
  size_t unshared_bytes = 0;  // what the same buffers would take without lifetime sharing
  size_t buffers = 0;         // number of buffers planned
};

}  // namespace heed
