// gemm_i8_packed for AVX-512 VNNI: weights in the 16x4 layout (pack_i8_16x4), so one 64-byte load
// is 4 consecutive k of 16 weight rows, exactly a VPDPBUSD operand. Each A row contributes 4 bytes
// broadcast to all lanes (VPBROADCASTD, a load-port operation), and each accumulator lane ends up
// holding one output: no horizontal sums at all, unlike the row-major gemm_i8.
//
// A is shifted to unsigned as in gemm_i8_avx512vnni.cpp (a' = a + 128 into a 32 KiB stack chunk),
// and the packed row sums give the exact result back: sum a'b - 128 sum b = sum ab.
//
// Micro-kernels, by rows of A left: 8 rows x 48 weight rows (3 zmm of 16), 24 zmm accumulators, 3
// weight loads and 8 broadcasts per 4 k, for 24 VPDPBUSD; then 4 rows x 48 (12 accumulators); then
// one row at a time (the GEMV loop, also M = 1). The 8- and 4-row loops are inline assembly (GCC 12
// copies each accumulator around every destructive VPDPBUSD otherwise) and prefetch their 3 weight
// streams into L1 and the blocks after theirs into L2 (without the L2 prefetch the 32000 x 512
// vocabulary projection, 16 MB, ran at 55-72 % of the peak at M = 4-64 against 79-82 % with it:
// each 3-block tile row started by waiting on L3); partial weight tiles (the last 1-2 blocks of N)
// use the intrinsics edge tile.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 avx512 headers, as in gemm_i8

#include <immintrin.h>

#include <cstring>

#include "internal/gemm_epilogue.h"
#include "internal/gemm_store_avx512.h"
#include "internal/variants.h"

