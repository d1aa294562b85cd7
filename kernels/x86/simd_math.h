// exp's core and the activations written once for both x86 vector widths: V is a traits struct of
// one width (avx2::F32x8 in avx2_math.h, avx512::F32x16 in avx512_math.h) with the vector type,
// its lane count and one inline function per instruction. Each variant's file instantiates these
// templates under its own flags, so the AVX2 and AVX-512 machine code stays what each width's own
// intrinsics give. Static, like every helper included by files with different flags.
//
// GELU: one rational function of x^2 (internal/gelu_rational.h), shared by every ISA.
// GELU tanh form: 1 + tanh(u) = 2 / (1 + e^(-2u)) for u >= 0 and 2 e^(2u) / (1 + e^(2u)) for
// u < 0, which never subtracts nearly equal numbers.
#pragma once

#include <cstddef>

#include "internal/each.h"
#include "internal/gelu_rational.h"
#include "x86/math_constants.h"

namespace heed::kernels::x86 {

// exp's argument reduction and polynomial, of N vectors (x already clamped): n = round(x log2 e),
// r = x - n ln 2 in two steps, p = e^r. The caller scales p by 2^n its own way.
template <class V, size_t N>
__attribute__((always_inline)) static inline void exp_reduce(const typename V::Vec* x, typename V::Vec* n,
                                                             typename V::Vec* p) {
  typename V::Vec r[N];
  HEED_EACH(j, N) n[j] = V::round_nearest(V::mul(x[j], V::set1(kLog2e)));
  HEED_EACH(j, N) r[j] = V::fnmadd(n[j], V::set1(kLn2Hi), x[j]);
  HEED_EACH(j, N) r[j] = V::fnmadd(n[j], V::set1(kLn2Lo), r[j]);
  HEED_EACH(j, N) p[j] = V::set1(kExpPoly[0]);
  for (size_t c = 1; c < sizeof(kExpPoly) / sizeof(float); ++c) {
    HEED_EACH(j, N) p[j] = V::fmadd(p[j], r[j], V::set1(kExpPoly[c]));
  }
  HEED_EACH(j, N) p[j] = V::fmadd(p[j], V::mul(r[j], r[j]), V::add(r[j], V::set1(1.0f)));
}

// Each activation works on N vectors in place, stepped together (internal/each.h).

// GELU: the rational form of internal/gelu_rational.h (no exp; 16 operations per vector).
template <class V, size_t N>
__attribute__((always_inline)) static inline void gelu_n(typename V::Vec* x) {
  typename V::Vec c[N], s[N], p[N], q[N];
  HEED_EACH(j, N) {
    c[j] = V::min(V::max(x[j], V::set1(-kGeluClamp)), V::set1(kGeluClamp));
    s[j] = V::mul(c[j], c[j]);
  }
  HEED_EACH(j, N) p[j] = V::set1(kGeluNumerator[0]);
  HEED_EACH(j, N) q[j] = V::set1(kGeluDenominator[0]);
  for (size_t i = 1; i < sizeof(kGeluNumerator) / sizeof(float); ++i) {
    HEED_EACH(j, N) p[j] = V::fmadd(p[j], s[j], V::set1(kGeluNumerator[i]));
    HEED_EACH(j, N) q[j] = V::fmadd(q[j], s[j], V::set1(kGeluDenominator[i]));
  }
  HEED_EACH(j, N) x[j] = V::mul(x[j], V::fmadd(c[j], V::div(p[j], q[j]), V::set1(0.5f)));
}

// 0.5 x (1 + tanh u) = x / (1 + t) for u >= 0, x t / (1 + t) for u < 0, t = e^(-2|u|).
template <class V, size_t N>
__attribute__((always_inline)) static inline void gelu_tanh_n(typename V::Vec* x) {
  typename V::Vec u[N], t[N];
  HEED_EACH(j, N) {
    const typename V::Vec x3 = V::mul(V::mul(x[j], x[j]), x[j]);
    u[j] = V::mul(V::set1(kGeluTanhScale), V::fmadd(V::set1(kGeluTanhCubic), x3, x[j]));
  }
  HEED_EACH(j, N) t[j] = V::mul(V::set1(-2.0f), V::abs(u[j]));
  V::template exp<N, true>(t);  // in (0, 1]
  HEED_EACH(j, N) {
    const typename V::Vec inv = V::div(x[j], V::add(V::set1(1.0f), t[j]));
    x[j] = V::mul_where_negative(u[j], inv, t[j]);
  }
}

// x / (1 + e^-x); e^-x = +inf for x < -88.7 gives -0, as the reference does.
template <class V, size_t N>
__attribute__((always_inline)) static inline void silu_n(typename V::Vec* x) {
  typename V::Vec e[N];
  HEED_EACH(j, N) e[j] = V::sub(V::zero(), x[j]);
  V::template exp<N, false>(e);
  HEED_EACH(j, N) x[j] = V::div(x[j], V::add(V::set1(1.0f), e[j]));
}

}  // namespace heed::kernels::x86
