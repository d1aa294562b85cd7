// softmax, log_softmax and log_sum_exp for AVX-512: vector max, exp of 4 vectors stepped together
// (x86/avx512_math.h), masked tails. Same definitions as the reference, including the all-masked
// row (all -inf): softmax gives zeros, log_softmax leaves it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 avx512 headers (reductions), as in gemm_i8
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "x86/avx512_math.h"

#include <cmath>
#include <type_traits>

#include "internal/variants.h"

namespace heed::kernels::avx512vnni {

namespace {
constexpr size_t kVectors = 4;

float row_max(const float* x, size_t n) {
  __m512 m = _mm512_set1_ps(-__builtin_inff());
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 lanes = avx512::tail_lanes(n - i);
    m = _mm512_mask_max_ps(m, lanes, m, _mm512_maskz_loadu_ps(lanes, x + i));
  }
  return _mm512_reduce_max_ps(m);
}

// sum of exp(x - max) over the row; with Store, x becomes exp(x - max).
template <bool Store>
float exp_sum(std::conditional_t<Store, float*, const float*> x, size_t n, float max) {
  const __m512 vm = _mm512_set1_ps(max);
  __m512 sum = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 16 * kVectors <= n; i += 16 * kVectors) {
    __m512 e[kVectors];
    HEED_EACH(j, kVectors) e[j] = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16 * j), vm);
    avx512::exp_n<kVectors, true>(e);
    HEED_EACH(j, kVectors) {
      if constexpr (Store) _mm512_storeu_ps(x + i + 16 * j, e[j]);
      sum = _mm512_add_ps(sum, e[j]);
    }
  }
  for (; i < n; i += 16) {
    const __mmask16 lanes = avx512::tail_lanes(n - i);
    __m512 e = _mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, x + i), vm);
    avx512::exp_n<1, true>(&e);
    if constexpr (Store) _mm512_mask_storeu_ps(x + i, lanes, e);
    sum = _mm512_mask_add_ps(sum, lanes, sum, e);
  }
  return _mm512_reduce_add_ps(sum);
}

// x[i] = x[i] * mul + add over the row.
void scale_shift(float* x, size_t n, float mul, float add) {
  const __m512 vm = _mm512_set1_ps(mul), va = _mm512_set1_ps(add);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 lanes = avx512::tail_lanes(n - i);
    _mm512_mask_storeu_ps(x + i, lanes, _mm512_fmadd_ps(_mm512_maskz_loadu_ps(lanes, x + i), vm, va));
  }
}
}  // namespace

void softmax(float* x, size_t n) {
  if (n == 0) return;
  const float max = row_max(x, n);
  if (std::isinf(max) && max < 0.0f) {
    for (size_t i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  scale_shift(x, n, 1.0f / exp_sum<true>(x, n, max), 0.0f);
}

float log_sum_exp(const float* x, size_t n) {
  if (n == 0) return -__builtin_inff();
  const float max = row_max(x, n);
  if (std::isinf(max) && max < 0.0f) return max;
  return max + std::log(exp_sum<false>(x, n, max));
}

void log_softmax(float* x, size_t n) {
  const float shift = log_sum_exp(x, n);
  if (shift == -__builtin_inff()) return;
  scale_shift(x, n, 1.0f, -shift);  // x * 1 - shift: one rounding, x - shift exactly
}

}  // namespace heed::kernels::avx512vnni
