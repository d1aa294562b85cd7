// The AVX2 primitives of the fused attention kernel: the block path's 6 x 16 FMA register tile
// (12 accumulators, two loads of B and one broadcast of A per k) and the row path's vector type
// for internal/attention_row_impl.h (8 keys per group of scores, output blocks of 8 vectors).
// Used by the AVX2 variant and, with its own softmax and row vectors, by the AVX-512 one. In an anonymous
// namespace: each file that includes it is compiled with its own flags and keeps its own copy.
#pragma once

#include <immintrin.h>

#include "internal/attention_block_impl.h"
#include "internal/attention_row_impl.h"
#include "x86/avx2_math.h"

namespace heed::kernels::avx2 {

namespace {
// internal/attention_row_impl.h's vector traits on the vector operations of one width (F32x8 or
// avx512::F32x16): the weights of the sum are broadcast vectors. The width's variant adds hsums.
template <class F32, size_t kKeys, size_t kVectors, size_t kSets>
struct RowVecOn : F32 {
  using Vec = typename F32::Vec;
  using Weight = Vec;
  static constexpr size_t kScoreKeys = kKeys, kSumVectors = kVectors, kSumSets = kSets;

  static Vec fma(Vec acc, Vec a, Vec b) { return F32::fmadd(a, b, acc); }
  static Weight weight(float w) { return F32::set1(w); }
  static Vec fma_weight(Vec acc, Weight w, Vec x) { return F32::fmadd(w, x, acc); }
};

struct Avx2Vec : RowVecOn<F32x8, 8, 8, 1> {
  // Two rounds of VHADDPS give, for acc[0..3] (s03) and acc[4..7] (s47), the sums of lanes 0-3
  // in the low 128 bits and of lanes 4-7 in the high ones, in key order; the low halves of both
  // plus the high halves of both are the 8 sums.
  static void hsums(const Vec* acc, float scale, float* out) {
    const __m256 s03 = _mm256_hadd_ps(_mm256_hadd_ps(acc[0], acc[1]), _mm256_hadd_ps(acc[2], acc[3]));
    const __m256 s47 = _mm256_hadd_ps(_mm256_hadd_ps(acc[4], acc[5]), _mm256_hadd_ps(acc[6], acc[7]));
    const __m256 low = _mm256_permute2f128_ps(s03, s47, 0x20), high = _mm256_permute2f128_ps(s03, s47, 0x31);
    _mm256_storeu_ps(out, _mm256_mul_ps(_mm256_add_ps(low, high), _mm256_set1_ps(scale)));
  }
};

// Softmax: the variant's softmax slot (AVX2's or AVX-512's); RowVec: the row path's vector traits
// (Avx2Vec, or the AVX-512 variant's own).
template <void (*Softmax)(float*, size_t), class RowVec = Avx2Vec>
struct Avx2Ops {
  static constexpr size_t kTileRows = 6, kTileCols = 16;

  void softmax(float* x, size_t n) const { Softmax(x, n); }
  void scores(const float* q, KvRows k, size_t n, size_t d, float scale, float* s) const {
    attention_row_scores<RowVec>(q, k, n, d, scale, s);
  }
  void weighted_sum(const float* s, KvRows v, size_t n, size_t d, float* out) const {
    attention_row_sum<RowVec>(s, v, n, d, out);
  }

  // Named accumulators: GCC kept an accumulator array in memory, storing it on every k. A full tile
  // reads its rows of A through two pointers and the strides lda, 2 lda, so the loop keeps every
  // address in registers (six row pointers did not fit: GCC reloaded them from the stack per k).
  void tile(const float* a, size_t lda, size_t rows, const float* b, size_t ldb, size_t k, float alpha, float* c,
            size_t ldc) const {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    if (rows == kTileRows) {
      const float* a0 = a;
      const float* a3 = a + 3 * lda;
      const size_t lda2 = 2 * lda;
      for (size_t i = 0; i < k; ++i, ++a0, ++a3, b += ldb) {
        const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
        fma_row(a0[0], b0, b1, &c00, &c01);
        fma_row(a0[lda], b0, b1, &c10, &c11);
        fma_row(a0[lda2], b0, b1, &c20, &c21);
        fma_row(a3[0], b0, b1, &c30, &c31);
        fma_row(a3[lda], b0, b1, &c40, &c41);
        fma_row(a3[lda2], b0, b1, &c50, &c51);
      }
    } else {
      const float* ar[kTileRows];
      for (size_t r = 0; r < kTileRows; ++r) ar[r] = a + (r < rows ? r : rows - 1) * lda;  // extra rows: repeats
      for (size_t i = 0; i < k; ++i, b += ldb) {
        const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
        fma_row(ar[0][i], b0, b1, &c00, &c01);
        fma_row(ar[1][i], b0, b1, &c10, &c11);
        fma_row(ar[2][i], b0, b1, &c20, &c21);
        fma_row(ar[3][i], b0, b1, &c30, &c31);
        fma_row(ar[4][i], b0, b1, &c40, &c41);
        fma_row(ar[5][i], b0, b1, &c50, &c51);
      }
    }
    const __m256 s = _mm256_set1_ps(alpha);
    const __m256 acc[kTileRows][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
    for (size_t r = 0; r < rows; ++r) {
      _mm256_storeu_ps(c + r * ldc, _mm256_mul_ps(acc[r][0], s));
      _mm256_storeu_ps(c + r * ldc + 8, _mm256_mul_ps(acc[r][1], s));
    }
  }

  // Keys transposed in 8 x 8 register blocks (eight row loads, three rounds of shuffles, eight
  // stores); the edges one value at a time.
  void transpose_keys(const float* k, size_t stride, size_t n, size_t head_dim, float* kt, size_t ld) const {
    const size_t n8 = n - n % 8, d8 = head_dim - head_dim % 8;
    for (size_t j = 0; j < n8; j += 8)
      for (size_t d = 0; d < d8; d += 8) transpose_8x8(k + j * stride + d, stride, kt + d * ld + j, ld);
    for (size_t d = 0; d < head_dim; ++d) {
      const size_t from = d < d8 ? n8 : 0;
      for (size_t j = from; j < n; ++j) kt[d * ld + j] = k[j * stride + d];
    }
  }

  static void transpose_8x8(const float* src, size_t lds, float* dst, size_t ldd) {
    __m256 r[8], t[8];
    for (size_t i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * lds);
    for (size_t i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
      t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (size_t i = 0; i < 8; i += 4) {
      r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
      r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
      r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
      r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (size_t i = 0; i < 4; ++i) {
      _mm256_storeu_ps(dst + i * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
      _mm256_storeu_ps(dst + (i + 4) * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
    }
  }

  // One row of the tile: (c0, c1) += a * (b0, b1).
  static void fma_row(float a, __m256 b0, __m256 b1, __m256* c0, __m256* c1) {
    const __m256 x = _mm256_set1_ps(a);
    *c0 = _mm256_fmadd_ps(x, b0, *c0);
    *c1 = _mm256_fmadd_ps(x, b1, *c1);
  }
};
}  // namespace

}  // namespace heed::kernels::avx2