namespace heed::kernels::avx512vnni {

namespace {

constexpr size_t kMr = 8, kNb = 3;           // A rows, 16-row weight blocks per tile
static_assert(kNb * 16 == kGemmI8PackedNStep, "the table's n_step is this kernel's tile width");
constexpr size_t kAChunkBytes = 32 * 1024;  // shifted A rows on the stack

struct Packed {
  const GemmI8PackedParams& p;
  size_t k4;           // K rounded up to 4
  size_t block_bytes;  // bytes of one 16-row block: 16 * k4
};

// The assembly tiles' shared pieces. HEED_ROW: one row of A (4 bytes broadcast to zmm27) times
// the 3 weight blocks in zmm24-26 into accumulators r0-r2. HEED_LOAD_B: the next 4 k of the 3
// weight blocks, with an L1 prefetch of each stream. HEED_ROWS_4: rows 0-3 into zmm0-11.
#define HEED_ROW(addr, r0, r1, r2)                          \
  "vpbroadcastd " addr ", %%zmm27\n\t"                      \
  "vpdpbusd %%zmm24, %%zmm27, %%zmm" #r0 "\n\t"             \
  "vpdpbusd %%zmm25, %%zmm27, %%zmm" #r1 "\n\t"             \
  "vpdpbusd %%zmm26, %%zmm27, %%zmm" #r2 "\n\t"
#define HEED_ZERO(r) "vpxord %%zmm" #r ", %%zmm" #r ", %%zmm" #r "\n\t"
#define HEED_LOAD_B                         \
  "prefetcht0 1024(%[b])\n\t"               \
  "prefetcht0 1024(%[b],%[bs],1)\n\t"       \
  "prefetcht0 1024(%[b],%[bs],2)\n\t"       \
  "vmovdqu64 (%[b]), %%zmm24\n\t"           \
  "vmovdqu64 (%[b],%[bs],1), %%zmm25\n\t"   \
  "vmovdqu64 (%[b],%[bs],2), %%zmm26\n\t"
#define HEED_ROWS_4                          \
  HEED_ROW("(%[a])", 0, 1, 2)                \
  HEED_ROW("(%[a],%[s],1)", 3, 4, 5)         \
  HEED_ROW("(%[a],%[s],2)", 6, 7, 8)         \
  HEED_ROW("(%[a],%[s3],1)", 9, 10, 11)
#define HEED_ZERO_12                                                                        \
  HEED_ZERO(0) HEED_ZERO(1) HEED_ZERO(2) HEED_ZERO(3) HEED_ZERO(4) HEED_ZERO(5) HEED_ZERO(6) \
  HEED_ZERO(7) HEED_ZERO(8) HEED_ZERO(9) HEED_ZERO(10) HEED_ZERO(11)

// The full tile: acc[i * 3 + c] = sum over k of a'[i] x weight block c (16 lanes = 16 rows).
void tile_8x3(const uint8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups,
              const int8_t* pf, __m512i acc[kMr * kNb]) {
  const size_t s3 = 3 * lda, s5 = 5 * lda, s7 = 7 * lda;
#define HEED_SAVE(r) "vmovdqa64 %%zmm" #r ", " #r "*64(%[acc])\n\t"
  size_t n = groups;
  __asm__ volatile(
      HEED_ZERO(0) HEED_ZERO(1) HEED_ZERO(2) HEED_ZERO(3) HEED_ZERO(4) HEED_ZERO(5) HEED_ZERO(6)
      HEED_ZERO(7) HEED_ZERO(8) HEED_ZERO(9) HEED_ZERO(10) HEED_ZERO(11) HEED_ZERO(12)
      HEED_ZERO(13) HEED_ZERO(14) HEED_ZERO(15) HEED_ZERO(16) HEED_ZERO(17) HEED_ZERO(18)
      HEED_ZERO(19) HEED_ZERO(20) HEED_ZERO(21) HEED_ZERO(22) HEED_ZERO(23)
      "test %[n], %[n]\n\t"
      "jz 2f\n\t"
      "1:\n\t"
      "prefetcht1 (%[pf])\n\t"
      "prefetcht1 (%[pf],%[bs],1)\n\t"
      HEED_LOAD_B
      HEED_ROWS_4
      HEED_ROW("(%[a],%[s],4)", 12, 13, 14)
      HEED_ROW("(%[a],%[s5],1)", 15, 16, 17)
      HEED_ROW("(%[a],%[s3],2)", 18, 19, 20)
      HEED_ROW("(%[a],%[s7],1)", 21, 22, 23)
      "add $4, %[a]\n\t"
      "add $64, %[b]\n\t"
      "add $64, %[pf]\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      "2:\n\t"
      HEED_SAVE(0) HEED_SAVE(1) HEED_SAVE(2) HEED_SAVE(3) HEED_SAVE(4) HEED_SAVE(5) HEED_SAVE(6)
      HEED_SAVE(7) HEED_SAVE(8) HEED_SAVE(9) HEED_SAVE(10) HEED_SAVE(11) HEED_SAVE(12)
      HEED_SAVE(13) HEED_SAVE(14) HEED_SAVE(15) HEED_SAVE(16) HEED_SAVE(17) HEED_SAVE(18)
      HEED_SAVE(19) HEED_SAVE(20) HEED_SAVE(21) HEED_SAVE(22) HEED_SAVE(23)
      : [a] "+r"(a), [b] "+r"(b), [n] "+r"(n), [pf] "+r"(pf)
      : [s] "r"(lda), [s3] "r"(s3), [s5] "r"(s5), [s7] "r"(s7), [bs] "r"(block_bytes), [acc] "r"(acc)
      : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
        "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18",
        "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27");
#undef HEED_SAVE
}

// 4 rows of A x 48 weight rows (small M, and 4 to 7 rows left at the end of a chunk): 12
// accumulators, still enough independent VPDPBUSD chains to cover its latency; 3 weight loads and
// 4 broadcasts per 12 VPDPBUSD.
void tile_4x3(const uint8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups,
              const int8_t* pf, __m512i acc[kMr * kNb]) {
  const size_t s3 = 3 * lda;
#define HEED_SAVE(r) "vmovdqa64 %%zmm" #r ", " #r "*64(%[acc])\n\t"
  size_t n = groups;
  __asm__ volatile(
      HEED_ZERO_12
      "test %[n], %[n]\n\t"
      "jz 2f\n\t"
      "1:\n\t"
      "prefetcht1 (%[pf])\n\t"
      "prefetcht1 (%[pf],%[bs],1)\n\t"
      "prefetcht1 (%[pf],%[bs],2)\n\t"
      HEED_LOAD_B
      HEED_ROWS_4
      "add $4, %[a]\n\t"
      "add $64, %[b]\n\t"
      "add $64, %[pf]\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      "2:\n\t"
      HEED_SAVE(0) HEED_SAVE(1) HEED_SAVE(2) HEED_SAVE(3) HEED_SAVE(4) HEED_SAVE(5) HEED_SAVE(6)
      HEED_SAVE(7) HEED_SAVE(8) HEED_SAVE(9) HEED_SAVE(10) HEED_SAVE(11)
      : [a] "+r"(a), [b] "+r"(b), [n] "+r"(n), [pf] "+r"(pf)
      : [s] "r"(lda), [s3] "r"(s3), [bs] "r"(block_bytes), [acc] "r"(acc)
      : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
        "xmm9", "xmm10", "xmm11", "xmm24", "xmm25", "xmm26", "xmm27");
#undef HEED_SAVE
}

// Activation blocks, 4 rows of A x 48 weight rows over `blocks` whole blocks of K: the int32 sums
// of each block (zmm0-11) are dequantized into float accumulators that stay in registers
// (zmm12-23) for all of K, instead of going through memory after every block as the 8x3 tile's
// sums must (its 24 accumulators leave no room for floats). Per block and accumulator: subtract
// the correction, convert, a_scale x b_scale (a_scale broadcast from memory), one fused
// multiply-add, starting from -0 so that the first block is the reference's plain product.
// a_scales: the 4 rows' scales by block, [q * 4 + i]; lanes: the first weight block's record for
// the first block of K; lane_stride: bytes from one weight block's records to the next's.
void tile_4x3_blocks(const uint8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups_per_block,
                     size_t blocks, const float* a_scales, const BlockLanes* lanes, size_t lane_stride,
                     __m512 v[kMr * kNb]) {
  const size_t s3 = 3 * lda;
  const float neg_zero = -0.0f;
  size_t n = 0;
#define HEED_COPY(r) "vmovaps %%zmm12, %%zmm" #r "\n\t"
#define HEED_DQ(acc, out, corr, scale, a_off)              \
  "vpsubd " corr ", %%zmm" #acc ", %%zmm" #acc "\n\t"      \
  "vcvtdq2ps %%zmm" #acc ", %%zmm" #acc "\n\t"             \
  "vmulps " #a_off "(%[as])%{1to16%}, %%zmm" #scale ", %%zmm31\n\t" \
  "vfmadd231ps %%zmm31, %%zmm" #acc ", %%zmm" #out "\n\t"  \
  HEED_ZERO(acc)
#define HEED_SAVE(r) "vmovaps %%zmm" #r ", (" #r "-12)*64(%[v])\n\t"
  __asm__ volatile(
      HEED_ZERO_12
      "vbroadcastss %[nz], %%zmm12\n\t"
      HEED_COPY(13) HEED_COPY(14) HEED_COPY(15) HEED_COPY(16) HEED_COPY(17) HEED_COPY(18)
      HEED_COPY(19) HEED_COPY(20) HEED_COPY(21) HEED_COPY(22) HEED_COPY(23)
      "1:\n\t"
      "mov %[gpb], %[n]\n\t"
      "2:\n\t"
      HEED_LOAD_B
      HEED_ROWS_4
      "add $4, %[a]\n\t"
      "add $64, %[b]\n\t"
      "dec %[n]\n\t"
      "jnz 2b\n\t"
      "vmovups 64(%[ln]), %%zmm24\n\t"
      "vmovups 64(%[ln],%[ls],1), %%zmm25\n\t"
      "vmovups 64(%[ln],%[ls],2), %%zmm26\n\t"
      HEED_DQ(0, 12, "(%[ln])", 24, 0) HEED_DQ(1, 13, "(%[ln],%[ls],1)", 25, 0)
      HEED_DQ(2, 14, "(%[ln],%[ls],2)", 26, 0)
      HEED_DQ(3, 15, "(%[ln])", 24, 4) HEED_DQ(4, 16, "(%[ln],%[ls],1)", 25, 4)
      HEED_DQ(5, 17, "(%[ln],%[ls],2)", 26, 4)
      HEED_DQ(6, 18, "(%[ln])", 24, 8) HEED_DQ(7, 19, "(%[ln],%[ls],1)", 25, 8)
      HEED_DQ(8, 20, "(%[ln],%[ls],2)", 26, 8)
      HEED_DQ(9, 21, "(%[ln])", 24, 12) HEED_DQ(10, 22, "(%[ln],%[ls],1)", 25, 12)
      HEED_DQ(11, 23, "(%[ln],%[ls],2)", 26, 12)
      "add $128, %[ln]\n\t"
      "add $16, %[as]\n\t"
      "dec %[nq]\n\t"
      "jnz 1b\n\t"
      HEED_SAVE(12) HEED_SAVE(13) HEED_SAVE(14) HEED_SAVE(15) HEED_SAVE(16) HEED_SAVE(17)
      HEED_SAVE(18) HEED_SAVE(19) HEED_SAVE(20) HEED_SAVE(21) HEED_SAVE(22) HEED_SAVE(23)
      : [a] "+r"(a), [b] "+r"(b), [n] "+r"(n), [nq] "+r"(blocks), [ln] "+r"(lanes), [as] "+r"(a_scales)
      : [s] "r"(lda), [s3] "r"(s3), [bs] "r"(block_bytes), [ls] "r"(lane_stride), [gpb] "m"(groups_per_block),
        [nz] "m"(neg_zero), [v] "r"(v)
      : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
        "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18",
        "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm31");
#undef HEED_COPY
#undef HEED_DQ
#undef HEED_SAVE
}

// Edge tiles (fewer rows of A or weight blocks): the same arithmetic in intrinsics.
void tile_edge(const uint8_t* a, size_t lda, size_t mr, const int8_t* b, size_t block_bytes,
               size_t nb, size_t groups, __m512i acc[kMr * kNb]) {
  for (size_t i = 0; i < kMr * kNb; ++i) acc[i] = _mm512_setzero_si512();
  for (size_t g = 0; g < groups; ++g) {
    __m512i w[kNb];
    for (size_t c = 0; c < nb; ++c) w[c] = _mm512_loadu_si512(b + c * block_bytes + g * 64);
    for (size_t i = 0; i < mr; ++i) {
      int32_t four;
      std::memcpy(&four, a + i * lda + 4 * g, 4);
      const __m512i va = _mm512_set1_epi32(four);
      for (size_t c = 0; c < nb; ++c) acc[i * kNb + c] = _mm512_dpbusd_epi32(acc[i * kNb + c], va, w[c]);
    }
  }
}

// One row of A (M = 1, the decoder's GEMV, and the last 1 to 3 rows of a chunk): up to 3 16-row
// blocks, each with 4 accumulators taking the groups of 4 k in turn (12 independent VPDPBUSD
// chains), so the weights are read as sequential streams, each byte once, and one A broadcast
// feeds every block. Missing blocks (nb < 3) repeat block 0; their sums are not stored.
void gemv_row(const uint8_t* a, const int8_t* b, size_t block_bytes, size_t nb, size_t groups,
              __m512i acc[kMr * kNb]) {
  __m512i s0[4], s1[4], s2[4];
  for (int j = 0; j < 4; ++j) s0[j] = s1[j] = s2[j] = _mm512_setzero_si512();
  const int8_t* b1 = b + (nb > 1 ? block_bytes : 0);
  const int8_t* b2 = b + (nb > 2 ? 2 * block_bytes : 0);
  size_t g = 0;
  for (; g + 4 <= groups; g += 4) {
    for (int j = 0; j < 4; ++j) {
      int32_t four;
      std::memcpy(&four, a + 4 * (g + j), 4);
      const __m512i va = _mm512_set1_epi32(four);
      s0[j] = _mm512_dpbusd_epi32(s0[j], va, _mm512_loadu_si512(b + (g + j) * 64));
      s1[j] = _mm512_dpbusd_epi32(s1[j], va, _mm512_loadu_si512(b1 + (g + j) * 64));
      s2[j] = _mm512_dpbusd_epi32(s2[j], va, _mm512_loadu_si512(b2 + (g + j) * 64));
    }
  }
  for (; g < groups; ++g) {
    int32_t four;
    std::memcpy(&four, a + 4 * g, 4);
    const __m512i va = _mm512_set1_epi32(four);
    s0[0] = _mm512_dpbusd_epi32(s0[0], va, _mm512_loadu_si512(b + g * 64));
    s1[0] = _mm512_dpbusd_epi32(s1[0], va, _mm512_loadu_si512(b1 + g * 64));
    s2[0] = _mm512_dpbusd_epi32(s2[0], va, _mm512_loadu_si512(b2 + g * 64));
  }
  acc[0] = _mm512_add_epi32(_mm512_add_epi32(s0[0], s0[1]), _mm512_add_epi32(s0[2], s0[3]));
  acc[1] = _mm512_add_epi32(_mm512_add_epi32(s1[0], s1[1]), _mm512_add_epi32(s1[2], s1[3]));
  acc[2] = _mm512_add_epi32(_mm512_add_epi32(s2[0], s2[1]), _mm512_add_epi32(s2[2], s2[3]));
}

// v -> C for rows [m0, m0 + mr), weight rows [n0, n0 + 16 nb) clipped to N.
void store_tile(const GemmI8PackedParams& p, size_t m0, size_t mr, size_t n0, size_t nb, const __m512 v[kMr * kNb]) {
  for (size_t c = 0; c < nb && n0 + 16 * c < p.n; ++c) {
    const size_t col = n0 + 16 * c;
    __m512 bias;
    const __mmask16 mask = column_mask_avx512(p, col, &bias);
    for (size_t i = 0; i < mr; ++i) store_outputs_avx512(p, v[i * kNb + c], bias, mask, p.c + (m0 + i) * p.ldc + col);
  }
}

// Per-row scales: float(acc - 128 row sum) * (a_scale * b_scale), the reference's float
// operations, stored straight from registers.
void epilogue(const GemmI8PackedParams& p, size_t m0, size_t mr, size_t n0, size_t nb,
              const __m512i acc[kMr * kNb]) {
  for (size_t c = 0; c < nb && n0 + 16 * c < p.n; ++c) {
    const size_t col = n0 + 16 * c;
    __m512 bias;
    const __mmask16 mask = column_mask_avx512(p, col, &bias);
    const __m512i corr = _mm512_slli_epi32(_mm512_maskz_loadu_epi32(mask, p.row_sums + col), 7);
    const __m512 b_scale = _mm512_maskz_loadu_ps(mask, p.b_scales + col);
    for (size_t i = 0; i < mr; ++i) {
      const __m512 sum = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[i * kNb + c], corr));
      const __m512 v = _mm512_mul_ps(sum, _mm512_mul_ps(_mm512_set1_ps(p.a_scales[m0 + i]), b_scale));
      store_outputs_avx512(p, v, bias, mask, p.c + (m0 + i) * p.ldc + col);
    }
  }
}

