#include "rnn/rnn_attention.h"

#include <cmath>
#include <cstring>

#include "heed_format/rnn_names.h"
#include "loader/model_index.h"

namespace heed::rnn {

namespace {

using Score = fb::AttentionScore;
using Alignment = fb::AttentionAlignment;

bool projects_query(Score s) { return s == Score::Concat || s == Score::Additive || s == Score::MLP; }

}  // namespace

Status RnnAttention::load(const Model& model, const AttentionConfig& c) {
  config_ = c;
  const size_t h = c.hidden, a = c.attention_dim;
  namespace n = names::rnn;
  if (c.score == Score::General) {
    HEED_RETURN_IF_ERROR(key_.load(model, std::string(n::kAttentionKey), h, h));
  } else if (projects_query(c.score)) {
    if (a == 0) return invalid_file("rnn: the attention score needs attention_dim > 0");
    HEED_RETURN_IF_ERROR(key_.load(model, std::string(n::kAttentionKey), a, h));
    HEED_RETURN_IF_ERROR(query_.load(model, std::string(n::kAttentionQuery), a, h));
    HEED_RETURN_IF_ERROR(v_.load(model, n::kAttentionV, a, /*optional=*/false));
    if (c.score == Score::MLP) HEED_RETURN_IF_ERROR(hidden_.load(model, std::string(n::kAttentionHidden), a, a));
  } else if (c.score == Score::Cosine) {
    HEED_RETURN_IF_ERROR(cosine_scale_.load(model, n::kAttentionCosineScale, 1, /*optional=*/false));
  } else if (c.score == Score::Location) {
    if (c.positions == 0) return invalid_file("rnn: the location score needs max_source_positions > 0");
    HEED_RETURN_IF_ERROR(location_.load(model, std::string(n::kAttentionLocation), c.positions, h));
  }
  if (c.alignment == Alignment::LocalPredictive) {
    if (a == 0) return invalid_file("rnn: local-p alignment needs attention_dim > 0");
    HEED_RETURN_IF_ERROR(position_.load(model, std::string(n::kAttentionPosition), a, h));
    HEED_RETURN_IF_ERROR(position_v_.load(model, n::kAttentionPositionV, a, /*optional=*/false));
  }
  if (c.alignment != Alignment::Global && c.window == 0) {
    return invalid_file("rnn: local attention needs a window D > 0");
  }
  return Status::success();
}

size_t RnnAttention::key_dim() const {
  switch (config_.score) {
    case Score::General:
      return config_.hidden;
    case Score::Concat:
    case Score::Additive:
    case Score::MLP:
      return config_.attention_dim;
    case Score::Cosine:
      return 1;  // the norm of each memory row
    default:
      return 0;
  }
}

size_t RnnAttention::scratch_floats(size_t max_source) const {
  const size_t a = config_.attention_dim;
  return 2 * a + 2 * max_source * a + 1 + config_.positions;
}

size_t RnnAttention::quant_cols() const {
  return config_.attention_dim > config_.hidden ? config_.attention_dim : config_.hidden;
}

void RnnAttention::attend_location(const kernels::KernelTable& k, const float* query, const float* memory,
                                   size_t s_len, float* weights, float* context, float* scratch,
                                   const layers::QuantScratch& q) const {
  const size_t h = config_.hidden, p = config_.positions;
  float* a = scratch;  // [P]
  location_.forward(k, query, 1, h, a, p, kernels::Activation::kNone, false, q);
  k.softmax(a, p);
  if (config_.hard) {
    size_t best = 0;
    for (size_t s = 1; s < p; ++s) {
      if (a[s] > a[best]) best = s;
    }
    for (size_t s = 0; s < p; ++s) a[s] = s == best ? 1.0f : 0.0f;
  }
  for (size_t s = 0; s < s_len; ++s) {
    weights[s] = a[s];
    if (a[s] != 0.0f) k.axpy_f32(a[s], memory + s * h, context, h);
  }
}

void RnnAttention::precompute(const kernels::KernelTable& k, const float* memory, size_t s_len, float* keys,
                              const layers::QuantScratch& q) const {
  const size_t h = config_.hidden;
  if (s_len == 0) return;
  switch (config_.score) {
    case Score::General:
    case Score::Concat:
    case Score::Additive:
    case Score::MLP:
      key_.forward(k, memory, s_len, h, keys, key_dim(), kernels::Activation::kNone, false, q);
      break;
    case Score::Cosine:
      for (size_t s = 0; s < s_len; ++s) keys[s] = std::sqrt(k.dot_f32(memory + s * h, memory + s * h, h));
      break;
    default:
      break;
  }
}

void RnnAttention::scores(const kernels::KernelTable& k, const float* query, const float* memory,
                          const float* keys, size_t s_len, float* e, float* scratch,
                          const layers::QuantScratch& q) const {
  const size_t h = config_.hidden, a = config_.attention_dim;
  switch (config_.score) {
    case Score::Dot:
      for (size_t s = 0; s < s_len; ++s) e[s] = k.dot_f32(query, memory + s * h, h);
      break;
    case Score::ScaledDot: {
      const float scale = static_cast<float>(std::sqrt(static_cast<double>(h)));
      for (size_t s = 0; s < s_len; ++s) e[s] = k.dot_f32(query, memory + s * h, h) / scale;
      break;
    }
    case Score::General:
      for (size_t s = 0; s < s_len; ++s) e[s] = k.dot_f32(query, keys + s * h, h);
      break;
    case Score::Cosine: {
      // Each side normalized first, norms clamped at 1e-6 (a zero vector scores 0, not NaN).
      const float qn = std::fmax(std::sqrt(k.dot_f32(query, query, h)), 1e-6f);
      const float strength = cosine_scale_.data()[0];
      for (size_t s = 0; s < s_len; ++s) {
        const float kn = std::fmax(keys[s], 1e-6f);
        e[s] = k.dot_f32(query, memory + s * h, h) / (qn * kn) * strength;
      }
      break;
    }
    case Score::Concat:
    case Score::Additive:
    case Score::MLP: {
      float* qp = scratch;            // W_q q [A]
      float* t = scratch + a;         // tanh(keys + W_q q) [S, A]
      float* u = t + s_len * a;       // MLP second layer [S, A]
      query_.forward(k, query, 1, h, qp, a, kernels::Activation::kNone, false, q);
      for (size_t s = 0; s < s_len; ++s) {
        float* row = t + s * a;
        std::memcpy(row, keys + s * a, a * sizeof(float));
        k.add(row, qp, a);
      }
      k.tanh_f32(t, s_len * a);
      const float* feats = t;
      if (config_.score == Score::MLP) {
        hidden_.forward(k, t, s_len, a, u, a, kernels::Activation::kNone, false, q);
        k.tanh_f32(u, s_len * a);
        feats = u;
      }
      for (size_t s = 0; s < s_len; ++s) e[s] = k.dot_f32(v_.data(), feats + s * a, a);
      break;
    }
    case Score::NoAttention:
    case Score::Location:  // attend_location()
      break;
  }
}

void RnnAttention::align(const kernels::KernelTable& k, const float* query, size_t s_len, size_t step, float* e,
                         float* scratch, const layers::QuantScratch& q) const {
  const float d = static_cast<float>(config_.window);
  switch (config_.alignment) {
    case Alignment::Global:
      k.softmax(e, s_len);
      return;
    case Alignment::LocalMonotonic: {
      // p_t = t, clamped to the last source position so late steps still see a window.
      const float p = static_cast<float>(step < s_len - 1 ? step : s_len - 1);
      size_t lo = s_len, hi = 0;
      for (size_t s = 0; s < s_len; ++s) {
        if (std::fabs(static_cast<float>(s) - p) <= d) {
          if (lo == s_len) lo = s;
          hi = s;
        }
      }
      for (size_t s = 0; s < s_len; ++s) {
        if (s < lo || s > hi) e[s] = 0.0f;
      }
      k.softmax(e + lo, hi - lo + 1);
      return;
    }
    case Alignment::LocalPredictive: {
      const size_t a = config_.attention_dim;
      float* hidden = scratch;  // tanh(W_p q) [A]
      position_.forward(k, query, 1, config_.hidden, hidden, a, kernels::Activation::kNone, false, q);
      k.tanh_f32(hidden, a);
      const float z = k.dot_f32(position_v_.data(), hidden, a);
      const float p = static_cast<float>(s_len) * (1.0f / (1.0f + std::exp(-z)));
      size_t lo = s_len, hi = 0;
      for (size_t s = 0; s < s_len; ++s) {
        if (std::fabs(static_cast<float>(s) - p) <= d) {
          if (lo == s_len) lo = s;
          hi = s;
        }
      }
      if (lo == s_len) {  // empty window (only possible with a fractional p and tiny D)
        for (size_t s = 0; s < s_len; ++s) e[s] = 0.0f;
        return;
      }
      for (size_t s = 0; s < s_len; ++s) {
        if (s < lo || s > hi) e[s] = 0.0f;
      }
      k.softmax(e + lo, hi - lo + 1);
      const float sigma = d / 2.0f;
      const float denom = 2.0f * sigma * sigma;
      for (size_t s = lo; s <= hi; ++s) {
        const float dist = static_cast<float>(s) - p;
        e[s] *= std::exp(-(dist * dist) / denom);
      }
      return;
    }
  }
}

void RnnAttention::attend(const kernels::KernelTable& k, const float* query, const float* memory,
                          const float* keys, size_t s_len, size_t step, float* weights, float* context,
                          float* scratch, const layers::QuantScratch& q) const {
  const size_t h = config_.hidden;
  std::memset(context, 0, h * sizeof(float));
  if (s_len == 0) return;
  if (config_.score == Score::Location) return attend_location(k, query, memory, s_len, weights, context, scratch, q);
  scores(k, query, memory, keys, s_len, weights, scratch, q);
  align(k, query, s_len, step, weights, scratch, q);
  if (config_.hard) {
    size_t best = 0;
    for (size_t s = 1; s < s_len; ++s) {
      if (weights[s] > weights[best]) best = s;
    }
    for (size_t s = 0; s < s_len; ++s) weights[s] = s == best ? 1.0f : 0.0f;
    std::memcpy(context, memory + best * h, h * sizeof(float));
    return;
  }
  for (size_t s = 0; s < s_len; ++s) {
    if (weights[s] != 0.0f) k.axpy_f32(weights[s], memory + s * h, context, h);
  }
}

}  // namespace heed::rnn
