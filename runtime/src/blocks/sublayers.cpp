#include "blocks/sublayers.h"

#include <cstring>

#include "loader/model_index.h"

namespace heed::blocks {

const float* sublayer_input(const Compute& cx, const StackConfig& c, const layers::Norm& norm, float* x,
                            float* normed, size_t rows) {
  if (!c.pre_norm) return x;
  norm.apply(*cx.k, x, rows, normed);
  return normed;
}

void sublayer_output(const Compute& cx, const StackConfig& c, const layers::Norm& norm, float* x, float* normed,
                     size_t rows) {
  if (c.pre_norm) return;  // the residual was accumulated into x: x + F(norm(x))
  normalize_rows(cx, norm, x, normed, rows, c.d_model);  // post-norm: x = norm(x + F(x))
}

void normalize_rows(const Compute& cx, const layers::Norm& norm, float* x, float* normed, size_t rows, size_t d) {
  norm.apply(*cx.k, x, rows, normed);
  std::memcpy(x, normed, rows * d * sizeof(float));
}

void feed_forward(const Compute& cx, const StackConfig& c, const LayerWeights& l, const StackScratch& s,
                  const layers::QuantScratch& q, size_t rows) {
  float* x = s.x();
  float* inner = s.ffn();
  const float* in = sublayer_input(cx, c, l.ffn_norm, x, s.normed(), rows);
  l.ffn_in.forward(*cx.k, in, rows, c.d_model, inner, c.ffn_dim, c.activation, false, q, cx.pool);
  if (c.gated_ffn) {
    float* gate = s.ffn_gate();
    l.ffn_gate.forward(*cx.k, in, rows, c.d_model, gate, c.ffn_dim, kernels::Activation::kNone, false, q, cx.pool);
    for (size_t i = 0; i < rows * c.ffn_dim; ++i) inner[i] *= gate[i];
  }
  l.ffn_out.forward(*cx.k, inner, rows, c.ffn_dim, x, c.d_model, kernels::Activation::kNone, true, q, cx.pool);
  sublayer_output(cx, c, l.ffn_norm, x, s.normed(), rows);
}

void embed_token(const Compute& cx, const StackWeights& w, const float* sinusoidal, int32_t id, size_t position,
                 float* row) {
  const StackConfig& c = w.config;
  w.embeddings.gather(static_cast<size_t>(id), c.embedding_scale, false, row);
  if (c.position_encoding == fb::PositionEncoding::Sinusoidal) cx.k->add(row, sinusoidal + position * c.d_model, c.d_model);
  if (c.position_encoding == fb::PositionEncoding::Learned) w.learned_positions.gather(position, 1.0f, true, row);
}

}  // namespace heed::blocks
