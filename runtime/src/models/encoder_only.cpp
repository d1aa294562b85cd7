#include "models/encoder_only.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "blocks/encoder.h"
#include "layers/backend.h"
#include "loader/model_index.h"
#include "models/token_batch_check.h"

namespace heed::models {

namespace {
constexpr uint32_t kEncode = 0;  // the session has one phase: every buffer lives through encode()

const char* task_verb(EncoderTask task) {
  switch (task) {
    case EncoderTask::kClassify: return "classify text";
    case EncoderTask::kFillMask: return "fill masks";
    case EncoderTask::kEmbed: break;
  }
  return "make embeddings";
}
}  // namespace

Status EncoderOnly::create(const Model& model, size_t max_batch, size_t max_length, const ArenaOptions* arena,
                           ArenaReport* report, std::unique_ptr<EncoderOnly>* out, threading::PoolOptions threads,
                           EncoderTask task) {
  return create_family(threads, arena, report, "embedder", out, model, max_batch, max_length, task);
}

Status EncoderOnly::load(const Model& model, size_t max_batch, size_t max_length, EncoderTask task) {
  const fb::TransformerEncoderOnly* cfg = file_index(model).config_as_TransformerEncoderOnly();
  if (cfg == nullptr) {
    const char* family = fb::EnumNameModelConfig(model_family(model));
    return unsupported_model(std::string("the model is a ") + (family && *family ? family : "unknown family") +
                            ", not an encoder-only Transformer (BERT-style): it cannot " + task_verb(task));
  }
  blocks::StackConfig c;
  HEED_RETURN_IF_ERROR(blocks::read_stack_config(cfg->encoder(), "encoder", &c));
  HEED_RETURN_IF_ERROR(check_limits(c, max_batch, &max_length));
  max_batch_ = max_batch;
  max_length_ = max_length;
  HEED_RETURN_IF_ERROR(stack_.load(model, "encoder", c, "encoder.embeddings", /*memory_dim=*/0));
  stack_.bf16_attention = true;  // measured on real sentence encoders: docs/quantization.md
  has_token_types_ = cfg->type_vocab_size() > 0;
  if (has_token_types_) {
    HEED_RETURN_IF_ERROR(token_types_.load(model, "encoder.token_types", cfg->type_vocab_size(), c.d_model));
  }
  HEED_RETURN_IF_ERROR(relative_bias_.load(model, *cfg, c.num_heads));
  task_ = task;
  // float32 layers run on XNNPACK when it supports the CPU (the automatic backend's choice).
  HEED_RETURN_IF_ERROR(layers::xnnpack_min_rows(Backend::kAuto, &xnnpack_min_rows_));
  return load_head(model, *cfg);
}

Status EncoderOnly::load_head(const Model& model, const fb::TransformerEncoderOnly& config) {
  if (task_ == EncoderTask::kEmbed) return Status::success();
  const bool classify = task_ == EncoderTask::kClassify;
  const fb::EncoderHead wanted = classify ? fb::EncoderHead::SequenceClassification : fb::EncoderHead::MaskedLM;
  if (config.head() != wanted) {
    return unsupported_model(std::string("the model has no ") + (classify ? "sequence classification" : "masked-LM") +
                             " head (its head: " + fb::EnumNameEncoderHead(config.head()) + "; convert a " +
                             (classify ? "BertForSequenceClassification" : "BertForMaskedLM") + " folder)");
  }
  if (classify) return classifier_.load(model, config, stack_.config.d_model);
  return masked_lm_.load(model, stack_.config);
}

Status EncoderOnly::check_limits(const blocks::StackConfig& c, size_t max_batch, size_t* max_length) const {
  if (c.position_encoding != fb::PositionEncoding::Learned && c.position_encoding != fb::PositionEncoding::None) {
    return unsupported_model(std::string("encoder-only models with ") +
                             fb::EnumNamePositionEncoding(c.position_encoding) +
                             " positions are not supported (learned positions or none)");
  }
  if (*max_length == 0) {
    if (c.position_encoding != fb::PositionEncoding::Learned) {
      return invalid_argument("the model has no position table: give max_length");
    }
    *max_length = c.max_positions;
  }
  if (c.position_encoding == fb::PositionEncoding::Learned && *max_length > c.max_positions) {
    return invalid_argument("max_length " + std::to_string(*max_length) + " exceeds the model's " +
                            std::to_string(c.max_positions) + " learned positions");
  }
  if (max_batch == 0) return invalid_argument("max_batch must be at least 1");
  if (max_batch > (size_t{1} << 20) || *max_length > (size_t{1} << 20)) {
    return invalid_argument("embedder limits are too large (max_batch and max_length up to 2^20)");
  }
  return Status::success();
}

void EncoderOnly::plan(ArenaPlanner* p) {
  const size_t rows = saturating_mul(max_batch_, max_length_);
  offsets_.request(p, "offsets", blocks::saturating_product(max_batch_ + 1, sizeof(size_t)), kEncode, kEncode);
  scratch_.plan(p, "encoder", stack_.config,
                {rows, max_length_, threads_, xnnpack_min_rows_ > 0, kEncode, kEncode, kEncode, /*block_attention=*/true,
                 blocks::encoder_group_rows(max_length_),
                 blocks::encoder_group_slots(stack_, threads_, xnnpack_min_rows_ > 0)});
  relative_bias_.plan(p, max_length_, kEncode);
  if (task_ == EncoderTask::kClassify) classifier_.plan(p, max_batch_, kEncode);
  if (task_ == EncoderTask::kFillMask) masked_lm_.plan(p, rows, kEncode);
}

Status EncoderOnly::use_xnnpack() { return stack_.use_xnnpack(xnnpack_min_rows_); }

void EncoderOnly::bind(const ArenaPlanner& p) {
  offsets_.bind(arena_, p);
  scratch_.bind(arena_, p);
  if (relative_bias_.present()) relative_bias_.bind(arena_, p);
  if (task_ == EncoderTask::kClassify) classifier_.bind(arena_, p);
  if (task_ == EncoderTask::kFillMask) masked_lm_.bind(arena_, p);
}

void EncoderOnly::classify(float* logits) const {
  classifier_.run(compute(), scratch_.x(), offsets(), batch_, scratch_.quant(false), logits);
}

float* EncoderOnly::mask_logits(const size_t* rows, size_t n) const {
  return masked_lm_.run(compute(), scratch_.x(), rows, n, scratch_.quant(false));
}

Status EncoderOnly::encode(const TokenBatch& batch) {
  batch_ = 0;
  HEED_RETURN_IF_ERROR(check_range("batch", batch.size, max_batch_, "embedder"));
  if (batch.ids == nullptr || batch.offsets == nullptr) return invalid_argument("the batch has no ids or offsets");
  HEED_RETURN_IF_ERROR(check_token_batch(batch, {max_length_, stack_.config.vocab_size, "sentence", "embedder",
                                                 /*allow_empty=*/false}));
  size_t* offsets = offsets_.as<size_t>();
  blocks::pack_offsets(batch, offsets);
  size_t longest = 0;
  for (size_t i = 0; i < batch.size; ++i) longest = std::max(longest, batch.length(i));
  blocks::encode_stack(compute(), stack_, scratch_,
                       {&batch, offsets, nullptr, has_token_types_ ? &token_types_ : nullptr,
                        relative_bias_.fill(longest)});
  batch_ = batch.size;
  return Status::success();
}

void EncoderOnly::pool(Pooling pooling, bool normalize, float* out) const {
  const size_t d = stack_.config.d_model;
  const size_t* offsets = offsets_.as<const size_t>();
  const float* x = scratch_.x();
  for (size_t s = 0; s < batch_; ++s) {
    float* o = out + s * d;
    const size_t first = offsets[s], n = offsets[s + 1] - offsets[s];
    if (pooling == Pooling::kCls) {
      std::memcpy(o, x + first * d, d * sizeof(float));
    } else {
      // Summed in double so the mean does not depend on the sentence's length in rounding.
      for (size_t j = 0; j < d; ++j) {
        double sum = 0.0;
        for (size_t t = 0; t < n; ++t) sum += x[(first + t) * d + j];
        o[j] = static_cast<float>(sum / static_cast<double>(n));
      }
    }
    if (normalize) {
      double norm = 0.0;
      for (size_t j = 0; j < d; ++j) norm += static_cast<double>(o[j]) * o[j];
      norm = std::sqrt(norm);
      // torch.nn.functional.normalize's rule: divide by max(norm, 1e-12).
      const double divisor = norm > 1e-12 ? norm : 1e-12;
      for (size_t j = 0; j < d; ++j) o[j] = static_cast<float>(o[j] / divisor);
    }
  }
}

const float* EncoderOnly::hidden_states(size_t sentence, size_t* length) const {
  if (sentence >= batch_) return nullptr;
  const size_t* offsets = offsets_.as<const size_t>();
  if (length) *length = offsets[sentence + 1] - offsets[sentence];
  return scratch_.x() + offsets[sentence] * stack_.config.d_model;
}

}  // namespace heed::models
