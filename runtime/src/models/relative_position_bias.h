// MPNet's relative position bias: one table [buckets, heads] shared by every encoder layer, whose
// row bucket(key - query) is added to each head's attention scores (docs/format.md,
// TransformerEncoderOnly.relative_attention_buckets). A session keeps, in its arena, each head's
// bias by distance for the longest sentence of the batch, filled by every encode(); the attention
// kernel reads a sentence's slice of it (blocks::RelativeBias).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "arena/arena.h"
#include "blocks/arena_buffer.h"
#include "blocks/encoder.h"
#include "heed/model.h"
#include "heed/status.h"
#include "loader/model_index.h"

namespace heed::models {

// T5's bidirectional bucket of the distance key - query, as transformers'
// MPNetEncoder.relative_position_bucket computes it: half the buckets for keys after the query,
// exact distances below a quarter of the buckets, logarithmic ones up to max_distance beyond.
size_t relative_position_bucket(long distance, size_t buckets, size_t max_distance);

class RelativePositionBias {
 public:
  // Reads the config's fields and, when they ask for a bias, its tensor (any dtype the embedding
  // tables take), as float32 [heads][buckets].
  Status load(const Model& model, const fb::TransformerEncoderOnly& config, size_t heads);
  bool present() const { return buckets_ > 0; }
  // The by-distance table for sentences of up to max_length tokens.
  void plan(ArenaPlanner* planner, size_t max_length, uint32_t phase);
  void bind(const Arena& arena, const ArenaPlanner& planner) { by_distance_.bind(arena, planner); }
  // Each head's bias for every distance of sentences of up to `length` (<= max_length) tokens.
  blocks::RelativeBias fill(size_t length) const;

 private:
  size_t buckets_ = 0, max_distance_ = 0, heads_ = 0;
  std::vector<float> by_bucket_;  // [heads][buckets]
  blocks::ArenaBuffer by_distance_;
};

}  // namespace heed::models
