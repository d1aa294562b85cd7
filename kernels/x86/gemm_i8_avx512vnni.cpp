// gemm_i8 for AVX-512 VNNI. VPDPBUSD adds four u8 x s8 products into each int32 lane, 64 bytes
// per instruction; a core issues two per cycle, so the code around it must stay small.
//
// Signed x signed through an unsigned x signed instruction: A is shifted to unsigned once
// (a' = a + 128, an XOR with 0x80, done for a chunk of A rows into a stack buffer), so
//   sum_k a'[k] b[k] = sum_k a[k] b[k] + 128 * sum_k b[k]
// and the weight row sums (one VPDPBUSD by ones per 64 bytes, once per tile of B rows) give the
// exact product back. Exact for every int8 input, -128 included; int32 wrap-around in the partial
// sums cancels because the final value fits.
//
// Register blocking: 4 rows of A x 4 rows of B per micro-kernel (16 zmm accumulators, enough
// independent VPDPBUSD chains to cover their latency), K in steps of 64 with a masked tail. B tiles
// are the outer loop and A chunks the inner one, so every weight byte is read from memory once per
// A chunk (once in total for M <= the chunk) while the small activation chunk stays in L1/L2. The
// 16 horizontal sums of a tile are one shuffle tree ending in a single zmm, and the per-row-scale
// epilogue is vectorized with the reference's rounding (float(sum) * (a_scale * b_scale) + bias).
//
// GCC 12's avx512fintrin.h builds many intrinsics on a self-initialized _mm512_undefined_* value,
// which -Wmaybe-uninitialized reports inside the header; silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include <cstring>

#include "internal/gemm_i8_driver.h"
#include "internal/gemm_store_avx512.h"

namespace heed::kernels::avx512vnni {

namespace {

constexpr size_t kMr = 4, kNr = 4;
constexpr size_t kAChunkBytes = 32 * 1024;  // the shifted A rows live on the stack

// Mask of the first `left` (< 64) bytes.
inline __mmask64 tail_mask(size_t left) { return (__mmask64{1} << left) - 1; }

// Sums of 4 accumulators as int32 lanes arranged so that two of these combine into one vector:
// result lane group l (128 bits) holds partial sums [s0, s1, s2, s3] of the 4 inputs.
inline __m512i interleave4(__m512i a0, __m512i a1, __m512i a2, __m512i a3) {
  const __m512i t01 = _mm512_add_epi32(_mm512_unpacklo_epi32(a0, a1), _mm512_unpackhi_epi32(a0, a1));
  const __m512i t23 = _mm512_add_epi32(_mm512_unpacklo_epi32(a2, a3), _mm512_unpackhi_epi32(a2, a3));
  return _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23), _mm512_unpackhi_epi64(t01, t23));
}

// Folds two interleave4 results: 128-bit lanes [x0+x1, x2+x3, y0+y1, y2+y3].
inline __m512i fold2(__m512i x, __m512i y) {
  return _mm512_add_epi32(_mm512_shuffle_i32x4(x, y, 0x88), _mm512_shuffle_i32x4(x, y, 0xdd));
}

// Row sums of NR rows of B over [0, len): sum b[k], via VPDPBUSD with all-ones unsigned bytes.
// `next` (or null) is the following tile's rows: prefetched meanwhile, so the weight stream from
// L3 or memory overlaps this tile's arithmetic instead of stalling the next one.
inline void b_row_sums(const int8_t* const b[kNr], size_t len, int32_t out[kNr],
                       const int8_t* const* next = nullptr) {
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i s[kNr];
  for (size_t j = 0; j < kNr; ++j) s[j] = _mm512_setzero_si512();
  size_t k = 0;
  for (; k + 64 <= len; k += 64) {
    if (next != nullptr)
      for (size_t j = 0; j < kNr; ++j) _mm_prefetch(reinterpret_cast<const char*>(next[j] + k), _MM_HINT_T0);
    for (size_t j = 0; j < kNr; ++j) s[j] = _mm512_dpbusd_epi32(s[j], ones, _mm512_loadu_si512(b[j] + k));
  }
  if (k < len) {
    const __mmask64 m = tail_mask(len - k);
    for (size_t j = 0; j < kNr; ++j) s[j] = _mm512_dpbusd_epi32(s[j], ones, _mm512_maskz_loadu_epi8(m, b[j] + k));
  }
  for (size_t j = 0; j < kNr; ++j) out[j] = _mm512_reduce_add_epi32(s[j]);
}

