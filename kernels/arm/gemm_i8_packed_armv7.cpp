// gemm_i8_packed for 32-bit ARM NEON. Each 8-byte half of a 16-byte quarter of a 64-byte unit is
// 2 weight rows x 4 k; the 4 bytes of A for that group are replicated over a d-register
// (VLD1.32 {d[]}), VMULL.S8 forms the 8 exact int16 products and VPADAL.S16 adds neighbouring
// products into int32 lanes: each product on its own, so even -128 * -128 is exact. Each
// accumulator lane holds half of one row's sum; VPADD joins the halves at the end.
//
// Tile: 1 row of A x 16 weight rows (8 q accumulators of the 16 q-registers).
#include <arm_neon.h>

#include "internal/gemm_i8_packed_driver.h"

namespace heed::kernels::armv7 {

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
      int8x8_t va[R];
      for (size_t r = 0; r < R; ++r)
        va[r] = vreinterpret_s8_s32(vld1_dup_s32(reinterpret_cast<const int32_t*>(a + r * lda + 4 * g)));
      for (size_t c = 0; c < NB; ++c)
        for (size_t j = 0; j < 4; ++j) {
          const int8x16_t w = vld1q_s8(b + c * block_bytes + g * 64 + 16 * j);
          for (size_t r = 0; r < R; ++r) {
            acc[r][c][j][0] = vpadalq_s16(acc[r][c][j][0], vmull_s8(vget_low_s8(w), va[r]));
            acc[r][c][j][1] = vpadalq_s16(acc[r][c][j][1], vmull_s8(vget_high_s8(w), va[r]));
          }
        }
    }
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < NB; ++c)
        for (size_t j = 0; j < 4; ++j) {
          const int32x4_t lo = acc[r][c][j][0], hi = acc[r][c][j][1];
          vst1q_s32(out + r * ldo + 16 * c + 4 * j,
                    vcombine_s32(vpadd_s32(vget_low_s32(lo), vget_high_s32(lo)),
                                 vpadd_s32(vget_low_s32(hi), vget_high_s32(hi))));
        }
  }
};

}  // namespace

void gemm_i8_packed(const GemmI8PackedParams& p) { gemm_i8_packed_blocked<Kernel, 1, 1, 1>(p); }

}  // namespace heed::kernels::armv7
