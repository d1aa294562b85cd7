// The AVX-512 int8 GEMM variants' vector epilogue (x86/gemm_i8_packed_avx512vnni.cpp,
// x86/gemm_i8_packed_amx.cpp; bias and activation also x86/gemm_i8_avx512vnni.cpp): 16 outputs at
// a time, the reference's gemm_store operations in its order (bias, activation, accumulate), so
// every variant stores the same floats. Include only from files compiled with AVX-512 flags;
// `static inline` for the reason gemm_epilogue.h gives.
#pragma once

#include <immintrin.h>

#include <cstddef>

#include "heed/kernels.h"
#include "internal/variants.h"

namespace heed::kernels {

// x + bias (when the layer has one), then the activation (ReLU in the vector, the others through
// the reference's own function, lane by lane).
static inline __m512 bias_activation_avx512(__m512 x, bool has_bias, __m512 bias, Activation act) {
  if (has_bias) x = _mm512_add_ps(x, bias);
  if (act == Activation::kRelu) return _mm512_max_ps(x, _mm512_setzero_ps());
  if (act == Activation::kNone) return x;
  alignas(64) float out[16];
  _mm512_store_ps(out, x);
  for (float& y : out) y = ref::activation(y, act);
  return _mm512_load_ps(out);
}

// 16 outputs (lanes past N masked off) -> C at dst: bias, activation, accumulate.
static inline void store_outputs_avx512(const GemmI8PackedParams& p, __m512 x, __m512 bias, __mmask16 mask,
                                        float* dst) {
  x = bias_activation_avx512(x, p.bias != nullptr, bias, p.activation);
  if (p.accumulate) x = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, dst), x);
  _mm512_mask_storeu_ps(dst, mask, x);
}

// Output columns [col, col + 16) clipped to N: the lane mask and the bias.
static inline __mmask16 column_mask_avx512(const GemmI8PackedParams& p, size_t col, __m512* bias) {
  const size_t cols = p.n - col < 16 ? p.n - col : 16;
  const __mmask16 mask = static_cast<__mmask16>((1u << cols) - 1);
  *bias = p.bias != nullptr ? _mm512_maskz_loadu_ps(mask, p.bias + col) : _mm512_setzero_ps();
  return mask;
}

}  // namespace heed::kernels