// Rows [mc, mc + rows) of A as a' = a + 128 into `shifted` (rows of k4 bytes); padding k gets
// 128 too (times zero weights).
void shift_rows(const GemmI8PackedParams& p, size_t mc, size_t rows, size_t k4, uint8_t* shifted) {
  const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* src = p.a + (mc + r) * p.lda;
    uint8_t* d = shifted + r * k4;
    for (size_t k = 0; k < k4; k += 64) {
      const size_t len = p.k > k ? (p.k - k < 64 ? p.k - k : 64) : 0;
      const size_t span = k4 - k < 64 ? k4 - k : 64;
      const __m512i v = _mm512_maskz_loadu_epi8(len == 64 ? ~__mmask64{0} : (__mmask64{1} << len) - 1, src + k);
      _mm512_mask_storeu_epi8(d + k, span == 64 ? ~__mmask64{0} : (__mmask64{1} << span) - 1, _mm512_xor_si512(v, bias));
    }
  }
}

// One activation block q done for the weight blocks [blk, blk + nb): v += float(acc - corr) *
// (a_scale * b_scale), as the reference adds blocks (the first one a product, then one fused
// multiply-add each). corr is the block's weight row sums times 128 (the a + 128 shift to take
// back); corrections and scales come straight from the weights' lane records (pack_block_lanes).
void add_block(const GemmI8PackedParams& p, size_t q, size_t blocks, size_t m0, size_t mr, size_t blk, size_t nb,
               const __m512i acc[kMr * kNb], __m512 v[kMr * kNb]) {
  __m512i corr[kNb];
  __m512 b_scale[kNb];
  for (size_t c = 0; c < nb; ++c) {
    const BlockLanes& lanes = p.block_lanes[(blk + c) * blocks + q];
    corr[c] = _mm512_loadu_si512(lanes.corrections);
    b_scale[c] = _mm512_loadu_ps(lanes.scales);
  }
  for (size_t i = 0; i < mr; ++i) {
    const __m512 a_scale = _mm512_set1_ps(p.a_scales[(m0 + i) * blocks + q]);
    for (size_t c = 0; c < nb; ++c) {
      const __m512 sum = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[i * kNb + c], corr[c]));
      const __m512 f = _mm512_mul_ps(a_scale, b_scale[c]);
      v[i * kNb + c] = q == 0 ? _mm512_mul_ps(sum, f) : _mm512_fmadd_ps(sum, f, v[i * kNb + c]);
    }
  }
}