// The micro-kernel: raw sums sum_k a'[i][k] * b[j][k] for MR rows of shifted A and 4 rows of B,
// returned as one zmm with lane 4 * i + j (rows beyond MR are zero).
template <size_t MR>
inline __m512i tile_sums(const uint8_t* const a[MR], const int8_t* const b[kNr], size_t len) {
  __m512i acc[MR][kNr];
  for (size_t i = 0; i < MR; ++i)
    for (size_t j = 0; j < kNr; ++j) acc[i][j] = _mm512_setzero_si512();
  size_t k = 0;
  for (; k + 64 <= len; k += 64) {
    const __m512i b0 = _mm512_loadu_si512(b[0] + k), b1 = _mm512_loadu_si512(b[1] + k);
    const __m512i b2 = _mm512_loadu_si512(b[2] + k), b3 = _mm512_loadu_si512(b[3] + k);
    for (size_t i = 0; i < MR; ++i) {
      const __m512i va = _mm512_loadu_si512(a[i] + k);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], va, b0);
      acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], va, b1);
      acc[i][2] = _mm512_dpbusd_epi32(acc[i][2], va, b2);
      acc[i][3] = _mm512_dpbusd_epi32(acc[i][3], va, b3);
    }
  }
  if (k < len) {  // masked loads: zero bytes beyond len contribute nothing
    const __mmask64 m = tail_mask(len - k);
    const __m512i b0 = _mm512_maskz_loadu_epi8(m, b[0] + k), b1 = _mm512_maskz_loadu_epi8(m, b[1] + k);
    const __m512i b2 = _mm512_maskz_loadu_epi8(m, b[2] + k), b3 = _mm512_maskz_loadu_epi8(m, b[3] + k);
    for (size_t i = 0; i < MR; ++i) {
      const __m512i va = _mm512_maskz_loadu_epi8(m, a[i] + k);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], va, b0);
      acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], va, b1);
      acc[i][2] = _mm512_dpbusd_epi32(acc[i][2], va, b2);
      acc[i][3] = _mm512_dpbusd_epi32(acc[i][3], va, b3);
    }
  }
  __m512i r[kMr];
  for (size_t i = 0; i < kMr; ++i) r[i] = _mm512_setzero_si512();
  for (size_t i = 0; i < MR; ++i) r[i] = interleave4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
  return fold2(fold2(r[0], r[1]), fold2(r[2], r[3]));
}

// Shifts rows [m0, m0 + rows) of A to unsigned bytes in `dst` (row stride k).
void shift_rows(const GemmI8Params& p, size_t m0, size_t rows, uint8_t* dst) {
  const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* src = p.a + (m0 + r) * p.lda;
    uint8_t* d = dst + r * p.k;
    size_t k = 0;
    for (; k + 64 <= p.k; k += 64)
      _mm512_storeu_si512(d + k, _mm512_xor_si512(_mm512_loadu_si512(src + k), bias));
    if (k < p.k) {
      const __mmask64 m = tail_mask(p.k - k);
      _mm512_mask_storeu_epi8(d + k, m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, src + k), bias));
    }
  }
}

