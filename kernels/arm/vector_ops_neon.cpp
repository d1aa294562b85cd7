// The small vector kernels for NEON (armv7 and aarch64) (the RNN attentions' dot products and axpys, residual adds).
#include "arm/neon_shim.h"

#include "internal/variants.h"
#include "internal/row_tiles.h"

namespace heed::kernels::HEED_NEON_VARIANT {

float dot_f32(const float* a, const float* b, size_t n) {
  float32x4_t acc0 = vdupq_n_f32(0.0f), acc1 = acc0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    acc0 = vfmaq_f32(acc0, vld1q_f32(a + i), vld1q_f32(b + i));
    acc1 = vfmaq_f32(acc1, vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));
  }
  float sum = hsum_f32x4(vaddq_f32(acc0, acc1));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

void axpy_f32(float alpha, const float* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, fma_n_f32x4(vld1q_f32(y + i), vld1q_f32(x + i), alpha));
  for (; i < n; ++i) y[i] += alpha * x[i];
}

namespace {

// M rows of y (a compile-time count, so the accumulators stay in registers).
template <size_t M>
void axpy_rows_tile(const float* a, size_t lda, size_t count, const float* x, size_t ldx, float* y, size_t ldy,
                    size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4_t acc[M];
    for (size_t r = 0; r < M; ++r) acc[r] = vld1q_f32(y + r * ldy + i);
    for (size_t j = 0; j < count; ++j) {
      const float32x4_t w = vld1q_f32(x + j * ldx + i);
      for (size_t r = 0; r < M; ++r) acc[r] = fma_n_f32x4(acc[r], w, a[r * lda + j]);
    }
    for (size_t r = 0; r < M; ++r) vst1q_f32(y + r * ldy + i, acc[r]);
  }
  for (; i < n; ++i)
    for (size_t r = 0; r < M; ++r)
      for (size_t j = 0; j < count; ++j) y[r * ldy + i] += a[r * lda + j] * x[j * ldx + i];
}

}  // namespace

// 4 outputs of 4 rows of y (then the 1-3 left) stay in registers over the rows of x, each loaded
// once for them; one multiply-add per row of x and of y.
void axpy_rows_f32(size_t rows, const float* alphas, size_t lda, size_t count, const float* x, size_t ldx, float* y,
                   size_t ldy, size_t n) {
  for_each_row_tile(rows, [&](auto m, size_t r) {
    axpy_rows_tile<decltype(m)::value>(alphas + r * lda, lda, count, x, ldx, y + r * ldy, ldy, n);
  });
}

void add(float* y, const float* x, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vaddq_f32(vld1q_f32(y + i), vld1q_f32(x + i)));
  for (; i < n; ++i) y[i] += x[i];
}

}  // namespace heed::kernels::HEED_NEON_VARIANT
