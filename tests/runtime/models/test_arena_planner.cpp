// The session arena planner: alignment, the overlap rule, reuse, and caller-provided memory.
#include <algorithm>
#include <cstdint>
#include <new>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "arena/arena.h"

namespace heed {
namespace {

bool lifetimes_overlap(const ArenaRequest& a, const ArenaRequest& b) { return a.first <= b.last && b.first <= a.last; }
bool bytes_overlap(const ArenaRequest& a, const ArenaRequest& b) {
  return a.bytes > 0 && b.bytes > 0 && a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
}

// Checks every invariant of a plan by brute force; returns the peak of simultaneously live bytes.
size_t verify(const ArenaPlanner& p) {
  const auto& r = p.requests();
  for (size_t i = 0; i < r.size(); ++i) {
    INFO(r[i].name);
    CHECK(r[i].offset % kArenaAlignment == 0);
    CHECK(r[i].offset + r[i].bytes <= p.total_bytes());
    for (size_t j = i + 1; j < r.size(); ++j) {
      if (lifetimes_overlap(r[i], r[j])) CHECK_FALSE(bytes_overlap(r[i], r[j]));
    }
  }
  uint32_t last_phase = 0;
  for (const auto& q : r) last_phase = std::max(last_phase, q.last);
  size_t peak = 0;
  for (uint32_t t = 0; t <= last_phase; ++t) {
    size_t live = 0;
    for (const auto& q : r) {
      if (q.first <= t && t <= q.last) live += q.bytes;
    }
    peak = std::max(peak, live);
  }
  return peak;
}

TEST_CASE("buffers alive at the same time never share bytes; offsets are 64-aligned") {
  ArenaPlanner p;
  p.request("a", 100, 0, 2);
  p.request("b", 64, 1, 1);
  p.request("c", 1, 2, 3);
  p.request("d", 0, 0, 3);
  p.plan();
  verify(p);
  CHECK(p.total_bytes() % kArenaAlignment == 0);
  // a (rounded to 128) and b and c are all alive at phase 1 or 2 with a: three distinct slots.
  CHECK(p.offset(1) != p.offset(0));
  CHECK(p.offset(2) != p.offset(0));
}

TEST_CASE("buffers with disjoint lifetimes reuse the same memory") {
  ArenaPlanner p;
  const size_t encoder = p.request("encoder scratch", 1000, 0, 0);
  const size_t decoder = p.request("decoder scratch", 800, 2, 2);
  const size_t reorder = p.request("reorder scratch", 500, 3, 3);
  p.plan();
  verify(p);
  CHECK(p.offset(encoder) == 0);
  CHECK(p.offset(decoder) == 0);
  CHECK(p.offset(reorder) == 0);
  CHECK(p.total_bytes() == 1024);
  CHECK(p.unshared_bytes() == 1024 + 832 + 512);
}

TEST_CASE("a small buffer fills the hole between two larger ones") {
  ArenaPlanner p;
  p.request("big0", 640, 0, 0);  // [0, 640) during phase 0
  p.request("big1", 640, 1, 1);  // also [0, 640), during phase 1
  p.request("keep", 640, 0, 1);  // alive in both: [640, 1280)
  p.request("small", 64, 2, 2);  // alone at phase 2: offset 0
  p.plan();
  verify(p);
  CHECK(p.total_bytes() == 1280);
  CHECK(p.offset(3) == 0);
}

TEST_CASE("random request sets: plans are valid and within the trivial bounds") {
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    ArenaPlanner p;
    const int n = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      const uint32_t a = rng() % 6, b = rng() % 6;
      p.request("r" + std::to_string(i), rng() % 5000, a, b);
    }
    p.plan();
    const size_t peak = verify(p);
    CHECK(p.total_bytes() >= peak);
    CHECK(p.total_bytes() <= p.unshared_bytes());
  }
}

TEST_CASE("sizes beyond size_t are reported, not wrapped around") {
  const size_t huge = static_cast<size_t>(-1) / 2 + 1;
  ArenaPlanner p;
  p.request("a", huge, 0, 1);
  p.request("b", huge, 1, 2);  // alive together with a: a + b does not fit
  p.plan();
  CHECK(p.overflowed());
  CHECK(saturating_mul(huge, 2) == static_cast<size_t>(-1));
  CHECK(saturating_mul(3, 5) == 15);

  ArenaPlanner q;
  q.request("a", huge, 0, 0);
  q.request("b", huge, 1, 1);  // disjoint lifetimes: they share, so it fits
  q.plan();
  CHECK_FALSE(q.overflowed());
  CHECK(q.offset(1) == 0);
}

TEST_CASE("a caller-provided arena: aligned in place, too small is refused naming the size") {
  void* memory = ::operator new(4096 + 64, std::align_val_t(kArenaAlignment));
  uint8_t* bytes = static_cast<uint8_t*>(memory);

  Arena arena;
  REQUIRE(Arena::create(1000, ArenaOptions{bytes, 4096}, &arena).is_ok());
  CHECK(arena.base() == bytes);
  CHECK(arena.size() == 1024);
  CHECK_FALSE(arena.owned());

  // A misaligned start loses up to 63 bytes to alignment, and the message says what is needed.
  REQUIRE(Arena::create(1000, ArenaOptions{bytes + 1, 1100}, &arena).is_ok());
  CHECK(reinterpret_cast<uintptr_t>(arena.base()) % kArenaAlignment == 0);
  CHECK(arena.base() == bytes + 64);

  const Status s = Arena::create(4096, ArenaOptions{bytes, 4000}, &arena);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("4096") != std::string::npos);
  CHECK(arena.base() == nullptr);

  ::operator delete(memory, std::align_val_t(kArenaAlignment));
}

TEST_CASE("an owned arena is aligned and zero-filled") {
  Arena arena;
  REQUIRE(Arena::create(300, ArenaOptions{}, &arena).is_ok());
  CHECK(arena.owned());
  CHECK(reinterpret_cast<uintptr_t>(arena.base()) % kArenaAlignment == 0);
  CHECK(arena.size() == 320);
  CHECK(std::all_of(arena.base(), arena.base() + arena.size(), [](uint8_t b) { return b == 0; }));
  Arena moved = std::move(arena);
  CHECK(arena.base() == nullptr);
  CHECK(moved.size() == 320);
}

}  // namespace
}  // namespace heed
