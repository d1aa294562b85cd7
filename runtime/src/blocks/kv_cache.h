// The self-attention key/value caches of a decoder: per layer, K and V of every position decoded
// so far for every hypothesis row ([rows, max_length, kv_dim] each), and the beam reorder that
// makes row r continue from its parent's cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "arena/arena.h"
#include "blocks/arena_buffer.h"

namespace heed::blocks {

struct KvCacheShape {
  size_t layers = 0, rows = 0, max_length = 0, kv_dim = 0;
  uint32_t first = 0, last = 0;  // lifetime of the caches
  uint32_t reorder_phase = 0;    // the reorder scratch lives in this phase only
};

class KvCache {
 public:
  // Requests "<prefix>.layers.N.self_k_cache" / "self_v_cache" and the reorder scratch.
  void plan(ArenaPlanner* planner, const std::string& prefix, const KvCacheShape& shape);
  void bind(const Arena& arena, const ArenaPlanner& planner);

  float* keys(size_t layer) const { return keys_[layer].as<float>(); }
  float* values(size_t layer) const { return values_[layer].as<float>(); }
  size_t row_stride() const { return shape_.max_length * shape_.kv_dim; }  // floats between rows
  // Stores position `step` of each row: its key at qkv + r * ld + key_offset, the value right after.
  void store(size_t layer, const float* qkv, size_t ld, size_t key_offset, size_t rows, size_t step) const;
  // Beam search: row r continues from row parents[r] (same sentence, rows / beam of them); the
  // first `length` positions move. Invalid parents change nothing.
  void reorder(const int32_t* parents, size_t rows, size_t beam, size_t length) const;
  // Rows keep[k] (increasing) move to rows k, their first `length` positions (greedy batches
  // dropping finished sentences).
  void compact(const int32_t* keep, size_t count, size_t length) const;

 private:
  KvCacheShape shape_;
  std::vector<ArenaBuffer> keys_, values_;
  ArenaBuffer reorder_scratch_;
};

}  // namespace heed::blocks
