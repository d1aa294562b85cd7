// gemm_i8_packed for aarch64 with the dot-product extension. One 64-byte unit of the 16x4 layout
// is 4 q-registers, each 4 weight rows x 4 k, which is exactly what SDOT-by-element wants:
// `sdot acc.4s, w.16b, a.4b[g]` multiplies the 4 rows by the 4 bytes of A in lane g and adds
// into one lane per row. 16 bytes of A hold 4 groups of k, loaded once and used by lane.
// Signed x signed, so exact for every int8 value, -128 included.
//
// Tiles: 4 rows of A x 16 weight rows (16 SDOT per 64-byte unit, one LD1 of 4 registers), run
// over 4 blocks per driver tile, and, for M = 1, 1 row x 4 blocks (64 weight rows) so one A row
// still feeds 16 chains. Both keep their
// 16 accumulators in v16-v31 for the whole K and are written in assembly (arm/neon_asm.h says
// why): per 4 groups (16 k) 64 SDOT, 8 loads (4 x 4 tile) or 17 (GEMV) and the loop's 2. The
// edge tiles (fewer rows of A or blocks) are C++.
#include <arm_neon.h>

#include "arm/gemm_store_neon.h"
#include "arm/neon_asm.h"
#include "internal/gemm_i8_packed_driver.h"

