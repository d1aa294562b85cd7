#include "models/encoder_decoder.h"

#include <string>

#include "blocks/encoder.h"
#include "layers/backend.h"
#include "layers/embeddings.h"
#include "loader/model_index.h"
#include "models/decoder_head.h"
#include "models/token_batch_check.h"

namespace heed::models {

namespace {

// Lifetime phases of the session buffers. Encoder scratch is dead once the cross-attention
// keys/values are projected, so the decoder caches and step scratch reuse its bytes.
constexpr uint32_t kEncode = 0;
constexpr uint32_t kCrossKV = 1;
constexpr uint32_t kStep = 2;
constexpr uint32_t kReorder = 3;

// Shared embeddings: a stack without its own table uses the other stack's.
std::string embeddings_name(const Model& model, const char* own, const char* other, bool shared) {
  if (shared && find_tensor(model, own) == nullptr && find_tensor(model, other) != nullptr) return other;
  return own;
}

}  // namespace

Status EncoderDecoder::load(const Model& model, const StepModelLimits& limits) {
  const fb::TransformerEncoderDecoder* cfg = file_index(model).config_as_TransformerEncoderDecoder();
  if (cfg == nullptr) return invalid_file("the model is not a Transformer encoder-decoder");
  blocks::StackConfig ec, dc;
  HEED_RETURN_IF_ERROR(blocks::read_stack_config(cfg->encoder(), "encoder", &ec));
  HEED_RETURN_IF_ERROR(blocks::read_stack_config(cfg->decoder(), "decoder", &dc));
  HEED_RETURN_IF_ERROR(set_limits(limits, /*needs_source=*/true));
  HEED_RETURN_IF_ERROR(check_positions(ec, dc));
  const bool shared = cfg->shared_embeddings();
  HEED_RETURN_IF_ERROR(encoder_.load(model, "encoder", ec,
                                     embeddings_name(model, "encoder.embeddings", "decoder.embeddings", shared),
                                     /*memory_dim=*/0));
  const std::string dec_emb = embeddings_name(model, "decoder.embeddings", "encoder.embeddings", shared);
  HEED_RETURN_IF_ERROR(decoder_.load(model, "decoder", dc, dec_emb, /*memory_dim=*/ec.d_model));
  HEED_RETURN_IF_ERROR(load_output_projection(model, cfg->tied_output(), dec_emb, dc.vocab_size, dc.d_model, &output_));
  HEED_RETURN_IF_ERROR(read_start_and_end(model, dc.vocab_size, /*start_optional=*/false, &bos_id_, &eos_id_));
  shortlist_.load(model, &output_, file_index(model).tokenizer()->unk_id(), bos_id_, eos_id_);
  return layers::xnnpack_min_rows(limits.backend, &xnnpack_min_rows_);
}

Status EncoderDecoder::check_positions(const blocks::StackConfig& ec, const blocks::StackConfig& dc) const {
  if (ec.position_encoding == fb::PositionEncoding::Learned && limits_.max_source_len > ec.max_positions) {
    return invalid_argument("max_source_len " + std::to_string(limits_.max_source_len) + " exceeds the encoder's " +
                            std::to_string(ec.max_positions) + " learned positions");
  }
  if (dc.position_encoding == fb::PositionEncoding::Learned && limits_.max_target_len > dc.max_positions) {
    return invalid_argument("max_target_len " + std::to_string(limits_.max_target_len) + " exceeds the decoder's " +
                            std::to_string(dc.max_positions) + " learned positions");
  }
  return Status::success();
}

void EncoderDecoder::plan(ArenaPlanner* p) {
  const blocks::StackConfig& ec = encoder_.config;
  const blocks::StackConfig& dc = decoder_.config;
  const size_t f = sizeof(float), T = limits_.max_target_len, S = limits_.max_source_len;
  const size_t E = saturating_mul(limits_.max_batch, S);  // packed source tokens
  const bool xnn = xnnpack_min_rows_ > 0;
  const auto sinusoidal = [&](const blocks::StackConfig& c, size_t n) {
    return c.position_encoding == fb::PositionEncoding::Sinusoidal ? blocks::saturating_product(n, c.d_model, f) : 0;
  };
  source_offsets_.request(p, "source_offsets", blocks::saturating_product(limits_.max_batch + 1, sizeof(size_t)), kEncode, kReorder);
  row_sentences_.request(p, "row_sentences", blocks::saturating_product(max_rows_, sizeof(uint32_t)), kCrossKV,
                         kReorder);
  encoder_positions_.request(p, "encoder.sinusoidal_positions", sinusoidal(ec, S), kEncode, kReorder);
  decoder_positions_.request(p, "decoder.sinusoidal_positions", sinusoidal(dc, T), kEncode, kReorder);
  // The encoder output (x) and its int8 copy live on until the cross K/V are projected from them.
  encoder_scratch_.plan(p, "encoder", ec,
                        {E, S, threads_, xnn, kEncode, kEncode, kCrossKV, /*block_attention=*/true, blocks::encoder_group_rows(S),
                         blocks::encoder_group_slots(encoder_, threads_, xnn)});
  cross_kv_.assign(dc.num_layers, blocks::ArenaBuffer());
  for (size_t l = 0; l < dc.num_layers; ++l) {
    cross_kv_[l].request(p, "decoder.layers." + std::to_string(l) + ".cross_kv",
                         blocks::saturating_product(E, blocks::cross_memory_row_floats(dc.q_dim()), f), kCrossKV,
                         kReorder);
  }
  self_cache_.plan(p, "decoder", {dc.num_layers, max_rows_, T, dc.kv_dim(), kStep, kReorder, kReorder});
  decoder_scratch_.plan(p, "decoder", dc, {max_rows_, T > S ? T : S, threads_, xnn, kStep, kStep, kStep});
  // A batch's shortlist is gathered after start() and read by every step.
  shortlist_.plan(p, kStep, kReorder);
  // Attention capture: written by step(), read by the decoding engine before reorder().
  cross_attention_.request(p, "decoder.cross_attention",
      limits_.capture_attention ? blocks::saturating_product(max_rows_, dc.num_layers, dc.num_heads, S, f) : 0,
      kStep, kReorder);
}

Status EncoderDecoder::use_xnnpack() {
  HEED_RETURN_IF_ERROR(encoder_.use_xnnpack(xnnpack_min_rows_));
  HEED_RETURN_IF_ERROR(decoder_.use_xnnpack(xnnpack_min_rows_));
  return layers::use_xnnpack(xnnpack_min_rows_, {&output_});
}

void EncoderDecoder::bind(const ArenaPlanner& p) {
  for (blocks::ArenaBuffer* b : {&source_offsets_, &row_sentences_, &encoder_positions_, &decoder_positions_, &cross_attention_}) {
    b->bind(arena_, p);
  }
  for (blocks::ArenaBuffer& b : cross_kv_) b.bind(arena_, p);
  encoder_scratch_.bind(arena_, p);
  decoder_scratch_.bind(arena_, p);
  self_cache_.bind(arena_, p);
  shortlist_.bind(arena_, p);
  if (encoder_.config.position_encoding == fb::PositionEncoding::Sinusoidal) {
    layers::sinusoidal_positions(limits_.max_source_len, encoder_.config.d_model, encoder_positions_.as<float>());
  }
  if (decoder_.config.position_encoding == fb::PositionEncoding::Sinusoidal) {
    layers::sinusoidal_positions(limits_.max_target_len, decoder_.config.d_model, decoder_positions_.as<float>());
  }
  memory_.kv = cross_kv_.data();
  memory_.offsets = source_offsets_.as<size_t>();
  memory_.row_sentences = row_sentences_.as<uint32_t>();
  memory_.max_source_len = limits_.max_source_len;
  memory_.captured = limits_.capture_attention ? cross_attention_.as<float>() : nullptr;
}

Status EncoderDecoder::start(const TokenBatch* sources, size_t batch, size_t beam) {
  started_ = false;
  cache_length_ = 0;
  shortlist_.clear();
  if (sources == nullptr || (batch > 0 && (sources->offsets == nullptr || sources->ids == nullptr))) {
    return invalid_argument("a Transformer encoder-decoder needs a batch of sources");
  }
  if (sources->size != batch) {
    return invalid_argument("the source batch holds " + std::to_string(sources->size) +
                            " sequences, but batch is " + std::to_string(batch));
  }
  HEED_RETURN_IF_ERROR(begin(batch, beam));
  HEED_RETURN_IF_ERROR(check_token_batch(*sources, {limits_.max_source_len, encoder_.config.vocab_size}));
  size_t* offsets = source_offsets_.as<size_t>();
  blocks::pack_offsets(*sources, offsets);
  blocks::encode_stack(compute(), encoder_, encoder_scratch_, {sources, offsets, encoder_positions_.as<float>(), nullptr});
  project_cross_keys_values(offsets[batch]);
  memory_.batch = batch;
  uint32_t* sentences = row_sentences_.as<uint32_t>();
  for (size_t r = 0; r < batch * beam; ++r) sentences[r] = static_cast<uint32_t>(r / beam);
  started_ = true;
  return Status::success();
}

void EncoderDecoder::project_cross_keys_values(size_t tokens) {
  // Staging rows are encoder scratch, dead in this phase; no projection here accumulates.
  const layers::QuantScratch q = encoder_scratch_.quant(/*with_staging=*/false);
  const size_t ld = blocks::cross_memory_row_floats(decoder_.config.q_dim());
  for (size_t l = 0; l < decoder_.layers.size(); ++l) {
    decoder_.layers[l].cross_kv.forward(*k_, encoder_scratch_.x(), tokens, encoder_.config.d_model,
                                        cross_kv_[l].as<float>(), ld, kernels::Activation::kNone, false, q,
                                        pool_.get());
  }
}

void EncoderDecoder::step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) {
  if (!check_step(input_ids, rows, step, log_probs, decoder_.config.vocab_size, /*in_order=*/true)) {
    shortlist_.forget_rows();  // NaN rows now
    return;
  }
  const layers::Linear* output = shortlist_.active() ? &shortlist_.projection() : &output_;
  const blocks::Decoder decoder{&decoder_, output, &decoder_scratch_, &self_cache_, &memory_};
  blocks::decoder_step(compute(), decoder, {input_ids, rows, step, decoder_positions_.as<float>()}, log_probs);
  if (shortlist_.active()) {
    shortlist_.expand(*k_, pool_.get(), log_probs, rows, !raw_logits_);
  } else {
    finish_step(log_probs, rows);
  }
  cache_length_ = step + 1;
}

