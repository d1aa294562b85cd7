// gemm_i8_packed for baseline aarch64 NEON (no SDOT: Cortex-A53/A72). Each 16-byte quarter of a
// 64-byte unit is 4 weight rows x 4 k, and the same quarter of the next unit holds the same rows'
// next 4 k. With A's 4 bytes of each group replicated over a register (LD2R loads groups g and
// g + 1 of a row into two registers at once):
//   SMULL   p, w(g).8b,  a(g).8b       rows 0-1 x k 0-3        (8 int16 products)
//   SMLAL   p, w(g+1).8b, a(g+1).8b    + rows 0-1 x k 4-7      (each lane: two products)
//   SADALP  acc, p                     pairs of lanes into int32
// and SMULL2/SMLAL2/SADALP for rows 2-3: 32 multiply-adds in 6 instructions. Two products summed
// in int16 are exact because A is in [-127, 127] (the gemm_i8_packed contract: quantize_rows_i8's
// range): |a w| <= 127 * 128, twice that is 32512 < 32767, so a weight of -128 is fine too.
// Each accumulator lane holds half of one row's sum; ADDP joins the halves at the end.
//
// Tiles: 2 rows of A x 16 weight rows, and for M = 1 1 row x 32 weight rows (the driver's tiles
// are 4 blocks wide: 4 of the first, 2 of the second, one after the other); both keep their 16
// accumulators in v16-v31 for the whole K and are written in assembly (arm/neon_asm.h says why).
// Per two groups (8 k): 48 multiply instructions, 4 or 5 loads and the loop's 2, for 256
// multiply-adds (docs/kernels.md). The 1 x 16 edge tile is C++.
#include <arm_neon.h>

#include "arm/gemm_store_neon.h"
#include "arm/neon_asm.h"
#include "internal/gemm_i8_packed_driver.h"

namespace heed::kernels::neon {

namespace {

// One quarter (4 weight rows) of one unit pair, for the A registers of one row (a(g) in AG, a(g+1)
// in AG1): products in v12/v13, paired, then added into the quarter's two accumulators.
#define HEED_QUARTER_PAIR(W, W1, AG, AG1, LO, HI)             \
  "smull  v12.8h, " W ".8b, " AG ".8b\n"                     \
  "smull2 v13.8h, " W ".16b, " AG ".16b\n"                   \
  "smlal  v12.8h, " W1 ".8b, " AG1 ".8b\n"                   \
  "smlal2 v13.8h, " W1 ".16b, " AG1 ".16b\n"                 \
  "sadalp " LO ".4s, v12.8h\n"                               \
  "sadalp " HI ".4s, v13.8h\n"
// The same for a last single group (no partner unit).
#define HEED_QUARTER_ONE(W, AG, LO, HI)                       \
  "smull  v12.8h, " W ".8b, " AG ".8b\n"                     \
  "smull2 v13.8h, " W ".16b, " AG ".16b\n"                   \
  "sadalp " LO ".4s, v12.8h\n"                               \
  "sadalp " HI ".4s, v13.8h\n"
// The 4 quarters of one block (weights in v0-v3, partners v4-v7) into 8 accumulators.
#define HEED_BLOCK_PAIR_(AG, AG1, A0, A1, A2, A3, A4, A5, A6, A7) \
  HEED_QUARTER_PAIR("v0", "v4", AG, AG1, A0, A1)                 \
  HEED_QUARTER_PAIR("v1", "v5", AG, AG1, A2, A3)                 \
  HEED_QUARTER_PAIR("v2", "v6", AG, AG1, A4, A5)                 \
  HEED_QUARTER_PAIR("v3", "v7", AG, AG1, A6, A7)
#define HEED_BLOCK_ONE_(AG, A0, A1, A2, A3, A4, A5, A6, A7) \
  HEED_QUARTER_ONE("v0", AG, A0, A1)                       \
  HEED_QUARTER_ONE("v1", AG, A2, A3)                       \
  HEED_QUARTER_ONE("v2", AG, A4, A5)                       \
  HEED_QUARTER_ONE("v3", AG, A6, A7)
// Expanded before HEED_BLOCK_*_ sees them: the bank names become its 8 accumulator arguments.
#define HEED_BLOCK_PAIR(...) HEED_BLOCK_PAIR_(__VA_ARGS__)
#define HEED_BLOCK_ONE(...) HEED_BLOCK_ONE_(__VA_ARGS__)
#define HEED_ACC_LOW "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23"
#define HEED_ACC_HIGH "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"
// Half sums joined: v16-v23 -> 16 int32 at O0, v24-v31 -> 16 at O1.
#define HEED_STORE_ACCUMULATORS(O0, O1)                                                                   \
  "addp v0.4s, v16.4s, v17.4s\n addp v1.4s, v18.4s, v19.4s\n"                                          \
  "addp v2.4s, v20.4s, v21.4s\n addp v3.4s, v22.4s, v23.4s\n"                                          \
  "addp v4.4s, v24.4s, v25.4s\n addp v5.4s, v26.4s, v27.4s\n"                                          \
  "addp v6.4s, v28.4s, v29.4s\n addp v7.4s, v30.4s, v31.4s\n"                                          \
  "st1 {v0.4s, v1.4s, v2.4s, v3.4s}, [" O0 "]\n"                                                     \
  "st1 {v4.4s, v5.4s, v6.4s, v7.4s}, [" O1 "]\n"
// 2 rows of A (a, a + lda) x one 16-row block: rows' sums to out and out + ldo.
void tile_2x16(const int8_t* a, size_t lda, const int8_t* b, size_t groups, int32_t* out, size_t ldo) {
  const int8_t* a1 = a + lda;
  size_t pairs = groups / 2;
  asm volatile(
      HEED_ASM_ZERO_V16_V31
      "cbz %[pairs], 2f\n"
      "1:\n"
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b]], #64\n"
      "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[b]], #64\n"
      "ld2r {v8.4s, v9.4s}, [%[a0]], #8\n"
      "ld2r {v10.4s, v11.4s}, [%[a1]], #8\n"
      HEED_BLOCK_PAIR("v8", "v9", HEED_ACC_LOW)
      HEED_BLOCK_PAIR("v10", "v11", HEED_ACC_HIGH)
      "subs %[pairs], %[pairs], #1\n"
      "b.ne 1b\n"
      "2:\n"
      "tbz %[groups], #0, 3f\n"
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b]]\n"
      "ld1r {v8.4s}, [%[a0]]\n"
      "ld1r {v10.4s}, [%[a1]]\n"
      HEED_BLOCK_ONE("v8", HEED_ACC_LOW)
      HEED_BLOCK_ONE("v10", HEED_ACC_HIGH)
      "3:\n"
      HEED_STORE_ACCUMULATORS("%[o0]", "%[o1]")
      : [a0] "+r"(a), [a1] "+r"(a1), [b] "+r"(b), [pairs] "+r"(pairs)
      : [groups] "r"(groups), [o0] "r"(out), [o1] "r"(out + ldo)
      : HEED_ASM_CLOBBERS_ALL_V);
}