// The full 4 x 4 tile. GCC keeps 16 zmm accumulators in registers but moves them through extra
// register copies around every VPDPBUSD (it is destructive), doubling the instructions of the hot
// loop, so the loop over whole 64-byte steps is written out in assembly with the accumulators in
// zmm0-15 (saved to the stack once per tile); the masked tail and the reduction stay in intrinsics.
inline __m512i tile_sums_4x4(const uint8_t* const a[kMr], const int8_t* const b[kNr], size_t len) {
  // acc[4 i + j] is row i of A against row j of B; zmm0-15 in the loop.
  alignas(64) __m512i acc[16];
  const size_t body = len & ~size_t{63};
  size_t k = 0;
#define HEED_ROW(ptr, r0, r1, r2, r3)                 \
  "vmovdqu64 (%[" #ptr "],%[k]), %%zmm28\n\t"         \
  "vpdpbusd %%zmm24, %%zmm28, %%zmm" #r0 "\n\t"       \
  "vpdpbusd %%zmm25, %%zmm28, %%zmm" #r1 "\n\t"       \
  "vpdpbusd %%zmm26, %%zmm28, %%zmm" #r2 "\n\t"       \
  "vpdpbusd %%zmm27, %%zmm28, %%zmm" #r3 "\n\t"
#define HEED_ZERO(r) "vpxord %%zmm" #r ", %%zmm" #r ", %%zmm" #r "\n\t"
#define HEED_SAVE(r) "vmovdqa64 %%zmm" #r ", " #r "*64(%[acc])\n\t"
  __asm__ volatile(
      HEED_ZERO(0) HEED_ZERO(1) HEED_ZERO(2) HEED_ZERO(3) HEED_ZERO(4) HEED_ZERO(5) HEED_ZERO(6)
      HEED_ZERO(7) HEED_ZERO(8) HEED_ZERO(9) HEED_ZERO(10) HEED_ZERO(11) HEED_ZERO(12)
      HEED_ZERO(13) HEED_ZERO(14) HEED_ZERO(15)
      "cmp %[body], %[k]\n\t"
      "jae 2f\n\t"
      "1:\n\t"
      "vmovdqu64 (%[b0],%[k]), %%zmm24\n\t"
      "vmovdqu64 (%[b1],%[k]), %%zmm25\n\t"
      "vmovdqu64 (%[b2],%[k]), %%zmm26\n\t"
      "vmovdqu64 (%[b3],%[k]), %%zmm27\n\t"
      HEED_ROW(a0, 0, 1, 2, 3) HEED_ROW(a1, 4, 5, 6, 7) HEED_ROW(a2, 8, 9, 10, 11)
      HEED_ROW(a3, 12, 13, 14, 15)
      "add $64, %[k]\n\t"
      "cmp %[body], %[k]\n\t"
      "jb 1b\n\t"
      "2:\n\t"
      HEED_SAVE(0) HEED_SAVE(1) HEED_SAVE(2) HEED_SAVE(3) HEED_SAVE(4) HEED_SAVE(5) HEED_SAVE(6)
      HEED_SAVE(7) HEED_SAVE(8) HEED_SAVE(9) HEED_SAVE(10) HEED_SAVE(11) HEED_SAVE(12)
      HEED_SAVE(13) HEED_SAVE(14) HEED_SAVE(15)
      : [k] "+r"(k)
      : [a0] "r"(a[0]), [a1] "r"(a[1]), [a2] "r"(a[2]), [a3] "r"(a[3]), [b0] "r"(b[0]),
        [b1] "r"(b[1]), [b2] "r"(b[2]), [b3] "r"(b[3]), [body] "r"(body), [acc] "r"(acc)
      : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
        "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm24", "xmm25", "xmm26",
        "xmm27", "xmm28");
#undef HEED_ROW
#undef HEED_ZERO
#undef HEED_SAVE
  if (body < len) {
    const __mmask64 m = tail_mask(len - body);
    const __m512i bt[4] = {_mm512_maskz_loadu_epi8(m, b[0] + body), _mm512_maskz_loadu_epi8(m, b[1] + body),
                           _mm512_maskz_loadu_epi8(m, b[2] + body), _mm512_maskz_loadu_epi8(m, b[3] + body)};
    for (size_t i = 0; i < kMr; ++i) {
      const __m512i va = _mm512_maskz_loadu_epi8(m, a[i] + body);
      for (size_t j = 0; j < kNr; ++j) acc[4 * i + j] = _mm512_dpbusd_epi32(acc[4 * i + j], va, bt[j]);
    }
  }
  return fold2(fold2(interleave4(acc[0], acc[1], acc[2], acc[3]), interleave4(acc[4], acc[5], acc[6], acc[7])),
               fold2(interleave4(acc[8], acc[9], acc[10], acc[11]), interleave4(acc[12], acc[13], acc[14], acc[15])));
}

