#include "blocks/kv_cache.h"

#include <cstring>

#include "layers/beam_reorder.h"

namespace heed::blocks {

void KvCache::plan(ArenaPlanner* p, const std::string& prefix, const KvCacheShape& s) {
  shape_ = s;
  keys_.assign(s.layers, ArenaBuffer());
  values_.assign(s.layers, ArenaBuffer());
  const size_t bytes = saturating_product(s.rows, s.max_length, s.kv_dim, sizeof(float));
  for (size_t l = 0; l < s.layers; ++l) {
    const std::string n = prefix + ".layers." + std::to_string(l);
    keys_[l].request(p, n + ".self_k_cache", bytes, s.first, s.last);
    values_[l].request(p, n + ".self_v_cache", bytes, s.first, s.last);
  }
  // One layer's K (or V) cache at a time is gathered here, then copied back.
  reorder_scratch_.request(p, "reorder_scratch", bytes, s.reorder_phase, s.reorder_phase);
}

void KvCache::bind(const Arena& arena, const ArenaPlanner& planner) {
  for (auto* v : {&keys_, &values_}) {
    for (ArenaBuffer& b : *v) b.bind(arena, planner);
  }
  reorder_scratch_.bind(arena, planner);
}

void KvCache::store(size_t layer, const float* qkv, size_t ld, size_t key_offset, size_t rows, size_t step) const {
  const size_t kvd = shape_.kv_dim, stride = row_stride();
  float* k = keys(layer);
  float* v = values(layer);
  for (size_t r = 0; r < rows; ++r) {
    std::memcpy(k + r * stride + step * kvd, qkv + r * ld + key_offset, kvd * sizeof(float));
    std::memcpy(v + r * stride + step * kvd, qkv + r * ld + key_offset + kvd, kvd * sizeof(float));
  }
}

void KvCache::reorder(const int32_t* parents, size_t rows, size_t beam, size_t length) const {
  if (!layers::beam_reorder_moves(parents, rows, beam)) return;
  float* scratch = reorder_scratch_.as<float>();
  for (size_t l = 0; l < shape_.layers; ++l) {
    for (float* cache : {keys(l), values(l)}) {
      layers::beam_reorder_rows(cache, row_stride(), length * shape_.kv_dim, parents, rows, scratch);
    }
  }
}

void KvCache::compact(const int32_t* keep, size_t count, size_t length) const {
  const size_t bytes = length * shape_.kv_dim * sizeof(float);
  for (size_t l = 0; l < shape_.layers; ++l) {
    for (float* cache : {keys(l), values(l)}) {
      // keep is increasing, so row k's source is at or after k: in order, nothing is overwritten
      // before it is read.
      for (size_t k = 0; k < count; ++k) {
        const size_t from = static_cast<size_t>(keep[k]);
        if (from != k) std::memmove(cache + k * row_stride(), cache + from * row_stride(), bytes);
      }
    }
  }
}

}  // namespace heed::blocks
