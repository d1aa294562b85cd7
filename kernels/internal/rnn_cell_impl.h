// RNN cell gate math written once for every SIMD width: V is a traits struct of one vector type
// (NEON's float32x4_t in arm/rnn_cell_neon.cpp, AVX2's __m256 in x86/rnn_cell_avx2.cpp) with its
// lane count and one inline function per operation: zero, set1, add, sub, mul, fmadd(a, b, c) =
// a b + c, exp, divide(float n, Vec d) = n / d, load_part and store_part (min(left, kLanes) floats,
// the rest zero). sigmoid(x) = 1 / (1 + e^-x) and tanh(x) = 1 - 2 / (e^2x + 1): with an exp that
// saturates (e^x = +inf or 0) the ends come out exactly 0, 1 or -1, never NaN. The order of
// operations follows ref/rnn_cell.cpp, the specification. Static template: each variant's file
// instantiates its own copy under its own flags (see the note in gemm_epilogue.h).
#pragma once

#include <cstddef>

namespace heed::kernels {

template <class V>
__attribute__((always_inline)) static inline typename V::Vec rnn_sigmoid(typename V::Vec x) {
  return V::divide(1.0f, V::add(V::set1(1.0f), V::exp(V::sub(V::zero(), x))));
}

template <class V>
__attribute__((always_inline)) static inline typename V::Vec rnn_tanh(typename V::Vec x) {
  const typename V::Vec e = V::exp(V::add(x, x));
  return V::sub(V::set1(1.0f), V::divide(2.0f, V::add(e, V::set1(1.0f))));
}

// Sum of the input and hidden products of gate `gate` for the units at j.
template <class V>
__attribute__((always_inline)) static inline typename V::Vec rnn_gate(const float* gx, const float* gh, size_t gate,
                                                                      size_t n, size_t j) {
  const size_t left = n - j;
  return V::add(V::load_part(gx + gate * n + j, left), V::load_part(gh + gate * n + j, left));
}

template <class V>
static inline void rnn_tanh_f32(float* x, size_t n) {
  for (size_t j = 0; j < n; j += V::kLanes) V::store_part(x + j, rnn_tanh<V>(V::load_part(x + j, n - j)), n - j);
}

// PyTorch's LSTM gates (i, f, g, o): c = f c + i g, h = o tanh(c).
template <class V>
static inline void rnn_lstm_cell(const float* gx, const float* gh, float* c, float* h, size_t n) {
  for (size_t j = 0; j < n; j += V::kLanes) {
    const size_t left = n - j;
    const typename V::Vec i = rnn_sigmoid<V>(rnn_gate<V>(gx, gh, 0, n, j));
    const typename V::Vec f = rnn_sigmoid<V>(rnn_gate<V>(gx, gh, 1, n, j));
    const typename V::Vec g = rnn_tanh<V>(rnn_gate<V>(gx, gh, 2, n, j));
    const typename V::Vec o = rnn_sigmoid<V>(rnn_gate<V>(gx, gh, 3, n, j));
    const typename V::Vec cn = V::fmadd(f, V::load_part(c + j, left), V::mul(i, g));
    V::store_part(c + j, cn, left);
    V::store_part(h + j, V::mul(o, rnn_tanh<V>(cn)), left);
  }
}

// PyTorch's GRU gates (r, z, n): cand = tanh(x_n + r h_n), h = (1 - z) cand + z h.
template <class V>
static inline void rnn_gru_cell(const float* gx, const float* gh, float* h, size_t n) {
  for (size_t j = 0; j < n; j += V::kLanes) {
    const size_t left = n - j;
    const typename V::Vec r = rnn_sigmoid<V>(rnn_gate<V>(gx, gh, 0, n, j));
    const typename V::Vec z = rnn_sigmoid<V>(rnn_gate<V>(gx, gh, 1, n, j));
    const typename V::Vec cand =
        rnn_tanh<V>(V::fmadd(r, V::load_part(gh + 2 * n + j, left), V::load_part(gx + 2 * n + j, left)));
    const typename V::Vec kept = V::mul(V::sub(V::set1(1.0f), z), cand);
    V::store_part(h + j, V::fmadd(z, V::load_part(h + j, left), kept), left);
  }
}

}  // namespace heed::kernels
