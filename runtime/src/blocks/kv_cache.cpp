#include "blocks/kv_cache.h"

#include <cstring>

#include "layers/beam_reorder.h"

namespace heed::blocks {

void KvCache::plan(ArenaPlanner* p, const std::string& prefix, const KvCacheShape& s) {
  shape_ = s;
  keys_.assign(s.layers, ArenaBuffer());
  values_.assign(s.layers, ArenaBuffer());
  const size_t bytes = saturating_product(s.rows, s.max_length, position_stride(), sizeof(float));
  for (size_t l = 0; l < s.layers; ++l) {
    const std::string n = prefix + ".layers." + std::to_string(l);
    keys_[l].request(p, n + ".self_k_cache", bytes, s.first, s.last);
    values_[l].request(p, n + ".self_v_cache", bytes, s.first, s.last);
  }
  const size_t entries = saturating_product(s.rows, s.max_length);
  origin_.request(p, prefix + ".self_cache_origins", saturating_product(entries, sizeof(uint32_t)), s.first, s.last);
  offsets_.request(p, prefix + ".self_cache_offsets", saturating_product(entries, sizeof(size_t)), s.first, s.last);
  // The origin table of the rows being reordered is gathered here, then copied back.
  reorder_scratch_.request(p, "reorder_scratch", saturating_product(entries, sizeof(uint32_t)), s.reorder_phase,
                           s.reorder_phase);
}

void KvCache::bind(const Arena& arena, const ArenaPlanner& planner) {
  for (auto* v : {&keys_, &values_}) {
    for (ArenaBuffer& b : *v) b.bind(arena, planner);
  }
  for (ArenaBuffer* b : {&origin_, &offsets_, &reorder_scratch_}) b->bind(arena, planner);
}

void KvCache::begin_step(size_t rows, size_t step) const {
  const size_t position = position_stride(), stride = row_stride();
  for (size_t r = 0; r < rows; ++r) {
    uint32_t* origin = origins(r);
    origin[step] = static_cast<uint32_t>(r);
    size_t* offset = offsets_.as<size_t>() + r * shape_.max_length;
    for (size_t t = 0; t <= step; ++t) offset[t] = origin[t] * stride + t * position;
  }
}

void KvCache::store(size_t layer, const float* qkv, size_t ld, size_t key_offset, size_t rows, size_t step) const {
  const size_t kvd = shape_.kv_dim, at = step * position_stride(), stride = row_stride();
  float* k = keys(layer);
  float* v = values(layer);
  for (size_t r = 0; r < rows; ++r) {
    std::memcpy(k + r * stride + at, qkv + r * ld + key_offset, kvd * sizeof(float));
    std::memcpy(v + r * stride + at, qkv + r * ld + key_offset + kvd, kvd * sizeof(float));
  }
}

// Only origins move: a row's own position `step` is written into its own row at the next step, and
// a position, once written, is never written again while hypotheses may still read it.
void KvCache::reorder(const int32_t* parents, size_t rows, size_t beam, size_t length) const {
  if (!layers::beam_reorder_moves(parents, rows, beam)) return;
  const size_t bytes = length * sizeof(uint32_t);
  uint32_t* scratch = reorder_scratch_.as<uint32_t>();
  for (size_t r = 0; r < rows; ++r) std::memcpy(scratch + r * length, origins(static_cast<size_t>(parents[r])), bytes);
  for (size_t r = 0; r < rows; ++r) std::memcpy(origins(r), scratch + r * length, bytes);
}

void KvCache::compact(const int32_t* keep, size_t count, size_t length) const {
  // keep is increasing, so row k's source is at or after k: in order, nothing is overwritten
  // before it is read.
  for (size_t k = 0; k < count; ++k) {
    const size_t from = static_cast<size_t>(keep[k]);
    if (from != k) std::memmove(origins(k), origins(from), length * sizeof(uint32_t));
  }
}

}  // namespace heed::blocks
