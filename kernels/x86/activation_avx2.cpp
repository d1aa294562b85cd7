// activate for AVX2: 64 values at a time (8 vectors stepped together) with the vector activations
// of avx2_activation_math.h, then 8 at a time, the tail through a masked load/store.
#include "x86/avx2_activation_math.h"

#include "internal/variants.h"

namespace heed::kernels::avx2 {

namespace {
// F is a functor with `template <size_t N> void operator()(__m256* v) const` (in place).
template <class F>
void apply(float* x, size_t n, F f) {
  constexpr size_t kVectors = 4;  // stepped together (HEED_EACH)
  size_t i = 0;
  for (; i + 8 * kVectors <= n; i += 8 * kVectors) {
    __m256 v[kVectors];
    HEED_EACH(j, kVectors) v[j] = _mm256_loadu_ps(x + i + 8 * j);
    f.template operator()<kVectors>(v);
    HEED_EACH(j, kVectors) _mm256_storeu_ps(x + i + 8 * j, v[j]);
  }
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    f.template operator()<1>(&v);
    _mm256_storeu_ps(x + i, v);
  }
  if (i < n) {
    const __m256i mask = tail_mask(n - i);
    __m256 v = _mm256_maskload_ps(x + i, mask);
    f.template operator()<1>(&v);
    _mm256_maskstore_ps(x + i, mask, v);
  }
}

struct Relu {
  template <size_t N>
  void operator()(__m256* v) const {
    HEED_EACH(j, N) v[j] = _mm256_max_ps(v[j], _mm256_setzero_ps());
  }
};
struct Gelu {
  template <size_t N>
  void operator()(__m256* v) const { gelu_n<N>(v); }
};
struct GeluTanh {
  template <size_t N>
  void operator()(__m256* v) const { gelu_tanh_n<N>(v); }
};
struct Silu {
  template <size_t N>
  void operator()(__m256* v) const { silu_n<N>(v); }
};
}  // namespace

void activate(float* x, size_t n, Activation act) {
  switch (act) {
    case Activation::kNone:
      return;
    case Activation::kRelu:
      return apply(x, n, Relu{});
    case Activation::kGelu:
      return apply(x, n, Gelu{});
    case Activation::kGeluTanh:
      return apply(x, n, GeluTanh{});
    case Activation::kSilu:
      return apply(x, n, Silu{});
  }
}

}  // namespace heed::kernels::avx2