// Dispatches the MR template on the rows left in this block.
inline __m512i tile_sums_rows(size_t mb, const uint8_t* const a[kMr], const int8_t* const b[kNr],
                              size_t len) {
  switch (mb) {
    case 1: return tile_sums<1>(a, b, len);
    case 2: return tile_sums<2>(a, b, len);
    case 3: return tile_sums<3>(a, b, len);
    default: return tile_sums_4x4(a, b, len);
  }
}

// Per-row scales, the common case: exact sums -> float(sum) * (a_scale * b_scale) + bias ->
// activation -> store/accumulate, one tile of 16 values at once. Lane 4 i + j is (row i, col j).
// The float operations are the reference's, one by one, so the results are identical to it.
struct TileColumns {  // what a tile's epilogue needs from its 4 columns, loaded once per B tile
  __m512 b_scale, bias;
  __m512i corr;  // 128 * sum_k b[j][k]
};

inline TileColumns load_columns(const GemmI8Params& p, size_t n0, size_t nb, const int32_t bsum[kNr]) {
  TileColumns t;
  const __mmask8 m = static_cast<__mmask8>((1u << nb) - 1);
  t.b_scale = _mm512_broadcast_f32x4(_mm_maskz_loadu_ps(m, p.b_scales + n0));
  t.bias = p.bias != nullptr ? _mm512_broadcast_f32x4(_mm_maskz_loadu_ps(m, p.bias + n0)) : _mm512_setzero_ps();
  t.corr = _mm512_slli_epi32(_mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bsum))), 7);
  return t;
}

void epilogue_rows(const GemmI8Params& p, size_t m0, size_t mb, size_t n0, size_t nb, __m512i raw,
                   const TileColumns& t) {
  const __m512 sum = _mm512_cvtepi32_ps(_mm512_sub_epi32(raw, t.corr));
  // a_scale of row i in lanes 4 i .. 4 i + 3.
  const __mmask8 rows = static_cast<__mmask8>((1u << mb) - 1);
  const __m512 a4 = _mm512_castps128_ps512(_mm_maskz_loadu_ps(rows, p.a_scales + m0));
  const __m512 a_scale = _mm512_permutexvar_ps(
      _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3), a4);
  const __m512 v = bias_activation_avx512(_mm512_mul_ps(sum, _mm512_mul_ps(a_scale, t.b_scale)), p.bias != nullptr,
                                          t.bias, p.activation);
  const __mmask8 cols = static_cast<__mmask8>((1u << nb) - 1);
  for (size_t i = 0; i < mb; ++i) {
    float* c = p.c + (m0 + i) * p.ldc + n0;
    __m128 x;
    switch (i) {
      case 0: x = _mm512_extractf32x4_ps(v, 0); break;
      case 1: x = _mm512_extractf32x4_ps(v, 1); break;
      case 2: x = _mm512_extractf32x4_ps(v, 2); break;
      default: x = _mm512_extractf32x4_ps(v, 3); break;
    }
    if (p.accumulate) x = _mm_add_ps(_mm_maskz_loadu_ps(cols, c), x);
    _mm_mask_storeu_ps(c, cols, x);
  }
}