namespace heed::kernels::neondot {

namespace {

// SDOT of one 64-byte unit (weights in W0-W3) by lane L of one A register into 4 accumulators.
#define HEED_DOT_ROW(W0, W1, W2, W3, A, L, C0, C1, C2, C3) \
  "sdot " C0 ".4s, " W0 ".16b, " A ".4b[" L "]\n"          \
  "sdot " C1 ".4s, " W1 ".16b, " A ".4b[" L "]\n"          \
  "sdot " C2 ".4s, " W2 ".16b, " A ".4b[" L "]\n"          \
  "sdot " C3 ".4s, " W3 ".16b, " A ".4b[" L "]\n"
// One unit against the 4 rows of A in v8-v11: accumulators v16-v31, row r in v(16 + 4r)...
#define HEED_DOT_UNIT_4ROWS(W0, W1, W2, W3, L)                          \
  HEED_DOT_ROW(W0, W1, W2, W3, "v8", L, "v16", "v17", "v18", "v19")  \
  HEED_DOT_ROW(W0, W1, W2, W3, "v9", L, "v20", "v21", "v22", "v23")  \
  HEED_DOT_ROW(W0, W1, W2, W3, "v10", L, "v24", "v25", "v26", "v27") \
  HEED_DOT_ROW(W0, W1, W2, W3, "v11", L, "v28", "v29", "v30", "v31")
#define HEED_UNIT_A "v0", "v1", "v2", "v3"
#define HEED_UNIT_B "v4", "v5", "v6", "v7"
#define HEED_DOT_UNIT(...) HEED_DOT_UNIT_4ROWS(__VA_ARGS__)
// One group G (lane G of v8) of the 4 blocks at b0-b3 into the GEMV's accumulators.
#define HEED_DOT_GROUP_4BLOCKS(L)                                                    \
  "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b0]], #64\n"                          \
  HEED_DOT_ROW("v0", "v1", "v2", "v3", "v8", L, "v16", "v17", "v18", "v19")       \
  "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[b1]], #64\n"                          \
  HEED_DOT_ROW("v4", "v5", "v6", "v7", "v8", L, "v20", "v21", "v22", "v23")       \
  "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b2]], #64\n"                          \
  HEED_DOT_ROW("v0", "v1", "v2", "v3", "v8", L, "v24", "v25", "v26", "v27")       \
  "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[b3]], #64\n"                          \
  HEED_DOT_ROW("v4", "v5", "v6", "v7", "v8", L, "v28", "v29", "v30", "v31")
#define HEED_STORE_V16_V31(O0, O1, O2, O3)              \
  "st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [" O0 "]\n" \
  "st1 {v20.4s, v21.4s, v22.4s, v23.4s}, [" O1 "]\n" \
  "st1 {v24.4s, v25.4s, v26.4s, v27.4s}, [" O2 "]\n" \
  "st1 {v28.4s, v29.4s, v30.4s, v31.4s}, [" O3 "]\n"

// 4 rows of A (lda apart) x one 16-row block: the rows' 16 sums at out + r * ldo.
void tile_4x16(const int8_t* a, size_t lda, const int8_t* b, size_t groups, int32_t* out, size_t ldo) {
  const int8_t *a1 = a + lda, *a2 = a1 + lda, *a3 = a2 + lda;
  size_t quads = groups / 4, rest = groups % 4;
  asm volatile(
      HEED_ASM_ZERO_V16_V31
      "cbz %[quads], 2f\n"
      "1:\n"
      "ldr q8, [%[a0]], #16\n ldr q9, [%[a1]], #16\n ldr q10, [%[a2]], #16\n ldr q11, [%[a3]], #16\n"
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b]], #64\n"
      "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[b]], #64\n"
      HEED_DOT_UNIT(HEED_UNIT_A, "0")
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b]], #64\n"
      HEED_DOT_UNIT(HEED_UNIT_B, "1")
      "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[b]], #64\n"
      HEED_DOT_UNIT(HEED_UNIT_A, "2")
      HEED_DOT_UNIT(HEED_UNIT_B, "3")
      "subs %[quads], %[quads], #1\n"
      "b.ne 1b\n"
      "2:\n"  // 1-3 groups left: A rows are zero-padded to 16 bytes by the driver, the weights are not
      "cbz %[rest], 3f\n"
      "ldr q8, [%[a0]]\n ldr q9, [%[a1]]\n ldr q10, [%[a2]]\n ldr q11, [%[a3]]\n"
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b]], #64\n"
      HEED_DOT_UNIT(HEED_UNIT_A, "0")
      "cmp %[rest], #2\n b.lo 3f\n"
      "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[b]], #64\n"
      HEED_DOT_UNIT(HEED_UNIT_B, "1")
      "cmp %[rest], #3\n b.lo 3f\n"
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[b]]\n"
      HEED_DOT_UNIT(HEED_UNIT_A, "2")
      "3:\n"
      HEED_STORE_V16_V31("%[o0]", "%[o1]", "%[o2]", "%[o3]")
      : [a0] "+r"(a), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [b] "+r"(b), [quads] "+r"(quads)
      : [rest] "r"(rest), [o0] "r"(out), [o1] "r"(out + ldo), [o2] "r"(out + 2 * ldo), [o3] "r"(out + 3 * ldo)
      : HEED_ASM_CLOBBERS_ALL_V);
}

// 1 row of A x 4 blocks (block_bytes apart): 64 sums at out (the GEMV tile).
void tile_1x64(const int8_t* a, const int8_t* b, size_t block_bytes, size_t groups, int32_t* out) {
  const int8_t *b1 = b + block_bytes, *b2 = b1 + block_bytes, *b3 = b2 + block_bytes;
  size_t quads = groups / 4, rest = groups % 4;
  asm volatile(
      HEED_ASM_ZERO_V16_V31
      "cbz %[quads], 2f\n"
      "1:\n"
      "ldr q8, [%[a]], #16\n"
      HEED_DOT_GROUP_4BLOCKS("0")
      HEED_DOT_GROUP_4BLOCKS("1")
      HEED_DOT_GROUP_4BLOCKS("2")
      HEED_DOT_GROUP_4BLOCKS("3")
      "subs %[quads], %[quads], #1\n"
      "b.ne 1b\n"
      "2:\n"
      "cbz %[rest], 3f\n"
      "ldr q8, [%[a]]\n"
      HEED_DOT_GROUP_4BLOCKS("0")
      "cmp %[rest], #2\n b.lo 3f\n"
      HEED_DOT_GROUP_4BLOCKS("1")
      "cmp %[rest], #3\n b.lo 3f\n"
      HEED_DOT_GROUP_4BLOCKS("2")
      "3:\n"
      HEED_STORE_V16_V31("%[o0]", "%[o1]", "%[o2]", "%[o3]")
      : [a] "+r"(a), [b0] "+r"(b), [b1] "+r"(b1), [b2] "+r"(b2), [b3] "+r"(b3), [quads] "+r"(quads)
      : [rest] "r"(rest), [o0] "r"(out), [o1] "r"(out + 16), [o2] "r"(out + 32), [o3] "r"(out + 48)
      : HEED_ASM_CLOBBERS_ALL_V);
}

