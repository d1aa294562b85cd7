// The GEMM epilogue every variant shares: dequantized (or float) dot product -> + bias ->
// activation -> store or accumulate. Keeping it in one place makes every variant round the same
// way as the reference, so tests can compare them to float rounding.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "heed/kernels.h"
#include "internal/variants.h"

namespace heed::kernels {

// These helpers are `static inline` on purpose: this header is included by files compiled with
// different instruction-set flags, and an ordinary inline function would be emitted once per file
// and merged by the linker, which could hand AVX-512 code to the scalar reference.

// Finishes C[m, n] from its dot product v (already scaled).
static inline void gemm_store(float v, const float* bias, Activation act, bool accumulate, float* c_mn,
                       size_t n) {
  if (bias != nullptr) v += bias[n];
  if (act != Activation::kNone) v = ref::activation(v, act);
  *c_mn = accumulate ? *c_mn + v : v;
}

// Per-row scales: v = float(sum) * (a_scale * b_scale).
static inline float gemm_i8_dequant_row(int32_t sum, float a_scale, float b_scale) {
  return static_cast<float>(sum) * (a_scale * b_scale);
}

// Activation blocks: adds one more block's sum to the dequantized value so far, as one fused
// multiply-add (std::fma), so that every variant rounds it the same way whether or not its
// compiler would contract a separate multiply and add.
static inline float gemm_i8_dequant_add(float so_far, int32_t sum, float a_scale, float b_scale) {
  return std::fma(static_cast<float>(sum), a_scale * b_scale, so_far);
}

// Number of scale groups along K (group_size > 0).
static inline size_t gemm_i8_groups(size_t k, size_t group_size) {
  return (k + group_size - 1) / group_size;
}

}  // namespace heed::kernels
