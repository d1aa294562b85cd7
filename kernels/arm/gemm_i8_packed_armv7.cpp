// gemm_i8_packed for 32-bit ARM NEON. Each 8-byte half of a 16-byte quarter of a 64-byte unit is
// 2 weight rows x 4 k, and the same half of the next unit holds the same rows' next 4 k. With the
// 4 bytes of A of each group replicated over a d-register (VLD1.32 {d[]}), VMULL.S8 forms 8 int16
// products of group g, VMLAL.S8 adds group g + 1's into the same lanes (same row, next k) and
// VPADAL.S16 adds neighbouring lanes into int32: 16 multiply-adds in 3 instructions. Two products
// summed in int16 are exact because A is in [-127, 127] (the gemm_i8_packed contract, as the
// neon kernel explains); each accumulator lane holds half of one row's sum; VPADD joins the halves
// at the end. The epilogue is the NEON vector one (arm/gemm_store_neon.h).
//
// Tile: 1 row of A x 16 weight rows (8 q accumulators of the 16 q-registers, 2 for the weights).
#include <arm_neon.h>

#include "arm/gemm_store_neon.h"
#include "internal/gemm_i8_packed_driver.h"

namespace heed::kernels::armv7 {

namespace {

// acc += pairs of (w * a + w1 * a1), lane by lane in int16 (exact for A in [-127, 127]).
inline int32x4_t mac2(int32x4_t acc, int8x8_t w, int8x8_t a, int8x8_t w1, int8x8_t a1) {
  return vpadalq_s16(acc, vmlal_s8(vmull_s8(w, a), w1, a1));
}

// Joins the two half sums of rows (0, 1) in lo and (2, 3) in hi.
inline int32x4_t join(int32x4_t lo, int32x4_t hi) {
  return vcombine_s32(vpadd_s32(vget_low_s32(lo), vget_high_s32(lo)),
                      vpadd_s32(vget_low_s32(hi), vget_high_s32(hi)));
}

// The 8 accumulators, two per quarter. Named members, not an array: GCC keeps an array of
// q-registers on the stack here (a load and store of every accumulator per group), 16
// q-registers being too few for it to scalarize the array.
struct Acc8 {
  int32x4_t r01, r23, r45, r67, r89, rab, rcd, ref;
};

// Groups g and g + 1 (kPair) or g alone (the last of an odd count): a holds A's k of group g,
// b the 64-byte unit of group g. The weights are read through two pointers stepped by 16 (VLD1
// with write-back: no address arithmetic per load).
template <bool kPair>
inline void step(Acc8& s, const int8_t* a, const int8_t* b) {
  const int8x8_t va = vreinterpret_s8_s32(vld1_dup_s32(reinterpret_cast<const int32_t*>(a)));
  const int8x8_t vb = kPair ? vreinterpret_s8_s32(vld1_dup_s32(reinterpret_cast<const int32_t*>(a + 4))) : vdup_n_s8(0);
  const int8_t* b1 = b + 64;
  const auto quarter = [&](int32x4_t* lo, int32x4_t* hi) {
    const int8x16_t w = vld1q_s8(b);
    const int8x16_t w1 = kPair ? vld1q_s8(b1) : vdupq_n_s8(0);
    b += 16;
    b1 += 16;
    *lo = mac2(*lo, vget_low_s8(w), va, vget_low_s8(w1), vb);
    *hi = mac2(*hi, vget_high_s8(w), va, vget_high_s8(w1), vb);
  };
  quarter(&s.r01, &s.r23);
  quarter(&s.r45, &s.r67);
  quarter(&s.r89, &s.rab);
  quarter(&s.rcd, &s.ref);
}

// One row of A x one 16-row block.
template <size_t R, size_t NB>
struct Kernel {
  static_assert(R == 1 && NB == 1, "the armv7 tile is 1 x 16");
  static void run(const int8_t* a, size_t, const int8_t* b, size_t, size_t groups, int32_t* out,
                  size_t) {
    const int32x4_t zero = vdupq_n_s32(0);
    Acc8 s{zero, zero, zero, zero, zero, zero, zero, zero};
    size_t g = 0;
    for (; g + 2 <= groups; g += 2) step<true>(s, a + 4 * g, b + 64 * g);
    if (g < groups) step<false>(s, a + 4 * g, b + 64 * g);
    vst1q_s32(out, join(s.r01, s.r23));
    vst1q_s32(out + 4, join(s.r45, s.r67));
    vst1q_s32(out + 8, join(s.r89, s.rab));
    vst1q_s32(out + 12, join(s.rcd, s.ref));
  }
};

}  // namespace

void gemm_i8_packed(const GemmI8PackedParams& p) {
  gemm_i8_packed_blocked<Kernel, 1, 1, 1, false, false, NeonEpilogue>(p);
}

}  // namespace heed::kernels::armv7
