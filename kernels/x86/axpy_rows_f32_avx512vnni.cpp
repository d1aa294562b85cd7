// axpy_rows_f32 for AVX-512 (a linear layer's outlier channels): tiles of up to 4 rows of y by 48
// columns, 12 accumulators in registers over the `count` rows of x, so each row of x costs 3
// loads and 4 broadcasts for 12 fused multiply-adds (the AVX2 variant's 4 x 8 tile: 5 for 4).
// Tails by masked loads and stores. Per element the same FMAs in the same order as the AVX2
// variant.
#include <immintrin.h>

#include "internal/each.h"
#include "internal/row_tiles.h"
#include "internal/variants.h"

namespace heed::kernels::avx512vnni {

namespace {

constexpr size_t kVectors = 3;  // 16-float vectors of columns per tile

inline __mmask16 lanes_from(size_t left, size_t v) {
  if (left <= 16 * v) return 0;
  return left - 16 * v >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << (left - 16 * v)) - 1);
}

// M rows of y (compile-time, so the accumulators stay in registers).
template <size_t M>
void axpy_rows_tile(const float* a, size_t lda, size_t count, const float* x, size_t ldx, float* y, size_t ldy,
                    size_t n) {
  for (size_t i = 0; i < n; i += 16 * kVectors) {
    __mmask16 m[kVectors];
    __m512 acc[M][kVectors];
    HEED_EACH(v, kVectors) m[v] = lanes_from(n - i, v);
    HEED_EACH(r, M) {
      HEED_EACH(v, kVectors) acc[r][v] = _mm512_maskz_loadu_ps(m[v], y + r * ldy + i + 16 * v);
    }
    for (size_t j = 0; j < count; ++j) {
      __m512 w[kVectors];
      HEED_EACH(v, kVectors) w[v] = _mm512_maskz_loadu_ps(m[v], x + j * ldx + i + 16 * v);
      HEED_EACH(r, M) {
        const __m512 alpha = _mm512_set1_ps(a[r * lda + j]);
        HEED_EACH(v, kVectors) acc[r][v] = _mm512_fmadd_ps(alpha, w[v], acc[r][v]);
      }
    }
    HEED_EACH(r, M) {
      HEED_EACH(v, kVectors) _mm512_mask_storeu_ps(y + r * ldy + i + 16 * v, m[v], acc[r][v]);
    }
  }
}

}  // namespace

void axpy_rows_f32(size_t rows, const float* alphas, size_t lda, size_t count, const float* x, size_t ldx, float* y,
                   size_t ldy, size_t n) {
  for_each_row_tile(rows, [&](auto m, size_t r) {
    axpy_rows_tile<decltype(m)::value>(alphas + r * lda, lda, count, x, ldx, y + r * ldy, ldy, n);
  });
}

}  // namespace heed::kernels::avx512vnni
