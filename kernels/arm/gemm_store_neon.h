// The int8 packed GEMM's vector epilogue on ARM (the neon, neondot, i8mm and armv7 variants): 4
// outputs at a time in NEON registers, the reference's gemm_store operations in its order
// (float(sum) * (a_scale * b_scale), + bias, activation, + C when accumulating), so every variant
// stores the floats the reference stores. The activation is a template argument: no call and no
// branch per value. ReLU is computed as the reference writes it (x > 0 ? x : 0, so NaN gives 0);
// GELU, GELU-tanh and SiLU, which the runtime applies after the GEMM through the activate slot
// (layers/linear.cpp) and never asks of the GEMM, go lane by lane through the reference's function.
// Everything is static for the reason internal/gemm_epilogue.h gives.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "internal/gemm_i8_packed_driver.h"

namespace heed::kernels {

enum class NeonActivation { kNone, kRelu, kLaneByLane };

// The dequantized product as a value the compiler must round before the bias is added: without
// this it may fuse the multiply and the add into one FMLA (-ffp-contract=fast), which the
// reference does not do, and the bits would differ. Emits no instruction.
static inline float32x4_t neon_rounded(float32x4_t v) {
  asm("" : "+w"(v));
  return v;
}
static inline float neon_rounded(float v) {
#if defined(__aarch64__)
  asm("" : "+w"(v));
#else
  asm("" : "+t"(v));  // a single-precision VFP register
#endif
  return v;
}

// bias (kBias), then the activation, then + C (kAccumulate): gemm_store's steps on 4 values.
template <NeonActivation kAct, bool kBias, bool kAccumulate>
static inline float32x4_t neon_finish4(float32x4_t v, float32x4_t bias, const float* dst, Activation act) {
  if constexpr (kBias) v = vaddq_f32(v, bias);
  if constexpr (kAct == NeonActivation::kRelu) {
    v = vreinterpretq_f32_u32(vandq_u32(vcgtq_f32(v, vdupq_n_f32(0.0f)), vreinterpretq_u32_f32(v)));
  } else if constexpr (kAct == NeonActivation::kLaneByLane) {
    float lanes[4];
    vst1q_f32(lanes, v);
    for (float& x : lanes) x = ref::activation(x, act);
    v = vld1q_f32(lanes);
  }
  if constexpr (kAccumulate) v = vaddq_f32(vld1q_f32(dst), v);
  return v;
}

// One row of C: dst[j] for j < cols, from int32 sums (kSums: times a_scale * b_scales[j]) or from
// floats already dequantized. bias and b_scales start at the row's first column.
template <NeonActivation kAct, bool kBias, bool kAccumulate, bool kSums>
static inline void neon_store_row(const void* src, float a_scale, const float* b_scales, const float* bias,
                                  Activation act, float* dst, size_t cols) {
  const int32_t* sums = static_cast<const int32_t*>(src);
  const float* values = static_cast<const float*>(src);
  size_t j = 0;
  for (; j + 4 <= cols; j += 4) {
    float32x4_t v;
    if constexpr (kSums) {
      v = neon_rounded(vmulq_f32(vcvtq_f32_s32(vld1q_s32(sums + j)), vmulq_n_f32(vld1q_f32(b_scales + j), a_scale)));
    } else {
      v = vld1q_f32(values + j);
    }
    const float32x4_t b = kBias ? vld1q_f32(bias + j) : vdupq_n_f32(0.0f);
    vst1q_f32(dst + j, neon_finish4<kAct, kBias, kAccumulate>(v, b, dst + j, act));
  }
  for (; j < cols; ++j) {  // the last 1-3 columns of N
    const float v = kSums ? neon_rounded(gemm_i8_dequant_row(sums[j], a_scale, b_scales[j])) : values[j];
    gemm_store(v, bias, act, kAccumulate, dst + j, j);
  }
}

// A tile's int32 sums over whole 16-column groups (the common case: N a multiple of 16): each
// group's weight scales and bias are loaded once for all mr rows, and a row's 16 outputs take no
// loop: 4 conversions, 8 multiplies, 4 adds and the loads and stores.
template <NeonActivation kAct, bool kBias, bool kAccumulate>
static inline void neon_store_sums_x16(const GemmI8PackedParams& p, const int32_t* sums, size_t ld, size_t row,
                                       size_t mr, size_t n0, size_t cols) {
  const float* a_scales = p.a_scales + row;  // locals: the stores to C do not make them reloaded
  float* out = p.c + row * p.ldc + n0;
  const size_t ldc = p.ldc;
  const Activation act = p.activation;
  for (size_t c = 0; c < cols; c += 16) {
    float32x4_t bs[4], bias[4];
    for (size_t q = 0; q < 4; ++q) {
      bs[q] = vld1q_f32(p.b_scales + n0 + c + 4 * q);
      bias[q] = kBias ? vld1q_f32(p.bias + n0 + c + 4 * q) : vdupq_n_f32(0.0f);
    }
    for (size_t i = 0; i < mr; ++i) {
      const float a_scale = a_scales[i];
      const int32_t* s = sums + i * ld + c;
      float* dst = out + i * ldc + c;
      for (size_t q = 0; q < 4; ++q) {
        const float32x4_t v = neon_rounded(vmulq_f32(vcvtq_f32_s32(vld1q_s32(s + 4 * q)), vmulq_n_f32(bs[q], a_scale)));
        vst1q_f32(dst + 4 * q, neon_finish4<kAct, kBias, kAccumulate>(v, bias[q], dst + 4 * q, act));
      }
    }
  }
}

// Rows [row, row + mr) of C's columns [n0, n0 + cols) from src rows ld elements apart.
template <NeonActivation kAct, bool kBias, bool kAccumulate, bool kSums>
static inline void neon_store_rows(const GemmI8PackedParams& p, const void* src, size_t ld, size_t row, size_t mr,
                                   size_t n0, size_t cols) {
  if (kSums && cols % 16 == 0) {
    neon_store_sums_x16<kAct, kBias, kAccumulate>(p, static_cast<const int32_t*>(src), ld, row, mr, n0, cols);
    return;
  }
  const size_t elem = kSums ? sizeof(int32_t) : sizeof(float);
  const float* bias = kBias ? p.bias + n0 : nullptr;
  for (size_t i = 0; i < mr; ++i) {
    const float a_scale = kSums ? p.a_scales[row + i] : 0.0f;
    neon_store_row<kAct, kBias, kAccumulate, kSums>(static_cast<const char*>(src) + i * ld * elem, a_scale,
                                                    p.b_scales + n0, bias, p.activation,
                                                    p.c + (row + i) * p.ldc + n0, cols);
  }
}

// The call's activation, bias and accumulate flags turned into template arguments, once per tile.
template <bool kSums>
static inline void neon_store_tile(const GemmI8PackedParams& p, const void* src, size_t ld, size_t row, size_t mr,
                                   size_t n0, size_t cols) {
  using Store = void (*)(const GemmI8PackedParams&, const void*, size_t, size_t, size_t, size_t, size_t);
  static constexpr Store kStores[3][2][2] = {
      {{neon_store_rows<NeonActivation::kNone, false, false, kSums>, neon_store_rows<NeonActivation::kNone, false, true, kSums>},
       {neon_store_rows<NeonActivation::kNone, true, false, kSums>, neon_store_rows<NeonActivation::kNone, true, true, kSums>}},
      {{neon_store_rows<NeonActivation::kRelu, false, false, kSums>, neon_store_rows<NeonActivation::kRelu, false, true, kSums>},
       {neon_store_rows<NeonActivation::kRelu, true, false, kSums>, neon_store_rows<NeonActivation::kRelu, true, true, kSums>}},
      {{neon_store_rows<NeonActivation::kLaneByLane, false, false, kSums>,
        neon_store_rows<NeonActivation::kLaneByLane, false, true, kSums>},
       {neon_store_rows<NeonActivation::kLaneByLane, true, false, kSums>,
        neon_store_rows<NeonActivation::kLaneByLane, true, true, kSums>}}};
  const size_t a = p.activation == Activation::kNone ? 0 : p.activation == Activation::kRelu ? 1 : 2;
  kStores[a][p.bias != nullptr][p.accumulate](p, src, ld, row, mr, n0, cols);
}

// The driver's epilogue policy (gemm_i8_packed_blocked's Epilogue argument).
struct NeonEpilogue {
  static void store_sums(const GemmI8PackedParams& p, const int32_t* sums, size_t ld, size_t row, size_t mr,
                         size_t n0, size_t cols) {
    neon_store_tile<true>(p, sums, ld, row, mr, n0, cols);
  }
  static void store_floats(const GemmI8PackedParams& p, const float* acc, size_t ld, size_t row, size_t mr,
                           size_t n0, size_t cols) {
    neon_store_tile<false>(p, acc, ld, row, mr, n0, cols);
  }
};

}  // namespace heed::kernels
