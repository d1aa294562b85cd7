#include "models/encoder_heads.h"

#include <algorithm>
#include <cstring>

namespace heed::models {

namespace {
void gather_rows(const float* x, const size_t* rows, size_t n, size_t d, float* out) {
  for (size_t i = 0; i < n; ++i) std::memcpy(out + i * d, x + rows[i] * d, d * sizeof(float));
}
}  // namespace

Status ClassificationHead::load(const Model& model, const fb::TransformerEncoderOnly& config, size_t d_model) {
  d_ = d_model;
  function_ = config.classifier_function();
  HEED_RETURN_IF_ERROR(pooler_.load(model, "encoder.pooler", d_, d_));
  const TensorView* w = find_tensor(model, "encoder.classifier.weight");
  if (w == nullptr) return invalid_file("the classification head has no tensor 'encoder.classifier.weight'");
  const size_t n = w->shape.empty() ? 0 : w->shape[0];
  labels_.clear();
  if (config.labels() != nullptr) {
    for (const auto* label : *config.labels()) labels_.push_back(label ? label->str() : std::string());
    if (labels_.size() != n) {
      return invalid_file("the model names " + std::to_string(labels_.size()) + " labels but its classifier has " +
                          std::to_string(n) + " rows");
    }
  }
  for (size_t i = labels_.size(); i < n; ++i) labels_.push_back("LABEL_" + std::to_string(i));
  return classifier_.load(model, "encoder.classifier", n, d_);
}

void ClassificationHead::plan(ArenaPlanner* p, size_t max_batch, uint32_t phase) {
  cls_.request(p, "classifier.cls", blocks::saturating_product(max_batch, d_, sizeof(float)), phase, phase);
  pooled_.request(p, "classifier.pooled", blocks::saturating_product(max_batch, d_, sizeof(float)), phase, phase);
}

void ClassificationHead::bind(const Arena& arena, const ArenaPlanner& p) {
  cls_.bind(arena, p);
  pooled_.bind(arena, p);
}

void ClassificationHead::run(const blocks::Compute& cx, const float* x, const size_t* offsets, size_t batch,
                             const layers::QuantScratch& q, float* logits) const {
  float* cls = cls_.as<float>();
  float* pooled = pooled_.as<float>();
  gather_rows(x, offsets, batch, d_, cls);
  pooler_.forward(*cx.k, cls, batch, d_, pooled, d_, kernels::Activation::kNone, false, q, cx.pool);
  cx.k->tanh_f32(pooled, batch * d_);
  classifier_.forward(*cx.k, pooled, batch, d_, logits, labels_.size(), kernels::Activation::kNone, false, q, cx.pool);
}

Status MaskedLmHead::load(const Model& model, const blocks::StackConfig& stack) {
  d_ = stack.d_model;
  vocab_ = stack.vocab_size;
  activation_ = stack.activation;
  HEED_RETURN_IF_ERROR(transform_.load(model, "encoder.mlm.transform", d_, d_));
  HEED_RETURN_IF_ERROR(norm_.load(model, "encoder.mlm.norm", d_, /*rms=*/false, stack.norm_epsilon));
  // Tied (BERT): the word embeddings, with the head's own bias.
  const bool own = find_tensor(model, "encoder.mlm.output.weight") != nullptr;
  return output_.load(model, own ? "encoder.mlm.output.weight" : "encoder.embeddings", "encoder.mlm.output.bias",
                      vocab_, d_);
}

void MaskedLmHead::plan(ArenaPlanner* p, size_t max_rows, uint32_t phase) {
  chunk_ = std::min(max_rows, kMaskChunk);
  rows_.request(p, "mlm.rows", blocks::saturating_product(chunk_, d_, sizeof(float)), phase, phase);
  hidden_.request(p, "mlm.hidden", blocks::saturating_product(chunk_, d_, sizeof(float)), phase, phase);
  logits_.request(p, "mlm.logits", blocks::saturating_product(chunk_, vocab_, sizeof(float)), phase, phase);
}

void MaskedLmHead::bind(const Arena& arena, const ArenaPlanner& p) {
  for (blocks::ArenaBuffer* b : {&rows_, &hidden_, &logits_}) b->bind(arena, p);
}

float* MaskedLmHead::run(const blocks::Compute& cx, const float* x, const size_t* rows, size_t n,
                               const layers::QuantScratch& q) const {
  float* gathered = rows_.as<float>();
  float* hidden = hidden_.as<float>();
  float* logits = logits_.as<float>();
  gather_rows(x, rows, n, d_, gathered);
  transform_.forward(*cx.k, gathered, n, d_, hidden, d_, activation_, false, q, cx.pool);
  norm_.apply(*cx.k, hidden, n, gathered);
  output_.forward(*cx.k, gathered, n, d_, logits, vocab_, kernels::Activation::kNone, false, q, cx.pool);
  return logits;
}

}  // namespace heed::models