// Rows of A per chunk shifted on the stack (whole 8-row tiles when at least one fits).
size_t a_chunk_rows(size_t k4) {
  const size_t rows = kAChunkBytes / k4;
  return rows >= kMr ? rows - rows % kMr : rows;
}

// Calls tile(a, b, row, mr, blk, nb, m0, skip) for every output tile, in the order the weights stay
// in cache: chunks of A's rows shifted to unsigned, 16-row weight blocks kNb at a time, the chunk's
// rows in tiles of 8, then 4, then one (the GEMV loop). a: the tile's first shifted row (m0 in
// the chunk, row in A); b: its first weight block (blk). The last 1-2 weight blocks of N go to the
// full 8- and 4-row tiles too: those tiles start kNb blocks before the end and leave the first
// `skip` blocks unstored (computed twice, bitwise the same; the edge tile is several times slower).
template <class Tile>
void for_each_tile(const GemmI8PackedParams& p, size_t k4, Tile tile) {
  const size_t block_bytes = 16 * k4, blocks = (p.n + 15) / 16;
  alignas(64) uint8_t shifted[kAChunkBytes];
  const size_t chunk_rows = a_chunk_rows(k4);
  for (size_t mc = 0; mc < p.m; mc += chunk_rows) {
    const size_t rows = p.m - mc < chunk_rows ? p.m - mc : chunk_rows;
    shift_rows(p, mc, rows, k4, shifted);
    for (size_t blk = 0; blk < blocks; blk += kNb) {
      const size_t nb = blocks - blk < kNb ? blocks - blk : kNb;
      size_t mr = 0;
      for (size_t m0 = 0; m0 < rows; m0 += mr) {
        const size_t left = rows - m0;
        mr = left >= kMr ? kMr : left >= 4 ? 4 : 1;
        const bool back = nb < kNb && blocks >= kNb && mr > 1;
        const size_t first = back ? blocks - kNb : blk;
        tile(shifted + m0 * k4, p.packed + first * block_bytes, mc + m0, mr, first, back ? kNb : nb, m0,
             back ? kNb - nb : 0);
      }
    }
  }
}

