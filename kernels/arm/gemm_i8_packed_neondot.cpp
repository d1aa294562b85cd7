// gemm_i8_packed for aarch64 with the dot-product extension. One 64-byte unit of the 16x4 layout
// is 4 q-registers, each 4 weight rows x 4 k, which is exactly what SDOT-by-element wants:
// `sdot acc.4s, w.16b, a.4b[g]` multiplies the 4 rows by the 4 bytes of A in lane g and adds
// into one lane per row. 16 bytes of A hold 4 groups of k, loaded once and used by lane.
// Signed x signed, so exact for every int8 value, -128 included.
//
// Tile: 4 rows of A x 16 weight rows (16 accumulators, 4 weight + 4 A registers: 16 SDOT per
// 4 weight loads); M = 1 takes 4 blocks (64 weight rows) so one A row still feeds 16 chains.
#include <arm_neon.h>

#include "internal/gemm_i8_packed_driver.h"

namespace heed::kernels::neondot {

namespace {

template <size_t R, size_t NB>
struct Kernel {
  // One group of 4 k (lane G of the A registers) into every accumulator of the tile.
  template <int G>
  static inline void step(int32x4_t (&acc)[R][NB][4], const int8x16_t (&va)[R], const int8_t* b,
                          size_t block_bytes) {
    for (size_t c = 0; c < NB; ++c) {
      const int8_t* unit = b + c * block_bytes + G * 64;
      const int8x16_t w0 = vld1q_s8(unit), w1 = vld1q_s8(unit + 16);
      const int8x16_t w2 = vld1q_s8(unit + 32), w3 = vld1q_s8(unit + 48);
      for (size_t r = 0; r < R; ++r) {
        acc[r][c][0] = vdotq_laneq_s32(acc[r][c][0], w0, va[r], G);
        acc[r][c][1] = vdotq_laneq_s32(acc[r][c][1], w1, va[r], G);
        acc[r][c][2] = vdotq_laneq_s32(acc[r][c][2], w2, va[r], G);
        acc[r][c][3] = vdotq_laneq_s32(acc[r][c][3], w3, va[r], G);
      }
    }
  }

  static void run(const int8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups,
                  int32_t* out, size_t ldo) {
    int32x4_t acc[R][NB][4];
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < NB; ++c)
        for (size_t j = 0; j < 4; ++j) acc[r][c][j] = vdupq_n_s32(0);
    int8x16_t va[R];
    size_t g = 0;
    for (; g + 4 <= groups; g += 4) {
      for (size_t r = 0; r < R; ++r) va[r] = vld1q_s8(a + r * lda + 4 * g);
      step<0>(acc, va, b + g * 64, block_bytes);
      step<1>(acc, va, b + g * 64, block_bytes);
      step<2>(acc, va, b + g * 64, block_bytes);
      step<3>(acc, va, b + g * 64, block_bytes);
    }
    if (g < groups) {  // 1 to 3 groups left; A rows are zero-padded to 16 bytes by the driver
      for (size_t r = 0; r < R; ++r) va[r] = vld1q_s8(a + r * lda + 4 * g);
      step<0>(acc, va, b + g * 64, block_bytes);
      if (g + 1 < groups) step<1>(acc, va, b + g * 64, block_bytes);
      if (g + 2 < groups) step<2>(acc, va, b + g * 64, block_bytes);
    }
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < NB; ++c)
        for (size_t j = 0; j < 4; ++j) vst1q_s32(out + r * ldo + 16 * c + 4 * j, acc[r][c][j]);
  }
};

}  // namespace

void gemm_i8_packed(const GemmI8PackedParams& p) { gemm_i8_packed_blocked<Kernel, 4, 1, 4>(p); }

}  // namespace heed::kernels::neondot
