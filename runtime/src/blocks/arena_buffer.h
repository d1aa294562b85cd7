// One buffer of a session's arena: the planner's id, then its address once the arena exists.
#pragma once

#include <cstddef>
#include <string>

#include "arena/arena.h"

namespace heed::blocks {

struct ArenaBuffer {
  size_t id = 0;
  void* ptr = nullptr;

  void request(ArenaPlanner* planner, std::string name, size_t bytes, uint32_t first, uint32_t last) {
    id = planner->request(std::move(name), bytes, first, last);
  }
  void bind(const Arena& arena, const ArenaPlanner& planner) { ptr = arena.base() + planner.offset(id); }
  template <typename T> T* as() const { return static_cast<T*>(ptr); }
};

// a * b * c * d with every product saturating (heed/arena.h's saturating_mul): a size that does
// not fit makes the planner report overflowed() instead of wrapping around on 32-bit targets.
inline size_t saturating_product(size_t a, size_t b, size_t c = 1, size_t d = 1, size_t e = 1) {
  return saturating_mul(saturating_mul(saturating_mul(saturating_mul(a, b), c), d), e);
}

}  // namespace heed::blocks