// The activation scales of one chunk of A's rows (for_each_tile) in tile_4x3_blocks' order: rows
// in groups of 4 (group g at g * blocks * 4), each group by block of K, 4 rows per block.
// Transposed once per chunk, not once per tile (every 48 outputs).
class ChunkScales {
 public:
  static constexpr size_t kMaxFloats = kAChunkBytes / 16;  // rows x blocks, blocks of 16 or more

  // The group of 4 rows starting at `row` (a multiple of 4 from the chunk's first row `first`,
  // which has `rows` rows); nullptr when the chunk's scales do not fit.
  const float* group(const GemmI8PackedParams& p, size_t blocks, size_t first, size_t rows, size_t row) {
    if (first != first_ || rows != rows_) fill(p, blocks, first, rows);
    return fits_ ? scales_ + (row - first) * blocks : nullptr;
  }

 private:
  void fill(const GemmI8PackedParams& p, size_t blocks, size_t first, size_t rows) {
    first_ = first;
    rows_ = rows;
    fits_ = (rows + 3) / 4 * 4 * blocks <= kMaxFloats;
    if (!fits_) return;
    for (size_t r = 0; r < rows; ++r)
      for (size_t q = 0; q < blocks; ++q) scales_[(r / 4 * blocks + q) * 4 + r % 4] = p.a_scales[(first + r) * blocks + q];
  }

