// y += alpha * x (attention-weighted sum of the V cache), and several such rows at once.
#include "internal/variants.h"

namespace heed::kernels::ref {

void axpy_f32(float alpha, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

void axpy_rows_f32(size_t rows, const float* alphas, size_t lda, size_t count, const float* x, size_t ldx, float* y,
                   size_t ldy, size_t n) {
  for (size_t r = 0; r < rows; ++r)
    for (size_t j = 0; j < count; ++j) axpy_f32(alphas[r * lda + j], x + j * ldx, y + r * ldy, n);
}

}  // namespace heed::kernels::ref
