// The row path of the SIMD attention variants (one query row and head at a time: every decoder
// step), the scores and weighted_sum of internal/attention_impl.h in register tiles. Calling dot
// and axpy per key cost a call, a horizontal sum and a dependent chain of 4-8 FMAs per key for the
// scores, and a load and store of the whole output row per key for the sum (21 % of a batched
// beam search on x86). Here:
//   scores: kScoreKeys keys at a time, one accumulator each (independent FMA chains, each vector
//     of q loaded once per group), two vectors (64 bytes on AVX2) of each key per step, their
//     horizontal sums in one reduction per group;
//   weighted_sum: the output columns in blocks of kSumVectors vectors held in registers across
//     all keys, the keys split between kSumSets sets of accumulators (more independent chains),
//     stored once.
// head_dim past the last whole vector goes through scalar loops of std::fma (any head_dim works;
// 32, 64, 80 and 128 never reach them; explicit fma so that the compiler's contraction choices
// cannot make two instances of one loop round differently). The summation order differs from the reference's (dot_f32's partial
// sums, axpy in key order), so results agree with it to float rounding.
//
// The variant's vector traits V:
//   using Vec;      a register of kLanes floats
//   using Weight;   a key's probability as the FMA by a scalar takes it
//   static constexpr size_t kLanes, kScoreKeys (a multiple of 4), kSumVectors (even), kSumSets
//   static Vec zero(); static Vec load(const float* p); static void store(float* p, Vec v);
//   static Vec add(Vec a, Vec b); static Vec fma(Vec acc, Vec a, Vec b);   acc + a * b
//   static Weight weight(float w); static Vec fma_weight(Vec acc, Weight w, Vec x);   acc + w * x
//   static void hsums(const Vec* acc, float scale, float* out);
//                                      out[i] = scale * (the sum of acc[i]'s lanes), i < kScoreKeys
// Static templates: each variant instantiates its own copy with its own flags.
#pragma once

#include <cmath>
#include <cstddef>

#include "internal/attention_impl.h"

namespace heed::kernels {

// s[j] = scale * q . k_j for j < n (n > 0).
template <class V>
static void attention_row_scores(const float* q, KvRows k, size_t n, size_t d, float scale,
                                 float* s) {
  constexpr size_t K = V::kScoreKeys, L = V::kLanes;
  const size_t whole = d / L * L;
  for (size_t j = 0; j < n; j += K) {
    const float* kj[K];
    for (size_t i = 0; i < K; ++i) kj[i] = k.at(j + i < n ? j + i : n - 1);  // past n: the last key again
    typename V::Vec acc[K];
    for (size_t i = 0; i < K; ++i) acc[i] = V::zero();
    size_t c = 0;
    for (; c + 2 * L <= whole; c += 2 * L) {
      const typename V::Vec q0 = V::load(q + c), q1 = V::load(q + c + L);
      for (size_t i = 0; i < K; ++i)
        acc[i] = V::fma(V::fma(acc[i], q0, V::load(kj[i] + c)), q1, V::load(kj[i] + c + L));
    }
    if (c < whole) {
      const typename V::Vec qc = V::load(q + c);
      for (size_t i = 0; i < K; ++i) acc[i] = V::fma(acc[i], qc, V::load(kj[i] + c));
    }
    if (whole == d && j + K <= n) {  // a whole group: scaled sums straight to s, no scalar loop
      V::hsums(acc, scale, s + j);
      continue;
    }
    float sums[K];
    V::hsums(acc, whole == d ? scale : 1.0f, sums);  // x * 1 is exact: scaled once below
    for (size_t i = 0; i < K && j + i < n; ++i) {
      if (whole == d) {
        s[j + i] = sums[i];
        continue;
      }
      for (size_t t = whole; t < d; ++t) sums[i] = std::fma(q[t], kj[i][t], sums[i]);
      s[j + i] = sums[i] * scale;
    }
  }
}

// out[c] = sum_j s[j] v_j[c] for the NV * kLanes columns at v and out: key j into accumulator set
// j % SETS (SETS * NV independent FMA chains), the sets added at the end.
template <class V, size_t NV, size_t SETS>
static void attention_row_sum_columns(const float* s, KvRows v, size_t n, float* out) {
  constexpr size_t L = V::kLanes;
  // Set k's vector c at k * NV + c: one flat array (as acc[SETS][NV], GCC for armv7 also stored
  // every accumulator to the stack on each key).
  typename V::Vec acc[SETS * NV];
  for (size_t i = 0; i < SETS * NV; ++i) acc[i] = V::zero();
  size_t j = 0;
  for (; j + SETS <= n; j += SETS)
    for (size_t k = 0; k < SETS; ++k) {
      const typename V::Weight w = V::weight(s[j + k]);
      const float* vj = v.at(j + k);
      for (size_t c = 0; c < NV; ++c) acc[k * NV + c] = V::fma_weight(acc[k * NV + c], w, V::load(vj + c * L));
    }
  for (; j < n; ++j) {
    const typename V::Weight w = V::weight(s[j]);
    for (size_t c = 0; c < NV; ++c) acc[c] = V::fma_weight(acc[c], w, V::load(v.at(j) + c * L));
  }
  for (size_t k = 1; k < SETS; ++k)
    for (size_t c = 0; c < NV; ++c) acc[c] = V::add(acc[c], acc[k * NV + c]);
  for (size_t c = 0; c < NV; ++c) V::store(out + c * L, acc[c]);
}

// out = sum_j s[j] v_j over d columns (n > 0). Blocks of kSumVectors vectors in kSumSets sets (one
// set where the registers allow it: each key's columns read at once, whole cache lines in a row;
// reading them in two passes was slower at the cross-attention memory's 4 KiB row stride, where
// every key's lines share one L1 set), then half a block in twice the sets (head_dim 32 keeps as
// many chains), single vectors, single columns.
template <class V>
static void attention_row_sum(const float* s, KvRows v, size_t n, size_t d, float* out) {
  constexpr size_t L = V::kLanes, NV = V::kSumVectors, SETS = V::kSumSets, B = NV * L;
  size_t c = 0;
  for (; c + B <= d; c += B) attention_row_sum_columns<V, NV, SETS>(s, v.columns(c), n, out + c);
  if (c + B / 2 <= d) {
    attention_row_sum_columns<V, NV / 2, 2 * SETS>(s, v.columns(c), n, out + c);
    c += B / 2;
  }
  for (; c + L <= d; c += L) attention_row_sum_columns<V, 1, 2>(s, v.columns(c), n, out + c);
  for (; c < d; ++c) {
    float sum = 0.0f;
    for (size_t j = 0; j < n; ++j) sum = std::fma(s[j], v.at(j)[c], sum);
    out[c] = sum;
  }
}

}  // namespace heed::kernels