  alignas(64) float scales_[kMaxFloats];
  size_t first_ = static_cast<size_t>(-1), rows_ = 0;
  bool fits_ = false;
};

// Rows [row, row + mr) of a tile (mr = 4 or 8, 3 weight blocks) over the whole blocks of K in
// tile_4x3_blocks, 4 rows at a time, with their groups of transposed scales; returns the number
// of whole blocks done (0 when there are too many: the caller does them all).
constexpr size_t kMaxRegisterBlocks = 256;

size_t whole_blocks_in_registers(const GemmI8PackedParams& p, size_t k4, const uint8_t* a0, const int8_t* b0,
                                 const float* scales, size_t mr, size_t blk, size_t kblocks,
                                 __m512 v[kMr * kNb]) {
  const size_t whole = k4 / p.a_block;
  if (whole == 0 || whole > kMaxRegisterBlocks || scales == nullptr) return 0;
  for (size_t half = 0; half < mr; half += 4) {
    tile_4x3_blocks(a0 + half * k4, k4, b0, 16 * k4, p.a_block / 4, whole, scales + half * kblocks,
                    p.block_lanes + blk * kblocks, kblocks * sizeof(BlockLanes), v + half * kNb);
  }
  return whole;
}

// Activation blocks (p.a_block, and the weights' lane records): full tiles of 4 or 8 rows keep
// their float sums in registers over the whole blocks of K (whole_blocks_in_registers); the
// others, and a last partial block, run the integer tiles over each block of K in turn and add
// each block's sums through memory (add_block).
void gemm_blocks(const GemmI8PackedParams& p, size_t k4) {
  const size_t block_bytes = 16 * k4, kblocks = gemm_i8_groups(p.k, p.a_block);
  alignas(64) __m512i acc[kMr * kNb];
  alignas(64) __m512 v[kMr * kNb];
  ChunkScales chunk_scales;
  const size_t chunk_rows = a_chunk_rows(k4);
  for_each_tile(p, k4, [&](const uint8_t* a0, const int8_t* b0, size_t row, size_t mr, size_t blk, size_t nb, size_t m0,
                           size_t skip) {
    size_t done = 0;
    if (nb == kNb && mr >= 4) {
      const size_t first = row - m0, rows = p.m - first < chunk_rows ? p.m - first : chunk_rows;
      const float* scales = chunk_scales.group(p, kblocks, first, rows, row);
      done = whole_blocks_in_registers(p, k4, a0, b0, scales, mr, blk, kblocks, v);
    }
    for (size_t q = done; q < kblocks; ++q) {
      const size_t kb = q * p.a_block, end = kb + p.a_block < k4 ? kb + p.a_block : k4, groups = (end - kb) / 4;
      const uint8_t* a = a0 + kb;
      const int8_t* b = b0 + 16 * kb;
      if (mr == 1) gemv_row(a, b, block_bytes, nb, groups, acc);
      else if (nb == kNb && mr == kMr) tile_8x3(a, k4, b, block_bytes, groups, b, acc);
      else if (nb == kNb) tile_4x3(a, k4, b, block_bytes, groups, b, acc);
      else tile_edge(a, k4, mr, b, block_bytes, nb, groups, acc);
      add_block(p, q, kblocks, row, mr, blk, nb, acc, v);
    }
    store_tile(p, row, mr, (blk + skip) * 16, nb - skip, v + skip);
  });
}