// The edge tiles (1-3 rows of A x one block) in C++.
template <size_t R>
struct EdgeTile {
  // One group of 4 k (lane G of the A registers) into every accumulator of the tile.
  template <int G>
  static inline void step(int32x4_t (&acc)[R][4], const int8x16_t (&va)[R], const int8_t* b) {
    const int8x16x4_t w = vld1q_s8_x4(b + G * 64);  // one LD1 of 4 registers
    for (size_t r = 0; r < R; ++r)
      for (size_t j = 0; j < 4; ++j) acc[r][j] = vdotq_laneq_s32(acc[r][j], w.val[j], va[r], G);
  }

  static void run(const int8_t* a, size_t lda, const int8_t* b, size_t groups, int32_t* out, size_t ldo) {
    int32x4_t acc[R][4];
    for (size_t r = 0; r < R; ++r)
      for (size_t j = 0; j < 4; ++j) acc[r][j] = vdupq_n_s32(0);
    int8x16_t va[R];
    size_t g = 0;
    for (; g + 4 <= groups; g += 4) {
      for (size_t r = 0; r < R; ++r) va[r] = vld1q_s8(a + r * lda + 4 * g);
      step<0>(acc, va, b + g * 64);
      step<1>(acc, va, b + g * 64);
      step<2>(acc, va, b + g * 64);
      step<3>(acc, va, b + g * 64);
    }
    if (g < groups) {  // 1 to 3 groups left; rows of A hold K rounded up to 16 (the driver)
      for (size_t r = 0; r < R; ++r) va[r] = vld1q_s8(a + r * lda + 4 * g);
      step<0>(acc, va, b + g * 64);
      if (g + 1 < groups) step<1>(acc, va, b + g * 64);
      if (g + 2 < groups) step<2>(acc, va, b + g * 64);
    }
    for (size_t r = 0; r < R; ++r)
      for (size_t j = 0; j < 4; ++j) vst1q_s32(out + r * ldo + 4 * j, acc[r][j]);
  }
};

// R rows of A x NB blocks, block by block (a tile of 4 blocks makes the driver's per-tile work,
// the epilogue's call included, a quarter of what one block per tile costs); M = 1 with 4
// blocks is the GEMV tile.
template <size_t R, size_t NB>
struct Kernel {
  static void run(const int8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups,
                  int32_t* out, size_t ldo) {
    if constexpr (R == 1 && NB == 4) {
      tile_1x64(a, b, block_bytes, groups, out);
      return;
    }
    for (size_t c = 0; c < NB; ++c) {
      if constexpr (R == 4) {
        tile_4x16(a, lda, b + c * block_bytes, groups, out + 16 * c, ldo);
      } else {
        EdgeTile<R>::run(a, lda, b + c * block_bytes, groups, out + 16 * c, ldo);
      }
    }
  }
};

}  // namespace

void gemm_i8_packed(const GemmI8PackedParams& p) {
  gemm_i8_packed_blocked<Kernel, 4, 4, 4, false, false, NeonEpilogue>(p);
}

}  // namespace heed::kernels::neondot
