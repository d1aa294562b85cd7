// gemm_i8's micro-kernel for every NEON variant without a packed layout: one row of A against four
// rows of B, 16 bytes per step, the tail zero-padded to 16 bytes. Dot is the variant's arithmetic:
// Dot::dot16(acc, a, b) adds the 16 byte products of a and b into acc's four int32 lanes (SMULL +
// SADALP without SDOT, SDOT with it), Dot::hsum(acc) sums the lanes. Static template: each
// variant's file instantiates its own copy under its own flags (see internal/gemm_epilogue.h).
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace heed::kernels {

namespace {

template <class Dot>
struct GemmI8Dot1x4 {
  void operator()(const int8_t* const a[1], const int8_t* const b[4], size_t len, int32_t out[1][4]) const {
    // Four named accumulators, not an array: each variant keeps the exact code it had before the
    // loop was shared (an array changed the register allocation around the loop).
    int32x4_t acc0 = vdupq_n_s32(0), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    size_t k = 0;
    for (; k + 16 <= len; k += 16) {
      const int8x16_t va = vld1q_s8(a[0] + k);
      acc0 = Dot::dot16(acc0, va, vld1q_s8(b[0] + k));
      acc1 = Dot::dot16(acc1, va, vld1q_s8(b[1] + k));
      acc2 = Dot::dot16(acc2, va, vld1q_s8(b[2] + k));
      acc3 = Dot::dot16(acc3, va, vld1q_s8(b[3] + k));
    }
    if (k < len) {
      int8_t ta[16] = {}, tb[4][16] = {};
      std::memcpy(ta, a[0] + k, len - k);
      for (int j = 0; j < 4; ++j) std::memcpy(tb[j], b[j] + k, len - k);
      const int8x16_t va = vld1q_s8(ta);
      acc0 = Dot::dot16(acc0, va, vld1q_s8(tb[0]));
      acc1 = Dot::dot16(acc1, va, vld1q_s8(tb[1]));
      acc2 = Dot::dot16(acc2, va, vld1q_s8(tb[2]));
      acc3 = Dot::dot16(acc3, va, vld1q_s8(tb[3]));
    }
    out[0][0] = Dot::hsum(acc0);
    out[0][1] = Dot::hsum(acc1);
    out[0][2] = Dot::hsum(acc2);
    out[0][3] = Dot::hsum(acc3);
  }
};

}  // namespace

}  // namespace heed::kernels