#undef HEED_ROW
#undef HEED_ZERO
#undef HEED_LOAD_B
#undef HEED_ROWS_4
#undef HEED_ZERO_12

}  // namespace

void gemm_i8_packed(const GemmI8PackedParams& p) {
  if (p.m == 0 || p.n == 0) return;
  const size_t k4 = (p.k + 3) / 4 * 4;
  if (k4 == 0 || k4 > kAChunkBytes) {  // not even one shifted row fits: the reference's loop
    ref::gemm_i8_packed(p);
    return;
  }
  if (p.a_block != 0) {
    // The a + 128 shift needs the weights' row sums per block of K; without the lane tables the
    // AVX2 kernel, which multiplies signed A directly, does it (every VNNI CPU runs it).
    if (p.block_lanes == nullptr) return avx2::gemm_i8_packed(p);
    return gemm_blocks(p, k4);
  }
  const size_t groups = k4 / 4, block_bytes = 16 * k4, blocks = (p.n + 15) / 16;
  alignas(64) __m512i acc[kMr * kNb];
  for_each_tile(p, k4, [&](const uint8_t* a, const int8_t* b, size_t row, size_t mr, size_t blk, size_t nb,
                           size_t m0, size_t skip) {
    if (mr == 1) {
      gemv_row(a, b, block_bytes, nb, groups, acc);
    } else if (nb == kNb) {
      // The tiles also pull the weight blocks that come next into L2 (8-row tile j: blocks
      // blk + 3 + 2j and + 1; a 4-row tile: the next 3), so the first tile over those blocks
      // finds them in L2 instead of waiting on L3 or memory. Past the last block a tile
      // prefetches its own blocks again instead of addresses outside the weights.
      const size_t ahead = blk + kNb + 2 * (m0 / kMr), span = mr == kMr ? 2 : kNb;
      const int8_t* pf = ahead + span <= blocks ? p.packed + ahead * block_bytes : b;
      if (mr == kMr) tile_8x3(a, k4, b, block_bytes, groups, pf, acc);
      else tile_4x3(a, k4, b, block_bytes, groups, pf, acc);
    } else {
      tile_edge(a, k4, mr, b, block_bytes, nb, groups, acc);
    }
    epilogue(p, row, mr, (blk + skip) * 16, nb - skip, acc + skip);
  });
}

}  // namespace heed::kernels::avx512vnni