// 1 row of A x two 16-row blocks (b, b + block_bytes): 32 sums to out (the GEMV tile).
void tile_1x32(const int8_t* a, const int8_t* b, size_t block_bytes, size_t groups, int32_t* out) {
  const int8_t* b1 = b + block_bytes;
  size_t pairs = groups / 2;
  asm volatile(
      HEED_ASM_ZERO_V16_V31
      "cbz %[pairs], 2f\n"
      "1:\n"
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b0]], #64\n"
      "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[b0]], #64\n"
      "ld2r {v8.4s, v9.4s}, [%[a]], #8\n"
      HEED_BLOCK_PAIR("v8", "v9", HEED_ACC_LOW)
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b1]], #64\n"
      "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[b1]], #64\n"
      HEED_BLOCK_PAIR("v8", "v9", HEED_ACC_HIGH)
      "subs %[pairs], %[pairs], #1\n"
      "b.ne 1b\n"
      "2:\n"
      "tbz %[groups], #0, 3f\n"
      "ld1r {v8.4s}, [%[a]]\n"
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b0]]\n"
      HEED_BLOCK_ONE("v8", HEED_ACC_LOW)
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b1]]\n"
      HEED_BLOCK_ONE("v8", HEED_ACC_HIGH)
      "3:\n"
      HEED_STORE_ACCUMULATORS("%[o0]", "%[o1]")
      : [a] "+r"(a), [b0] "+r"(b), [b1] "+r"(b1), [pairs] "+r"(pairs)
      : [groups] "r"(groups), [o0] "r"(out), [o1] "r"(out + 16)
      : HEED_ASM_CLOBBERS_ALL_V);
}

// 1 row of A x one 16-row block (the edges of M and N), the same arithmetic in C++.
void tile_1x16(const int8_t* a, const int8_t* b, size_t groups, int32_t* out) {
  int32x4_t acc[4][2];
  for (auto& q : acc) q[0] = q[1] = vdupq_n_s32(0);
  for (size_t g = 0; g < groups; g += 2, a += 8, b += 128) {
    const bool pair = g + 1 < groups;
    const int8x16_t a0 = vreinterpretq_s8_s32(vld1q_dup_s32(reinterpret_cast<const int32_t*>(a)));
    const int8x16_t a1 = pair ? vreinterpretq_s8_s32(vld1q_dup_s32(reinterpret_cast<const int32_t*>(a + 4)))
                              : vdupq_n_s8(0);
    for (size_t j = 0; j < 4; ++j) {
      const int8x16_t w = vld1q_s8(b + 16 * j), w1 = pair ? vld1q_s8(b + 64 + 16 * j) : vdupq_n_s8(0);
      acc[j][0] = vpadalq_s16(acc[j][0], vmlal_s8(vmull_s8(vget_low_s8(w), vget_low_s8(a0)), vget_low_s8(w1),
                                                  vget_low_s8(a1)));
      acc[j][1] = vpadalq_s16(acc[j][1], vmlal_high_s8(vmull_high_s8(w, a0), w1, a1));
    }
  }
  for (size_t j = 0; j < 4; ++j) vst1q_s32(out + 4 * j, vpaddq_s32(acc[j][0], acc[j][1]));
}

// R rows of A x NB blocks, block by block (4 blocks per driver tile make its per-tile work, the
// epilogue's call included, a quarter of what one block per tile costs); M = 1 runs blocks in
// pairs (the GEMV tile).
template <size_t R, size_t NB>
struct Kernel {
  static_assert(R <= 2, "tiles of 2 rows, the edge of 1");
  static void run(const int8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups,
                  int32_t* out, size_t ldo) {
    size_t c = 0;
    if constexpr (R == 1) {
      for (; c + 2 <= NB; c += 2) tile_1x32(a, b + c * block_bytes, block_bytes, groups, out + 16 * c);
    }
    for (; c < NB; ++c) {
      if constexpr (R == 2) {
        tile_2x16(a, lda, b + c * block_bytes, groups, out + 16 * c, ldo);
      } else {
        tile_1x16(a, b + c * block_bytes, groups, out + 16 * c);
      }
    }
  }
};

}  // namespace

void gemm_i8_packed(const GemmI8PackedParams& p) {
  gemm_i8_packed_blocked<Kernel, 2, 4, 4, false, false, NeonEpilogue>(p);
}

}  // namespace heed::kernels::neon
