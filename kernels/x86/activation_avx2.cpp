// activate for AVX2: 8 values at a time with the vector activations of avx2_activation_math.h,
// the tail through a masked load/store.
#include "x86/avx2_activation_math.h"

#include "internal/variants.h"

namespace heed::kernels::avx2 {

namespace {
template <class F>
void apply(float* x, size_t n, F f) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, f(_mm256_loadu_ps(x + i)));
  if (i < n) {
    const __m256i mask = tail_mask(n - i);
    _mm256_maskstore_ps(x + i, mask, f(_mm256_maskload_ps(x + i, mask)));
  }
}
}  // namespace

void activate(float* x, size_t n, Activation act) {
  switch (act) {
    case Activation::kNone:
      return;
    case Activation::kRelu:
      return apply(x, n, [](__m256 v) { return _mm256_max_ps(v, _mm256_setzero_ps()); });
    case Activation::kGelu:
      return apply(x, n, [](__m256 v) { return gelu_ps(v); });
    case Activation::kGeluTanh:
      return apply(x, n, [](__m256 v) { return gelu_tanh_ps(v); });
    case Activation::kSilu:
      return apply(x, n, [](__m256 v) { return silu_ps(v); });
  }
}

}  // namespace heed::kernels::avx2