size_t EncoderDecoder::attention_panels() const {
  return limits_.capture_attention ? decoder_.layers.size() * decoder_.config.num_heads : 0;
}

const float* EncoderDecoder::last_attention() const {
  return limits_.capture_attention ? cross_attention_.as<const float>() : nullptr;
}

Status EncoderDecoder::restrict_vocabulary(const TokenBatch* sources, const TokenBatch* targets) {
  if (!shortlist_.available()) return invalid_argument("this model has no vocabulary map (heed convert --vmap)");
  if (!started_ || sources == nullptr || sources->size != batch_) {
    return invalid_argument("restrict_vocabulary needs the sources of the batch start() began");
  }
  shortlist_.build(*sources, targets);
  return Status::success();
}

bool EncoderDecoder::compact_rows(const int32_t* keep, size_t count) {
  if (!can_compact(keep, count)) return false;
  self_cache_.compact(keep, count, cache_length_);
  // keep is increasing and keep[k] >= k: in order, nothing is overwritten before it is read.
  uint32_t* sentences = row_sentences_.as<uint32_t>();
  for (size_t k = 0; k < count; ++k) sentences[k] = sentences[keep[k]];
  return true;
}

void EncoderDecoder::reorder(const int32_t* parents, size_t rows) {
  if (can_reorder(rows)) self_cache_.reorder(parents, rows, beam_, cache_length_);
}

}  // namespace heed::models
