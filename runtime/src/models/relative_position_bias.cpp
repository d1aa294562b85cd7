#include "models/relative_position_bias.h"

#include <cmath>
#include <string>

#include "layers/embeddings.h"

namespace heed::models {

size_t relative_position_bucket(long distance, size_t buckets, size_t max_distance) {
  const size_t half = buckets / 2, exact = half / 2;
  const long n = -distance;  // query - key, as transformers counts it
  const size_t base = n < 0 ? half : 0;
  const size_t magnitude = static_cast<size_t>(n < 0 ? -n : n);
  if (magnitude < exact) return base + magnitude;
  // transformers computes this in float32; the same formula in double gives its buckets for every
  // distance up to 4096 (tests/python/record_mpnet.py checks that before recording).
  const double scaled = std::log(static_cast<double>(magnitude) / static_cast<double>(exact)) /
                        std::log(static_cast<double>(max_distance) / static_cast<double>(exact)) *
                        static_cast<double>(half - exact);
  const size_t large = exact + static_cast<size_t>(scaled);
  return base + (large < half - 1 ? large : half - 1);
}

Status RelativePositionBias::load(const Model& model, const fb::TransformerEncoderOnly& config, size_t heads) {
  buckets_ = config.relative_attention_buckets();
  max_distance_ = config.relative_attention_max_distance();
  heads_ = heads;
  if (buckets_ == 0) return Status::success();
  if (buckets_ < 4 || buckets_ % 4 != 0 || buckets_ > 4096 || max_distance_ <= buckets_ / 4 || max_distance_ > (1u << 20)) {
    return invalid_file("relative_attention_buckets " + std::to_string(buckets_) + " and max_distance " +
                        std::to_string(max_distance_) +
                        " do not make a bucketing (buckets a multiple of 4 up to 4096, max_distance above a quarter of them)");
  }
  layers::Embeddings table;
  HEED_RETURN_IF_ERROR(table.load(model, "encoder.relative_attention_bias", buckets_, heads));
  std::vector<float> row(heads);
  by_bucket_.assign(heads * buckets_, 0.0f);
  for (size_t b = 0; b < buckets_; ++b) {
    table.gather(b, 1.0f, false, row.data());
    for (size_t h = 0; h < heads; ++h) by_bucket_[h * buckets_ + b] = row[h];
  }
  return Status::success();
}

void RelativePositionBias::plan(ArenaPlanner* planner, size_t max_length, uint32_t phase) {
  if (!present()) return;
  by_distance_.request(planner, "encoder.relative_bias",
                       blocks::saturating_product(heads_, 2 * max_length, sizeof(float)), phase, phase);
}

blocks::RelativeBias RelativePositionBias::fill(size_t length) const {
  if (!present() || length == 0) return {};
  const size_t span = 2 * length - 1;
  float* table = by_distance_.as<float>();
  for (size_t i = 0; i < span; ++i) {
    const size_t bucket = relative_position_bucket(static_cast<long>(i) - static_cast<long>(length - 1), buckets_,
                                                   max_distance_);
    for (size_t h = 0; h < heads_; ++h) table[h * span + i] = by_bucket_[h * buckets_ + bucket];
  }
  return {table, length};
}

}  // namespace heed::models
