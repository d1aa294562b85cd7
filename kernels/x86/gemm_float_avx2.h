// The loop gemm_f32 and gemm_f16 share on AVX2: one row of A against four rows of B at a time,
// 8-wide FMA; the K tail masked. `Weights` reads B: load(p) gives 8 values as floats, tail(p, n)
// the last n (< 8) with zeros after them. Static (see internal/gemm_epilogue.h).
#pragma once

#include "internal/gemm_epilogue.h"
#include "x86/avx2_math.h"

namespace heed::kernels::avx2 {

template <typename Params, typename Weights>
static void gemm_float_rows(const Params& p, const Weights& w) {
  using B = std::remove_const_t<std::remove_pointer_t<decltype(p.b)>>;
  const size_t body = p.k - p.k % 8;
  const __m256i tmask = tail_mask(p.k % 8);
  for (size_t m = 0; m < p.m; ++m) {
    const float* a = p.a + m * p.lda;
    for (size_t n0 = 0; n0 < p.n; n0 += 4) {
      const size_t nb = p.n - n0 < 4 ? p.n - n0 : 4;
      const B* b[4];
      for (size_t j = 0; j < 4; ++j) b[j] = p.b + (n0 + (j < nb ? j : nb - 1)) * p.ldb;
      __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
      for (size_t k = 0; k < body; k += 8) {
        const __m256 va = _mm256_loadu_ps(a + k);
        for (int j = 0; j < 4; ++j) acc[j] = _mm256_fmadd_ps(va, w.load(b[j] + k), acc[j]);
      }
      if (body < p.k) {
        const __m256 va = _mm256_maskload_ps(a + body, tmask);  // zero lanes beyond K
        for (int j = 0; j < 4; ++j) acc[j] = _mm256_fmadd_ps(va, w.tail(b[j] + body, p.k - body, tmask), acc[j]);
      }
      for (size_t j = 0; j < nb; ++j)
        gemm_store(hsum_ps(acc[j]), p.bias, p.activation, p.accumulate, p.c + m * p.ldc + n0 + j, n0 + j);
    }
  }
}

}  // namespace heed::kernels::avx2
