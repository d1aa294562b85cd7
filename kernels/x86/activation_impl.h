// activate for one x86 vector width V (x86/simd_math.h): 4 vectors stepped together, then one
// vector at a time, the tail through V's partial load and store. Each variant's file instantiates
// it under its own flags (activation_avx2.cpp, activation_avx512vnni.cpp).
#pragma once

#include "heed/kernels.h"
#include "x86/simd_math.h"

namespace heed::kernels::x86 {

namespace {
template <class V>
struct Activations {
  using Vec = typename V::Vec;
  static constexpr size_t L = V::kLanes;

  // F is a functor with `template <size_t N> void operator()(Vec* v) const` (in place).
  template <class F>
  static void apply(float* x, size_t n, F f) {
    constexpr size_t kVectors = 4;  // stepped together (HEED_EACH)
    size_t i = 0;
    for (; i + L * kVectors <= n; i += L * kVectors) {
      Vec v[kVectors];
      HEED_EACH(j, kVectors) v[j] = V::load(x + i + L * j);
      f.template operator()<kVectors>(v);
      HEED_EACH(j, kVectors) V::store(x + i + L * j, v[j]);
    }
    for (; i < n; i += L) {
      Vec v = V::load_part(x + i, n - i);
      f.template operator()<1>(&v);
      V::store_part(x + i, v, n - i);
    }
  }

  struct Relu {
    template <size_t N>
    void operator()(Vec* v) const {
      HEED_EACH(j, N) v[j] = V::max(v[j], V::zero());
    }
  };
  struct Gelu {
    template <size_t N>
    void operator()(Vec* v) const { gelu_n<V, N>(v); }
  };
  struct GeluTanh {
    template <size_t N>
    void operator()(Vec* v) const { gelu_tanh_n<V, N>(v); }
  };
  struct Silu {
    template <size_t N>
    void operator()(Vec* v) const { silu_n<V, N>(v); }
  };

  static void activate(float* x, size_t n, Activation act) {
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
};
}  // namespace

}  // namespace heed::kernels::x86