// One row of A (M = 1, the decoder's GEMV): the row sums of B come out of the same pass as the
// products (a second VPDPBUSD by ones per weight vector), so each weight byte is loaded once; 8 rows
// of B per step give 16 independent accumulator chains. The whole-64-byte loop is assembly for the
// same reason as tile_sums_4x4.
inline void gemv_8rows(const uint8_t* a, const int8_t* const b[8], size_t len, __m512i acc[8], __m512i sum[8]) {
  const size_t body = len & ~size_t{63};
  size_t k = 0;
#define HEED_B(ptr, r, s)                             \
  "vmovdqu64 (%[" #ptr "],%[k]), %%zmm18\n\t"         \
  "vpdpbusd %%zmm18, %%zmm17, %%zmm" #r "\n\t"        \
  "vpdpbusd %%zmm18, %%zmm16, %%zmm" #s "\n\t"
#define HEED_ZERO(r) "vpxord %%zmm" #r ", %%zmm" #r ", %%zmm" #r "\n\t"
#define HEED_SAVE(r, base, i) "vmovdqa64 %%zmm" #r ", " #i "*64(%[" #base "])\n\t"
  __asm__ volatile(
      HEED_ZERO(0) HEED_ZERO(1) HEED_ZERO(2) HEED_ZERO(3) HEED_ZERO(4) HEED_ZERO(5) HEED_ZERO(6)
      HEED_ZERO(7) HEED_ZERO(8) HEED_ZERO(9) HEED_ZERO(10) HEED_ZERO(11) HEED_ZERO(12)
      HEED_ZERO(13) HEED_ZERO(14) HEED_ZERO(15)
      "vpternlogd $0xff, %%zmm16, %%zmm16, %%zmm16\n\t"
      "vpabsb %%zmm16, %%zmm16\n\t"  // ones
      "cmp %[body], %[k]\n\t"
      "jae 2f\n\t"
      "1:\n\t"
      "vmovdqu64 (%[a],%[k]), %%zmm17\n\t"
      HEED_B(b0, 0, 8) HEED_B(b1, 1, 9) HEED_B(b2, 2, 10) HEED_B(b3, 3, 11)
      HEED_B(b4, 4, 12) HEED_B(b5, 5, 13) HEED_B(b6, 6, 14) HEED_B(b7, 7, 15)
      "add $64, %[k]\n\t"
      "cmp %[body], %[k]\n\t"
      "jb 1b\n\t"
      "2:\n\t"
      HEED_SAVE(0, acc, 0) HEED_SAVE(1, acc, 1) HEED_SAVE(2, acc, 2) HEED_SAVE(3, acc, 3)
      HEED_SAVE(4, acc, 4) HEED_SAVE(5, acc, 5) HEED_SAVE(6, acc, 6) HEED_SAVE(7, acc, 7)
      HEED_SAVE(8, sum, 0) HEED_SAVE(9, sum, 1) HEED_SAVE(10, sum, 2) HEED_SAVE(11, sum, 3)
      HEED_SAVE(12, sum, 4) HEED_SAVE(13, sum, 5) HEED_SAVE(14, sum, 6) HEED_SAVE(15, sum, 7)
      : [k] "+r"(k)
      : [a] "r"(a), [b0] "r"(b[0]), [b1] "r"(b[1]), [b2] "r"(b[2]), [b3] "r"(b[3]), [b4] "r"(b[4]),
        [b5] "r"(b[5]), [b6] "r"(b[6]), [b7] "r"(b[7]), [body] "r"(body), [acc] "r"(acc), [sum] "r"(sum)
      : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
        "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18");
#undef HEED_B
#undef HEED_ZERO
#undef HEED_SAVE
  if (body < len) {
    const __mmask64 m = tail_mask(len - body);
    const __m512i ones = _mm512_set1_epi8(1);
    const __m512i va = _mm512_maskz_loadu_epi8(m, a + body);
    for (size_t j = 0; j < 8; ++j) {
      const __m512i vb = _mm512_maskz_loadu_epi8(m, b[j] + body);
      acc[j] = _mm512_dpbusd_epi32(acc[j], va, vb);
      sum[j] = _mm512_dpbusd_epi32(sum[j], ones, vb);
    }
  }
}

