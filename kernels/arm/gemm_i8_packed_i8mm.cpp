// gemm_i8_packed for aarch64 with the int8 matrix-multiply extension (Armv8.6: Cortex-A510/A710/
// X2 and later), over the same 16x4 packed layout the dotprod kernel reads.
//
// SMMLA acc.4s, a.16b, b.16b adds the 2x2 int32 block [a0.b0, a0.b1, a1.b0, a1.b1], where a and
// b each hold two rows of 8 int8 (a0 = bytes 0-7, a1 = bytes 8-15): 32 MACs, twice SDOT's 16.
// The 16x4 layout gives each 16 bytes of a 64-byte unit as 4 weight rows x 4 k; the same 16 bytes
// of the next group (unit + 64) are the same 4 rows' next 4 k. ZIP1 on 32-bit lanes of the two
// makes [row 0 k 0-7, row 1 k 0-7], ZIP2 rows 2 and 3: two SMMLA operands per two loads, so the
// layout the converter writes once serves both kernels. A comes from the driver's chunk with
// rows interleaved in pairs (kPairRows), one 16-byte load per operand.
// Signed x signed: exact for every int8 value, -128 included.
//
// Tiles: with 3-4 pairs of A rows (M >= 5) a pass covers 8 weight rows (half a block: 4 operands
// from 4 loads and 4 ZIPs) and there are two passes per block; with 1-2 pairs a pass covers the 16
// rows. Either way 16 accumulators of 2x2 sums. M = 1 goes to the dotprod kernel: SMMLA against
// a zero partner row would waste half of each instruction and still pay the ZIPs.
#include <arm_neon.h>

#include "arm/gemm_store_neon.h"
#include "internal/gemm_i8_packed_driver.h"
#include "internal/variants.h"

namespace heed::kernels::i8mm {

namespace {

template <size_t R, size_t NB>
struct Kernel {
  static constexpr size_t kPairs = (R + 1) / 2;               // an odd R reads the zero partner
  static constexpr size_t kQuarters = kPairs > 2 ? 2 : 4;     // 4-row quarters of a block per pass
  static constexpr size_t kPasses = 4 / kQuarters;
  using Acc = int32x4_t[kPairs][NB][2 * kQuarters];

  // 8 k (groups g and g + 1; with kHalf only g, the last of an odd count) of the pass's weight
  // rows into every accumulator. a: pair 0's 16 bytes for these k; w: the pass's first quarter
  // in group g of block 0.
  template <bool kHalf>
  static inline void step(Acc& acc, const int8_t* a, size_t pair_stride, const int8_t* w,
                          size_t block_bytes) {
    int8x16_t va[kPairs];
    for (size_t i = 0; i < kPairs; ++i) va[i] = vld1q_s8(a + i * pair_stride);
    for (size_t c = 0; c < NB; ++c) {
      for (size_t q = 0; q < kQuarters; ++q) {
        const int8_t* unit = w + c * block_bytes + 16 * q;
        const int32x4_t lo = vreinterpretq_s32_s8(vld1q_s8(unit));
        const int32x4_t hi = kHalf ? vdupq_n_s32(0) : vreinterpretq_s32_s8(vld1q_s8(unit + 64));
        const int8x16_t b01 = vreinterpretq_s8_s32(vzip1q_s32(lo, hi));  // rows 4q, 4q + 1
        const int8x16_t b23 = vreinterpretq_s8_s32(vzip2q_s32(lo, hi));  // rows 4q + 2, 4q + 3
        for (size_t i = 0; i < kPairs; ++i) {
          acc[i][c][2 * q] = vmmlaq_s32(acc[i][c][2 * q], va[i], b01);
          acc[i][c][2 * q + 1] = vmmlaq_s32(acc[i][c][2 * q + 1], va[i], b23);
        }
      }
    }
  }

  static void run(const int8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups,
                  int32_t* out, size_t ldo) {
    const size_t pair_stride = 2 * lda;  // the driver's pair-interleaved chunk
    for (size_t pass = 0; pass < kPasses; ++pass) {
      const int8_t* w = b + 16 * kQuarters * pass;
      Acc acc;
      for (size_t i = 0; i < kPairs; ++i)
        for (size_t c = 0; c < NB; ++c)
          for (size_t j = 0; j < 2 * kQuarters; ++j) acc[i][c][j] = vdupq_n_s32(0);
      // 8 k are 16 bytes of each pair of A rows and two 64-byte groups of weights.
      const int8_t* ap = a;
      const int8_t* wp = w;
      for (size_t s = groups / 2; s > 0; --s, ap += 16, wp += 128)
        step<false>(acc, ap, pair_stride, wp, block_bytes);
      if (groups % 2 != 0) step<true>(acc, ap, pair_stride, wp, block_bytes);
      // acc[i][c][2q] = [r0.w0, r0.w1, r1.w0, r1.w1] (r = rows 2i, 2i + 1; w = weight rows 4q,
      // 4q + 1), acc[i][c][2q + 1] the same for 4q + 2, 4q + 3: ZIP1 / ZIP2 on 64-bit lanes give
      // the 4 sums of row 2i and of row 2i + 1.
      for (size_t i = 0; i < kPairs; ++i)
        for (size_t c = 0; c < NB; ++c)
          for (size_t q = 0; q < kQuarters; ++q) {
            const int64x2_t s01 = vreinterpretq_s64_s32(acc[i][c][2 * q]);
            const int64x2_t s23 = vreinterpretq_s64_s32(acc[i][c][2 * q + 1]);
            int32_t* o = out + 2 * i * ldo + 16 * c + 4 * (kQuarters * pass + q);
            vst1q_s32(o, vreinterpretq_s32_s64(vzip1q_s64(s01, s23)));
            if (2 * i + 1 < R) vst1q_s32(o + ldo, vreinterpretq_s32_s64(vzip2q_s64(s01, s23)));
          }
    }
  }
};

// The driver's tiles are 4 blocks wide (its per-tile work and the epilogue's call paid once per
// 64 columns); the SMMLA tile runs them block by block.
template <size_t R, size_t NB>
struct BlockByBlock {
  static void run(const int8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups,
                  int32_t* out, size_t ldo) {
    for (size_t c = 0; c < NB; ++c)
      Kernel<R, 1>::run(a, lda, b + c * block_bytes, block_bytes, groups, out + 16 * c, ldo);
  }
};

}  // namespace

void gemm_i8_packed(const GemmI8PackedParams& p) {
  // M = 1 (the decoder's GEMV) and rows too long for two in the driver's chunk: the dotprod kernel.
  const size_t k16 = (p.k + 15) / 16 * 16;
  if (p.m == 1 || 2 * k16 > kPackedAChunkBytes) {
    neondot::gemm_i8_packed(p);
    return;
  }
  gemm_i8_packed_blocked<BlockByBlock, 8, 4, 1, false, true, NeonEpilogue>(p);
}

}  // namespace heed::kernels::i8mm
