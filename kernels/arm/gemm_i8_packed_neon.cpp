// gemm_i8_packed for baseline aarch64 NEON (no SDOT: Cortex-A53/A72). Each 16-byte quarter of a
// 64-byte unit is 4 weight rows x 4 k; the 4 bytes of A for that group are replicated over a
// register (LD1R), SMULL/SMULL2 form the exact int16 products of rows (0, 1) and (2, 3), and
// SADALP adds neighbouring products into int32 lanes. As in the row-major neon kernel each
// product reaches SADALP on its own (never two summed in int16), so even -128 * -128 is exact.
// Each accumulator lane holds half of one row's sum; ADDP joins the halves at the end.
//
// Tile: 2 rows of A x 16 weight rows (16 accumulators); M = 1 takes 2 blocks (32 weight rows).
#include <arm_neon.h>

#include "internal/gemm_i8_packed_driver.h"

namespace heed::kernels::neon {

namespace {

template <size_t R, size_t NB>
struct Kernel {
  static void run(const int8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups,
                  int32_t* out, size_t ldo) {
    // acc[r][c][j][h]: rows 4j + 2h, 4j + 2h + 1 of block c, two lanes each.
    int32x4_t acc[R][NB][4][2];
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < NB; ++c)
        for (size_t j = 0; j < 4; ++j) acc[r][c][j][0] = acc[r][c][j][1] = vdupq_n_s32(0);
    for (size_t g = 0; g < groups; ++g) {
      int8x16_t va[R];
      for (size_t r = 0; r < R; ++r)
        va[r] = vreinterpretq_s8_s32(vld1q_dup_s32(reinterpret_cast<const int32_t*>(a + r * lda + 4 * g)));
      for (size_t c = 0; c < NB; ++c)
        for (size_t j = 0; j < 4; ++j) {
          const int8x16_t w = vld1q_s8(b + c * block_bytes + g * 64 + 16 * j);
          for (size_t r = 0; r < R; ++r) {
            acc[r][c][j][0] = vpadalq_s16(acc[r][c][j][0], vmull_s8(vget_low_s8(w), vget_low_s8(va[r])));
            acc[r][c][j][1] = vpadalq_s16(acc[r][c][j][1], vmull_high_s8(w, va[r]));
          }
        }
    }
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < NB; ++c)
        for (size_t j = 0; j < 4; ++j)
          vst1q_s32(out + r * ldo + 16 * c + 4 * j, vpaddq_s32(acc[r][c][j][0], acc[r][c][j][1]));
  }
};

}  // namespace

void gemm_i8_packed(const GemmI8PackedParams& p) { gemm_i8_packed_blocked<Kernel, 2, 1, 2>(p); }

}  // namespace heed::kernels::neon
