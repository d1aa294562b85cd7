// Fused attention for AVX-512 BF16: the block path's two GEMMs (Q.K^T and P.V) on bfloat16 pairs
// with VDPBF16PS, when the caller accepts bfloat16 products (AttentionParams::bf16_products: an
// int8 embedder's encoder on long sentences, blocks/encoder.cpp). One VDPBF16PS does 32
// multiply-adds where a float32 FMA does 16. Every other call, and the float32 models'
// attention, is the AVX-512 VNNI variant's. The scratch layout is internal/attention_bf16_layout.h.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 avx512 headers (reductions), as in gemm_i8
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "internal/attention_bf16_impl.h"
#include "internal/variants.h"
#include "x86/avx512_math.h"

namespace heed::kernels::avx512bf16 {

namespace {

using avx512::tail_lanes;

// count floats (0 past them) to bfloat16, nearest even, as 16-bit lanes of a 256-bit vector.
__m256i to_bf16(const float* x, size_t count) {
  return reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(tail_lanes(count), x)));
}

struct Ops {
  static constexpr size_t kTileRows = 12, kTileCols = kAttentionBf16Cols;

  // A row of `count` floats as count / 2 bfloat16 pairs (count even), padded with zero pairs to `ld`
  // (a multiple of 8).
  static void row_to_pairs(const float* x, size_t count, uint32_t* out, size_t ld) {
    for (size_t i = 0; i < ld * 2; i += 16) {
      const size_t left = i < count ? count - i : 0;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i / 2), to_bf16(x + i, left));
    }
  }

  // Pairs i0..i0+15 of keys j0..j0+15 transposed in registers: keys[(i0 + c) * ld + j0 + r] = pair
  // i0 + c of key j0 + r (rows interleaved by 32 then 64 bits, then 128-bit lanes gathered).
  static void transpose_keys_16x16(const float* k, size_t stride, uint32_t* keys, size_t ld) {
    __m512i r[16], t[16];
    for (size_t j = 0; j < 16; ++j) {
      const float* row = k + j * stride;
      r[j] = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(_mm512_loadu_ps(row + 16), _mm512_loadu_ps(row)));
    }
    for (size_t j = 0; j < 16; j += 2) {
      t[j] = _mm512_unpacklo_epi32(r[j], r[j + 1]);
      t[j + 1] = _mm512_unpackhi_epi32(r[j], r[j + 1]);
    }
    for (size_t j = 0; j < 16; j += 4) {  // r[j + c], lane L: pair 4L + c of keys j .. j + 3
      r[j] = _mm512_unpacklo_epi64(t[j], t[j + 2]);
      r[j + 1] = _mm512_unpackhi_epi64(t[j], t[j + 2]);
      r[j + 2] = _mm512_unpacklo_epi64(t[j + 1], t[j + 3]);
      r[j + 3] = _mm512_unpackhi_epi64(t[j + 1], t[j + 3]);
    }
    for (size_t c = 0; c < 4; ++c) {
      const __m512i even01 = _mm512_shuffle_i32x4(r[c], r[4 + c], 0x88);
      const __m512i odd01 = _mm512_shuffle_i32x4(r[c], r[4 + c], 0xDD);
      const __m512i even23 = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], 0x88);
      const __m512i odd23 = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], 0xDD);
      _mm512_storeu_si512(keys + c * ld, _mm512_shuffle_i32x4(even01, even23, 0x88));
      _mm512_storeu_si512(keys + (4 + c) * ld, _mm512_shuffle_i32x4(odd01, odd23, 0x88));
      _mm512_storeu_si512(keys + (8 + c) * ld, _mm512_shuffle_i32x4(even01, even23, 0xDD));
      _mm512_storeu_si512(keys + (12 + c) * ld, _mm512_shuffle_i32x4(odd01, odd23, 0xDD));
    }
  }

  // keys[i * ld_keys + j] = pair i of key j, for j < n; zero pairs for j in [n, ld_keys). Whole
  // 16 x 16 blocks in registers, the edges through a row of pairs.
  void pack_keys(const AttentionParams& p, const float* k, size_t n, const AttentionBf16Layout& l,
                 uint32_t* keys) const {
    const size_t n16 = n - n % 16, p16 = l.pairs - l.pairs % 16;
    for (size_t j = 0; j < n16; j += 16)
      for (size_t i = 0; i < p16; i += 16)
        transpose_keys_16x16(k + j * p.k_row_stride + 2 * i, p.k_row_stride, keys + i * l.ld_keys + j, l.ld_keys);
    attention_bf16_keys_by_row(*this, p, k, n, l, keys, n16, p16);  // the edges
  }

  // out[d] = (even[d], odd[d]) for d < 16, each 0 past its count.
  static constexpr size_t kPairColumns = 16;
  static void interleave(const float* even, size_t even_count, const float* odd, size_t odd_count, uint32_t* out) {
    const __m512i lo = _mm512_cvtepu16_epi32(to_bf16(even, even_count));
    const __m512i hi = _mm512_cvtepu16_epi32(to_bf16(odd, odd_count));
    _mm512_storeu_si512(out, _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
  }

  // c[r][j] = scales[r] * sum_i dot(a[r * lda + i], b[i * ldb + j]) for r < rows <= kTileRows, j < cols <=
  // kTileCols (the pairs of a broadcast, kTileCols pairs of b per i). Rows past `rows` repeat the
  // last one and are not stored.
  static void tile(const uint32_t* a, size_t lda, size_t rows, const uint32_t* b, size_t ldb, size_t pairs,
                   const float* scales, float* c, size_t ldc, size_t cols) {
    __m512 acc[kTileRows][2];
    const uint32_t* ar[kTileRows];
#pragma GCC unroll 12
    for (size_t r = 0; r < kTileRows; ++r) {
      ar[r] = a + (r < rows ? r : rows - 1) * lda;
      acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    }
    for (size_t i = 0; i < pairs; ++i, b += ldb) {
      const __m512bh b0 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(b));
      const __m512bh b1 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(b + 16));
#pragma GCC unroll 12
      for (size_t r = 0; r < kTileRows; ++r) {
        const __m512bh x = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(ar[r][i])));
        acc[r][0] = _mm512_dpbf16_ps(acc[r][0], x, b0);
        acc[r][1] = _mm512_dpbf16_ps(acc[r][1], x, b1);
      }
    }
    const __mmask16 m0 = tail_lanes(cols), m1 = tail_lanes(cols > 16 ? cols - 16 : 0);
