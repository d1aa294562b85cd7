// RNN cell gate math, scalar reference: the specification the SIMD variants are tested against.
// Gate layouts follow PyTorch's LSTM (i, f, g, o) and GRU (r, z, n), so converted weights are used
// as trained. The matrix products are GEMMs done by the caller; these kernels only combine them.
#include <cmath>
#include "internal/variants.h"


namespace heed::kernels::ref {

namespace {
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
}  // namespace

void tanh_f32(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
}

void lstm_cell(const float* gx, const float* gh, float* c, float* h, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    const float i = sigmoid(gx[j] + gh[j]);
    const float f = sigmoid(gx[n + j] + gh[n + j]);
    const float g = std::tanh(gx[2 * n + j] + gh[2 * n + j]);
    const float o = sigmoid(gx[3 * n + j] + gh[3 * n + j]);
    c[j] = f * c[j] + i * g;
    h[j] = o * std::tanh(c[j]);
  }
}

void gru_cell(const float* gx, const float* gh, float* h, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    const float r = sigmoid(gx[j] + gh[j]);
    const float z = sigmoid(gx[n + j] + gh[n + j]);
    const float cand = std::tanh(gx[2 * n + j] + r * gh[2 * n + j]);
    h[j] = (1.0f - z) * cand + z * h[j];
  }
}

}  // namespace heed::kernels::ref
