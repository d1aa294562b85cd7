// The self-attention key/value caches of a decoder: per layer, K and V of every position decoded
// so far ([rows, max_length, position_stride()] each), and which row's entry each hypothesis reads at each
// position. Row r writes position `step` into its own row; a beam reorder or a compaction only
// rewrites the small table of origins (origin[r][t]: the row holding hypothesis r's position t),
// never the cached keys and values, and attention reads position t of hypothesis r at
// offsets(r)[t].
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "arena/arena.h"
#include "blocks/arena_buffer.h"

namespace heed::blocks {

// One cache line of floats, padding the rows attention reads a head slice of (the K/V cache's
// positions, the cross-attention memory's tokens): rows of a power-of-two width put a head's keys
// in the same few L1 sets, more lines than those sets hold.
inline constexpr size_t kAttentionRowPadFloats = 64 / sizeof(float);

struct KvCacheShape {
  size_t layers = 0, rows = 0, max_length = 0, kv_dim = 0;
  uint32_t first = 0, last = 0;  // lifetime of the caches
  uint32_t reorder_phase = 0;    // the reorder scratch lives in this phase only
};

class KvCache {
 public:
  // Requests "<prefix>.layers.N.self_k_cache" / "self_v_cache", the origin and offset tables and
  // the reorder scratch.
  void plan(ArenaPlanner* planner, const std::string& prefix, const KvCacheShape& shape);
  void bind(const Arena& arena, const ArenaPlanner& planner);

  float* keys(size_t layer) const { return keys_[layer].as<float>(); }
  float* values(size_t layer) const { return values_[layer].as<float>(); }
  // Floats between positions: kv_dim and kAttentionRowPadFloats (a 512-wide model's positions
  // were 2 KiB apart: a head's keys over 32 positions fell in 8 L1 sets).
  size_t position_stride() const { return shape_.kv_dim + kAttentionRowPadFloats; }
  size_t row_stride() const { return shape_.max_length * position_stride(); }  // floats between rows
  // Before a step's layers: each row's position `step` is its own, and every row's offsets for
  // positions 0..step are computed (shared by all layers).
  void begin_step(size_t rows, size_t step) const;
  // Position t of hypothesis `row` is at keys(layer) + offsets(row)[t] (values the same), t <= step.
  const size_t* offsets(size_t row) const { return offsets_.as<const size_t>() + row * shape_.max_length; }
  size_t offsets_stride() const { return shape_.max_length; }  // entries between rows' offset tables
  // Stores position `step` of each row: its key at qkv + r * ld + key_offset, the value right after.
  void store(size_t layer, const float* qkv, size_t ld, size_t key_offset, size_t rows, size_t step) const;
  // Beam search: row r continues from row parents[r] (same sentence, rows / beam of them); the
  // first `length` positions move. Invalid parents change nothing.
  void reorder(const int32_t* parents, size_t rows, size_t beam, size_t length) const;
  // Rows keep[k] (increasing) move to rows k, their first `length` positions (greedy batches
  // dropping finished sentences).
  void compact(const int32_t* keep, size_t count, size_t length) const;

 private:
  uint32_t* origins(size_t row) const { return origin_.as<uint32_t>() + row * shape_.max_length; }

  KvCacheShape shape_;
  std::vector<ArenaBuffer> keys_, values_;
  ArenaBuffer origin_, offsets_, reorder_scratch_;
};

}  // namespace heed::blocks
