// Greedy-by-size interval placement of the session buffers (see heed/arena.h).
#include <algorithm>
#include <numeric>

#include "arena/arena.h"

namespace heed {

size_t ArenaPlanner::request(std::string name, size_t bytes, uint32_t first, uint32_t last) {
  ArenaRequest r;
  r.name = std::move(name);
  r.bytes = bytes;
  r.first = std::min(first, last);
  r.last = std::max(first, last);
  requests_.push_back(std::move(r));
  planned_ = false;
  return requests_.size() - 1;
}

namespace {

constexpr size_t kMaxBytes = static_cast<size_t>(-1) - kArenaAlignment;

// a + b aligned up, or false when it would not fit in size_t.
bool aligned_sum(size_t a, size_t b, size_t* out) {
  if (a > kMaxBytes || b > kMaxBytes - a) return false;
  *out = align_up(a + b);
  return true;
}

}  // namespace

size_t ArenaPlanner::unshared_bytes() const {
  size_t sum = 0;
  for (const ArenaRequest& r : requests_) {
    if (!aligned_sum(sum, r.bytes, &sum)) return static_cast<size_t>(-1);
  }
  return sum;
}

void ArenaPlanner::plan() {
  // Largest first: big buffers get the low offsets and small ones fill the holes between them.
  // Ties keep request order so a plan is reproducible.
  std::vector<size_t> order(requests_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests_[a].bytes > requests_[b].bytes; });

  std::vector<size_t> placed;
  std::vector<size_t> conflicts;
  total_ = 0;
  overflowed_ = false;
  for (size_t id : order) {
    ArenaRequest& r = requests_[id];
    r.offset = 0;
    if (r.bytes == 0) continue;  // occupies nothing; offset 0 is as good as any
    conflicts.clear();
    for (size_t other : placed) {
      const ArenaRequest& o = requests_[other];
      const bool alive_together = o.first <= r.last && r.first <= o.last;
      if (alive_together) conflicts.push_back(other);
    }
    std::sort(conflicts.begin(), conflicts.end(),
              [&](size_t a, size_t b) { return requests_[a].offset < requests_[b].offset; });
    // First fit: walk the conflicting buffers by offset and stop at the first gap large enough.
    size_t candidate = 0, end = 0;
    for (size_t other : conflicts) {
      const ArenaRequest& o = requests_[other];
      if (!aligned_sum(candidate, r.bytes, &end)) break;
      if (candidate + r.bytes <= o.offset) break;
      candidate = std::max(candidate, align_up(o.offset + o.bytes));  // placed: known to fit
    }
    if (!aligned_sum(candidate, r.bytes, &end)) {
      overflowed_ = true;
      total_ = static_cast<size_t>(-1);
      return;
    }
    r.offset = candidate;
    total_ = std::max(total_, end);
    placed.push_back(id);
  }
  planned_ = true;
}

}  // namespace heed
