// RNN cell gate math, AVX2 + FMA: eight hidden units at a time, tails through masked loads; the
// loops are internal/rnn_cell_impl.h's over avx2_math.h's F32x8 and its exp, which saturates
// correctly (e^x = +inf or 0 gives exactly 0, 1 or -1, never NaN).
#include "internal/rnn_cell_impl.h"
#include "internal/variants.h"
#include "x86/avx2_math.h"

namespace heed::kernels::avx2 {

namespace {

struct RnnF32x8 : F32x8 {
  static Vec exp(Vec x) { return exp_ps(x); }
  static Vec divide(float numerator, Vec d) { return div(set1(numerator), d); }
};

}  // namespace

void tanh_f32(float* x, size_t n) { rnn_tanh_f32<RnnF32x8>(x, n); }

void lstm_cell(const float* gx, const float* gh, float* c, float* h, size_t n) {
  rnn_lstm_cell<RnnF32x8>(gx, gh, c, h, n);
}

void gru_cell(const float* gx, const float* gh, float* h, size_t n) { rnn_gru_cell<RnnF32x8>(gx, gh, h, n); }

}  // namespace heed::kernels::avx2
