// gemm_i8_packed for 32-bit ARM NEON. Each 8-byte half of a 16-byte quarter of a 64-byte unit is
// 2 weight rows x 4 k; the 4 bytes of A for that group are replicated over a d-register
// (VLD1.32 {d[]}), VMULL.S8 forms the 8 exact int16 products and VPADAL.S16 adds neighbouring
// products into int32 lanes: each product on its own, so even -128 * -128 is exact. Each
// accumulator lane holds half of one row's sum; VPADD joins the halves at the end.
//
// Tile: 1 row of A x 16 weight rows (8 q accumulators of the 16 q-registers, 4 for the weights).
#include <arm_neon.h>

#include "internal/gemm_i8_packed_driver.h"

namespace heed::kernels::armv7 {

namespace {

inline int32x4_t mac(int32x4_t acc, int8x8_t w, int8x8_t a) { return vpadalq_s16(acc, vmull_s8(w, a)); }

// Joins the two half sums of rows (0, 1) in lo and (2, 3) in hi.
inline int32x4_t join(int32x4_t lo, int32x4_t hi) {
  return vcombine_s32(vpadd_s32(vget_low_s32(lo), vget_high_s32(lo)),
                      vpadd_s32(vget_low_s32(hi), vget_high_s32(hi)));
}

// One row of A x one 16-row block. The 8 accumulators are named variables, not an array: GCC
// keeps an array of q-registers on the stack here (a load and store of every accumulator per
// group), 16 q-registers being too few for it to scalarize the array.
template <size_t R, size_t NB>
struct Kernel {
  static_assert(R == 1 && NB == 1, "the armv7 tile is 1 x 16");
  static void run(const int8_t* a, size_t, const int8_t* b, size_t, size_t groups, int32_t* out,
                  size_t) {
    int32x4_t r01 = vdupq_n_s32(0), r23 = r01, r45 = r01, r67 = r01;
    int32x4_t r89 = r01, rab = r01, rcd = r01, ref = r01;
    for (size_t g = 0; g < groups; ++g, b += 64) {
      const int8x8_t va = vreinterpret_s8_s32(vld1_dup_s32(reinterpret_cast<const int32_t*>(a + 4 * g)));
      const int8x16_t w0 = vld1q_s8(b), w1 = vld1q_s8(b + 16), w2 = vld1q_s8(b + 32), w3 = vld1q_s8(b + 48);
      r01 = mac(r01, vget_low_s8(w0), va);
      r23 = mac(r23, vget_high_s8(w0), va);
      r45 = mac(r45, vget_low_s8(w1), va);
      r67 = mac(r67, vget_high_s8(w1), va);
      r89 = mac(r89, vget_low_s8(w2), va);
      rab = mac(rab, vget_high_s8(w2), va);
      rcd = mac(rcd, vget_low_s8(w3), va);
      ref = mac(ref, vget_high_s8(w3), va);
    }
    vst1q_s32(out, join(r01, r23));
    vst1q_s32(out + 4, join(r45, r67));
    vst1q_s32(out + 8, join(r89, rab));
    vst1q_s32(out + 12, join(rcd, ref));
  }
};

}  // namespace

void gemm_i8_packed(const GemmI8PackedParams& p) { gemm_i8_packed_blocked<Kernel, 1, 1, 1>(p); }

}  // namespace heed::kernels::armv7