void gemv_rows(const GemmI8Params& p, const uint8_t* a) {
  const __m256 a_scale = _mm256_set1_ps(p.a_scales[0]);
  for (size_t n0 = 0; n0 < p.n; n0 += 8) {
    const size_t nb = p.n - n0 < 8 ? p.n - n0 : 8;
    const int8_t* b[8];
    for (size_t j = 0; j < 8; ++j) b[j] = p.b + (n0 + (j < nb ? j : nb - 1)) * p.ldb;
    alignas(64) __m512i acc[8], sum[8];
    gemv_8rows(a, b, p.k, acc, sum);
    // One reduction tree for all 16: lanes 0-7 the products, lanes 8-15 the row sums of B.
    const __m512i all = fold2(fold2(interleave4(acc[0], acc[1], acc[2], acc[3]), interleave4(acc[4], acc[5], acc[6], acc[7])),
                              fold2(interleave4(sum[0], sum[1], sum[2], sum[3]), interleave4(sum[4], sum[5], sum[6], sum[7])));
    const __m256i exact = _mm256_sub_epi32(_mm512_castsi512_si256(all),
                                           _mm256_slli_epi32(_mm512_extracti64x4_epi64(all, 1), 7));
    // The reference's float operations: float(sum) * (a_scale * b_scale) + bias, activation, +C.
    const __mmask8 cols = static_cast<__mmask8>((1u << nb) - 1);
    __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(exact),
                             _mm256_mul_ps(a_scale, _mm256_maskz_loadu_ps(cols, p.b_scales + n0)));
    if (p.bias != nullptr) v = _mm256_add_ps(v, _mm256_maskz_loadu_ps(cols, p.bias + n0));
    if (p.activation == Activation::kRelu) {
      v = _mm256_max_ps(v, _mm256_setzero_ps());
    } else if (p.activation != Activation::kNone) {
      alignas(32) float out[8];
      _mm256_store_ps(out, v);
      for (float& x : out) x = ref::activation(x, p.activation);
      v = _mm256_load_ps(out);
    }
    if (p.accumulate) v = _mm256_add_ps(_mm256_maskz_loadu_ps(cols, p.c + n0), v);
    _mm256_mask_storeu_ps(p.c + n0, cols, v);
  }
}

// Per-group scales: per group, exact sums -> acc += float(sum_g) * b_scale_g in group order, then
// * a_scale, then the shared scalar epilogue (the reference's order of float operations).
void tile_groups(const GemmI8Params& p, const uint8_t* const a[kMr], size_t m0, size_t mb,
                 const int8_t* const b[kNr], size_t n0, size_t nb) {
  const size_t groups = gemm_i8_groups(p.k, p.group_size);
  float acc[kMr][kNr] = {};
  for (size_t g = 0; g < groups; ++g) {
    const size_t k0 = g * p.group_size;
    const size_t len = k0 + p.group_size <= p.k ? p.group_size : p.k - k0;
    const uint8_t* ag[kMr];
    const int8_t* bg[kNr];
    for (size_t i = 0; i < kMr; ++i) ag[i] = a[i] + k0;
    for (size_t j = 0; j < kNr; ++j) bg[j] = b[j] + k0;
    int32_t bsum[kNr];
    b_row_sums(bg, len, bsum);
    alignas(64) int32_t s[16];
    _mm512_store_si512(s, tile_sums_rows(mb, ag, bg, len));
    for (size_t i = 0; i < mb; ++i)
      for (size_t j = 0; j < nb; ++j)
        acc[i][j] += static_cast<float>(s[4 * i + j] - 128 * bsum[j]) * p.b_scales[(n0 + j) * groups + g];
  }
  for (size_t i = 0; i < mb; ++i)
    for (size_t j = 0; j < nb; ++j)
      gemm_store(acc[i][j] * p.a_scales[m0 + i], p.bias, p.activation, p.accumulate,
                 p.c + (m0 + i) * p.ldc + n0 + j, n0 + j);
}

