#include "blocks/sublayers.h"


#include "loader/model_index.h"

namespace heed::blocks {

const float* sublayer_input(const Compute& cx, const StackConfig& c, const layers::Norm& norm, float* x,
                            float* normed, size_t rows) {
  if (!c.pre_norm) return x;
  norm.apply(*cx.k, x, rows, normed, cx.pool);
  return normed;
}

void sublayer_output(const Compute& cx, const StackConfig& c, const layers::Norm& norm, float* x, size_t rows) {
  if (c.pre_norm) return;  // the residual was accumulated into x: x + F(norm(x))
  normalize_rows(cx, norm, x, rows);  // post-norm: x = norm(x + F(x))
}

void normalize_rows(const Compute& cx, const layers::Norm& norm, float* x, size_t rows) {
  norm.apply(*cx.k, x, rows, x, cx.pool);  // the norm kernels work in place
}

namespace {

// Rows per pass of the FFN on heed's own kernels: the inner activations (rows x ffn_dim floats)
// of 256 KiB stay in the L2 cache between the input product, the activation and the output
// product, instead of streaming a long encoder batch's (thousands of rows) through memory three
// times (int8 embed of 256-token inputs: ~9 % faster). But at least kFfnMinRows: each pass reads
// both FFN matrices again, and a decoder step of batch 16 x beam 4 (64 rows) read them twice
// (~2 % of its time). XNNPACK's float32 products run whole batches: they were ~3 % slower in
// passes of 512 KiB.
constexpr size_t kFfnChunkBytes = 256 * 1024;
constexpr size_t kFfnMinRows = 64;

size_t ffn_chunk_rows(const layers::Linear& ffn_in, size_t ffn_dim, size_t rows) {
  if (ffn_in.uses_xnnpack()) return rows;
  const size_t chunk = kFfnChunkBytes / (ffn_dim * sizeof(float));
  return chunk < kFfnMinRows ? kFfnMinRows : chunk / 8 * 8;
}

}  // namespace

void feed_forward(const Compute& cx, const StackConfig& c, const LayerWeights& l, const StackScratch& s, float* x,
                  const layers::QuantScratch& q, size_t rows) {
  float* inner = s.ffn();
  const float* in = sublayer_input(cx, c, l.ffn_norm, x, s.normed(), rows);
  const size_t chunk = ffn_chunk_rows(l.ffn_in, c.ffn_dim, rows);
  for (size_t r0 = 0; r0 < rows; r0 += chunk) {  // each row's result is the same for any chunking
    const size_t m = rows - r0 < chunk ? rows - r0 : chunk;
    const float* in_rows = in + r0 * c.d_model;
    l.ffn_in.forward(*cx.k, in_rows, m, c.d_model, inner, c.ffn_dim, c.activation, false, q, cx.pool);
    if (c.gated_ffn) {
      float* gate = s.ffn_gate();
      l.ffn_gate.forward(*cx.k, in_rows, m, c.d_model, gate, c.ffn_dim, kernels::Activation::kNone, false, q, cx.pool);
      for (size_t i = 0; i < m * c.ffn_dim; ++i) inner[i] *= gate[i];
    }
    l.ffn_out.forward_consuming(*cx.k, inner, m, c.ffn_dim, x + r0 * c.d_model, c.d_model, kernels::Activation::kNone,
                                true, q, cx.pool);
  }
  sublayer_output(cx, c, l.ffn_norm, x, rows);
}

void embed_token(const Compute& cx, const StackWeights& w, const float* sinusoidal, int32_t id, size_t position,
                 float* row) {
  const StackConfig& c = w.config;
  w.embeddings.gather(static_cast<size_t>(id), c.embedding_scale, false, row);
  if (c.position_encoding == fb::PositionEncoding::Sinusoidal) cx.k->add(row, sinusoidal + position * c.d_model, c.d_model);
  if (c.position_encoding == fb::PositionEncoding::Learned) w.learned_positions.gather(position, 1.0f, true, row);
}

}  // namespace heed::blocks
