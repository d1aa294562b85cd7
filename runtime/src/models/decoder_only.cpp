#include "models/decoder_only.h"

#include <string>

#include "blocks/decoder.h"
#include "layers/backend.h"
#include "layers/embeddings.h"
#include "layers/rope.h"
#include "loader/model_index.h"
#include "models/decoder_head.h"

namespace heed::models {

namespace {

// Lifetime phases: step scratch, and the beam reorder that reuses it.
constexpr uint32_t kStep = 0;
constexpr uint32_t kReorder = 1;

}  // namespace

Status DecoderOnly::load(const Model& model, const StepModelLimits& limits) {
  const fb::TransformerDecoderOnly* cfg = file_index(model).config_as_TransformerDecoderOnly();
  if (cfg == nullptr) return invalid_file("the model is not a decoder-only Transformer");
  blocks::StackConfig c;
  HEED_RETURN_IF_ERROR(blocks::read_stack_config(cfg->decoder(), "decoder", &c, /*allow_rope=*/true));
  HEED_RETURN_IF_ERROR(set_limits(limits, /*needs_source=*/false));
  const bool bounded = c.position_encoding == fb::PositionEncoding::Learned ||
                       (c.position_encoding == fb::PositionEncoding::RoPE && c.max_positions > 0);
  if (bounded && limits.max_target_len > c.max_positions) {
    return invalid_argument("max_target_len " + std::to_string(limits.max_target_len) + " exceeds the model's " +
                            std::to_string(c.max_positions) + " positions");
  }
  HEED_RETURN_IF_ERROR(stack_.load(model, "decoder", c, "decoder.embeddings", /*memory_dim=*/0));
  HEED_RETURN_IF_ERROR(load_output_projection(model, cfg->tied_output(), "decoder.embeddings", c.vocab_size,
                                              c.d_model, &output_));
  HEED_RETURN_IF_ERROR(read_start_and_end(model, c.vocab_size, /*start_optional=*/true, &bos_id_, &eos_id_));
  return layers::xnnpack_min_rows(limits.backend, &xnnpack_min_rows_);
}

void DecoderOnly::plan(ArenaPlanner* p) {
  const blocks::StackConfig& c = stack_.config;
  const size_t f = sizeof(float), T = limits_.max_target_len;
  size_t table = 0;
  if (c.position_encoding == fb::PositionEncoding::Sinusoidal) table = blocks::saturating_product(T, c.d_model, f);
  if (c.position_encoding == fb::PositionEncoding::RoPE) table = blocks::saturating_product(T, c.head_dim, f);
  positions_.request(p, "decoder.position_table", table, kStep, kReorder);
  cache_.plan(p, "decoder", {c.num_layers, max_rows_, T, c.kv_dim(), kStep, kReorder, kReorder});
  scratch_.plan(p, "decoder", c, {max_rows_, T, threads_, xnnpack_min_rows_ > 0, kStep, kStep, kStep});
}

Status DecoderOnly::use_xnnpack() {
  HEED_RETURN_IF_ERROR(stack_.use_xnnpack(xnnpack_min_rows_));
  return layers::use_xnnpack(xnnpack_min_rows_, {&output_});
}

void DecoderOnly::bind(const ArenaPlanner& p) {
  positions_.bind(arena_, p);
  cache_.bind(arena_, p);
  scratch_.bind(arena_, p);
  const blocks::StackConfig& c = stack_.config;
  if (c.position_encoding == fb::PositionEncoding::Sinusoidal) {
    layers::sinusoidal_positions(limits_.max_target_len, c.d_model, positions_.as<float>());
  }
  if (c.position_encoding == fb::PositionEncoding::RoPE) {
    layers::rope_table(limits_.max_target_len, c.head_dim, c.rope_theta, positions_.as<float>());
  }
}

Status DecoderOnly::start(const TokenBatch* sources, size_t batch, size_t beam) {
  started_ = false;
  cache_length_ = 0;
  if (sources != nullptr && sources->size != 0) {
    return invalid_argument("a decoder-only model takes no sources (got " + std::to_string(sources->size) + ")");
  }
  HEED_RETURN_IF_ERROR(begin(batch, beam));
  started_ = true;
  return Status::success();
}

void DecoderOnly::step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) {
  if (!check_step(input_ids, rows, step, log_probs, stack_.config.vocab_size, /*in_order=*/true)) return;
  const blocks::Decoder decoder{&stack_, &output_, &scratch_, &cache_, nullptr};
  blocks::decoder_step(compute(), decoder, {input_ids, rows, step, positions_.as<float>()}, log_probs);
  finish_step(log_probs, rows);
  cache_length_ = step + 1;
}

bool DecoderOnly::compact_rows(const int32_t* keep, size_t count) {
  // The rows share nothing but their positions: any row may take any place.
  if (!can_compact(keep, count)) return false;
  cache_.compact(keep, count, cache_length_);
  return true;
}

void DecoderOnly::reorder(const int32_t* parents, size_t rows) {
  if (can_reorder(rows)) cache_.reorder(parents, rows, beam_, cache_length_);
}

}  // namespace heed::models