// K too long for kMr shifted rows on the stack: one row of A against four rows of B with the sign
// trick instead (|a| unsigned, b negated where a < 0). Exact for inputs in [-127, 127].
struct SignTrickDot1x4 {
  static __m512i dot64(__m512i acc, __m512i abs_a, __mmask64 neg_a, __m512i b) {
    return _mm512_dpbusd_epi32(acc, abs_a, _mm512_mask_sub_epi8(b, neg_a, _mm512_setzero_si512(), b));
  }
  void operator()(const int8_t* const a[1], const int8_t* const b[4], size_t len, int32_t out[1][4]) const {
    __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    for (size_t k = 0; k < len; k += 64) {
      const __mmask64 m = len - k >= 64 ? ~__mmask64{0} : tail_mask(len - k);
      const __m512i va = _mm512_maskz_loadu_epi8(m, a[0] + k);
      const __m512i abs_a = _mm512_abs_epi8(va);
      const __mmask64 neg = _mm512_movepi8_mask(va);
      for (int j = 0; j < 4; ++j) acc[j] = dot64(acc[j], abs_a, neg, _mm512_maskz_loadu_epi8(m, b[j] + k));
    }
    for (int j = 0; j < 4; ++j) out[0][j] = _mm512_reduce_add_epi32(acc[j]);
  }
};

}  // namespace

void gemm_i8(const GemmI8Params& p) {
  if (p.m == 0 || p.n == 0) return;
  if (p.k == 0 || p.k * kMr > kAChunkBytes) {
    gemm_i8_blocked<1>(p, SignTrickDot1x4{});
    return;
  }
  alignas(64) uint8_t shifted[kAChunkBytes];
  const size_t chunk_rows = kAChunkBytes / p.k / kMr * kMr;
  for (size_t mc = 0; mc < p.m; mc += chunk_rows) {
    const size_t rows = p.m - mc < chunk_rows ? p.m - mc : chunk_rows;
    shift_rows(p, mc, rows, shifted);
    if (p.m == 1 && p.group_size == 0) {
      gemv_rows(p, shifted);
      return;
    }
    for (size_t n0 = 0; n0 < p.n; n0 += kNr) {
      const size_t nb = p.n - n0 < kNr ? p.n - n0 : kNr;
      const int8_t* b[kNr];
      for (size_t j = 0; j < kNr; ++j) b[j] = p.b + (n0 + (j < nb ? j : nb - 1)) * p.ldb;
      const int8_t* next[kNr];
      for (size_t j = 0; j < kNr; ++j) next[j] = n0 + kNr + j < p.n ? b[j] + kNr * p.ldb : b[j];
      int32_t bsum[kNr] = {};
      TileColumns cols{};
      if (p.group_size == 0) {
        b_row_sums(b, p.k, bsum, next);
        cols = load_columns(p, n0, nb, bsum);
      }
      for (size_t m0 = mc; m0 < mc + rows; m0 += kMr) {
        const size_t mb = mc + rows - m0 < kMr ? mc + rows - m0 : kMr;
        const uint8_t* a[kMr];
        for (size_t i = 0; i < kMr; ++i) a[i] = shifted + (m0 - mc + (i < mb ? i : mb - 1)) * p.k;
        if (p.group_size == 0) {
          epilogue_rows(p, m0, mb, n0, nb, tile_sums_rows(mb, a, b, p.k), cols);
        } else {
          tile_groups(p, a, m0, mb, b, n0, nb);
        }
      }
    }
  }
}

}  // namespace heed::kernels::avx512vnni
