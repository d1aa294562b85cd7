// The loop structure shared by the SIMD gemm_i8 variants: blocks of MR rows of A by 4 rows of B,
// per-row or per-group scales, then the common epilogue. A variant supplies only its integer
// micro-kernel:
//
//   void dot(const int8_t* const a[MR], const int8_t* const b[4], size_t len, int32_t out[MR][4]);
//
// which returns exact int32 dot products of len bytes. Edge blocks repeat the last valid row
// pointer (its results are computed and dropped), so micro-kernels never see a partial block.
//
// Everything here is `static` and instantiated with a micro-kernel type that lives in an anonymous
// namespace, so each variant's file gets its own copy compiled with its own flags (see the note in
// gemm_epilogue.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "internal/gemm_epilogue.h"

namespace heed::kernels {

template <size_t MR, class Dot>
static void gemm_i8_blocked(const GemmI8Params& p, Dot dot) {
  const size_t groups = p.group_size ? gemm_i8_groups(p.k, p.group_size) : 1;
  for (size_t m0 = 0; m0 < p.m; m0 += MR) {
    const size_t mb = p.m - m0 < MR ? p.m - m0 : MR;
    const int8_t* a[MR];
    for (size_t i = 0; i < MR; ++i) a[i] = p.a + (m0 + (i < mb ? i : mb - 1)) * p.lda;
    for (size_t n0 = 0; n0 < p.n; n0 += 4) {
      const size_t nb = p.n - n0 < 4 ? p.n - n0 : 4;
      const int8_t* b[4];
      for (size_t j = 0; j < 4; ++j) b[j] = p.b + (n0 + (j < nb ? j : nb - 1)) * p.ldb;
      float v[MR][4];
      int32_t s[MR][4];
      if (p.group_size == 0) {
        dot(a, b, p.k, s);
        for (size_t i = 0; i < mb; ++i)
          for (size_t j = 0; j < nb; ++j)
            v[i][j] = gemm_i8_dequant_row(s[i][j], p.a_scales[m0 + i], p.b_scales[n0 + j]);
      } else {
        // Same order of float operations as the reference: groups in order, then a's scale.
        float acc[MR][4] = {};
        for (size_t g = 0; g < groups; ++g) {
          const size_t k0 = g * p.group_size;
          const size_t len = k0 + p.group_size <= p.k ? p.group_size : p.k - k0;
          const int8_t* ag[MR];
          const int8_t* bg[4];
          for (size_t i = 0; i < MR; ++i) ag[i] = a[i] + k0;
          for (size_t j = 0; j < 4; ++j) bg[j] = b[j] + k0;
          dot(ag, bg, len, s);
          for (size_t i = 0; i < mb; ++i)
            for (size_t j = 0; j < nb; ++j)
              acc[i][j] += static_cast<float>(s[i][j]) * p.b_scales[(n0 + j) * groups + g];
        }
        for (size_t i = 0; i < mb; ++i)
          for (size_t j = 0; j < nb; ++j) v[i][j] = acc[i][j] * p.a_scales[m0 + i];
      }
      for (size_t i = 0; i < mb; ++i)
        for (size_t j = 0; j < nb; ++j)
          gemm_store(v[i][j], p.bias, p.activation, p.accumulate, p.c + (m0 + i) * p.ldc + n0 + j,
                     n0 + j);
    }
  }
}

}  // namespace heed::kernels