#pragma GCC unroll 12
    for (size_t r = 0; r < kTileRows; ++r) {  // unrolled: the accumulators stay in registers
      if (r >= rows) break;
      const __m512 s = _mm512_set1_ps(scales[r]);
      _mm512_mask_storeu_ps(c + r * ldc, m0, _mm512_mul_ps(acc[r][0], s));
      _mm512_mask_storeu_ps(c + r * ldc + 16, m1, _mm512_mul_ps(acc[r][1], s));
    }
  }

  // exp(s[j] - max s) for j < n as bfloat16 pairs (zero pairs past n, up to `ld`, a multiple of 16);
  // returns their float32 sum. The P.V product divides by it: the softmax without its own pass.
  static float exp_to_pairs(const float* s, size_t n, uint32_t* probs, size_t ld) {
    __m512 m = _mm512_set1_ps(-__builtin_inff());
    for (size_t i = 0; i < n; i += 16) {
      const __mmask16 lanes = tail_lanes(n - i);
      m = _mm512_mask_max_ps(m, lanes, m, _mm512_maskz_loadu_ps(lanes, s + i));
    }
    const __m512 max = _mm512_set1_ps(_mm512_reduce_max_ps(m));
    __m512 sum = _mm512_setzero_ps();
    for (size_t i = 0; i < 2 * ld; i += 32) {
      const __mmask16 lo = tail_lanes(i < n ? n - i : 0), hi = tail_lanes(i + 16 < n ? n - i - 16 : 0);
      __m512 e[2] = {_mm512_maskz_sub_ps(lo, _mm512_maskz_loadu_ps(lo, s + i), max),  // <= 0: exp cannot overflow
                     _mm512_maskz_sub_ps(hi, _mm512_maskz_loadu_ps(hi, s + i + 16), max)};
      avx512::exp_n<2, true>(e);
      e[0] = _mm512_maskz_mov_ps(lo, e[0]);
      e[1] = _mm512_maskz_mov_ps(hi, e[1]);
      sum = _mm512_add_ps(sum, _mm512_add_ps(e[0], e[1]));
      _mm512_storeu_si512(probs + i / 2, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(e[1], e[0])));
    }
    return _mm512_reduce_add_ps(sum);
  }
};

}  // namespace

void attention(const AttentionParams& p) {
  if (!attention_bf16_impl(p, Ops{})) avx512vnni::attention(p);
}

}  // namespace heed::kernels::avx512bf16
