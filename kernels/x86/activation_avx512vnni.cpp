// activate for AVX-512: 64 values at a time (4 vectors stepped together) with the activations of
// x86/avx512_math.h, then 16 at a time, the tail through masked loads and stores.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 avx512 headers, as in gemm_i8

#include "x86/avx512_math.h"

#include "internal/variants.h"

namespace heed::kernels::avx512vnni {

namespace {
// F is a functor with `template <size_t N> void operator()(__m512* v) const` (in place).
template <class F>
void apply(float* x, size_t n, F f) {
  constexpr size_t kVectors = 4;
  size_t i = 0;
  for (; i + 16 * kVectors <= n; i += 16 * kVectors) {
    __m512 v[kVectors];
    HEED_EACH(j, kVectors) v[j] = _mm512_loadu_ps(x + i + 16 * j);
    f.template operator()<kVectors>(v);
    HEED_EACH(j, kVectors) _mm512_storeu_ps(x + i + 16 * j, v[j]);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = avx512::tail_lanes(n - i);
    __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    f.template operator()<1>(&v);
    _mm512_mask_storeu_ps(x + i, m, v);
  }
}

struct Relu {
  template <size_t N>
  void operator()(__m512* v) const {
    HEED_EACH(j, N) v[j] = _mm512_max_ps(v[j], _mm512_setzero_ps());
  }
};
struct Gelu {
  template <size_t N>
  void operator()(__m512* v) const { avx512::gelu_n<N>(v); }
};
struct GeluTanh {
  template <size_t N>
  void operator()(__m512* v) const { avx512::gelu_tanh_n<N>(v); }
};
struct Silu {
  template <size_t N>
  void operator()(__m512* v) const { avx512::silu_n<N>(v); }
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

}  // namespace heed::kernels::avx512vnni
