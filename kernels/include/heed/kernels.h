// heed's compute kernels: pure functions on raw pointers. No allocation, no I/O, no model knowledge.
//
// Every kernel has a scalar reference (kernels/ref/) that is its specification; each ISA variant
// (kernels/x86/, kernels/arm/) implements the same signature and is tested against it. dispatch.cpp
// picks one variant per kernel once, from cpuinfo, and exposes them as a table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace heed::kernels {

enum class Isa : int {
  kScalar = 0,
  kNeonArmv7,     // 32-bit ARM with NEON (Raspberry Pi 2/3/4 running a 32-bit OS)
  kNeon,          // aarch64 baseline (Cortex-A53/A72)
  kNeonDotprod,   // aarch64 + SDOT (Cortex-A55/A76 and later)
  kNeonI8mm,      // aarch64 + SMMLA (Armv8.6: Cortex-A510/A710/X2 and later)
  kAvx2,          // x86-64 AVX2 + FMA
  kAvx512Vnni,    // x86-64 AVX-512 BW/VL + VNNI
  kCount,
};

const char* isa_name(Isa isa);

enum class Activation : int { kNone = 0, kRelu, kGelu, kGeluTanh, kSilu };

// C[m, n] = act( sum_k A[m, k] * B[n, k] * scale(m, n, k) + bias[n] ) (+ C[m, n] if accumulate)
// A: activations, int8, one scale per row (a_scales[m]), values in [-127, 127].
// B: weights, int8 row-major [N, K] (PyTorch Linear layout), values in [-127, 127];
//    group_size == 0: one scale per row, b_scales[n];
//    group_size  > 0: b_scales[n * ceil(K / group_size) + k / group_size] (group_size % 4 == 0).
// The activation applies after the bias; the accumulate add comes last (residual connection).
struct GemmI8Params {
  size_t m = 0, n = 0, k = 0;
  const int8_t* a = nullptr;
  size_t lda = 0;
  const float* a_scales = nullptr;
  const int8_t* b = nullptr;
  size_t ldb = 0;
  const float* b_scales = nullptr;
  size_t group_size = 0;
  const float* bias = nullptr;  // [n] or null
  Activation activation = Activation::kNone;
  bool accumulate = false;
  float* c = nullptr;
  size_t ldc = 0;
};

// Same contract with float weights: C = act(A[M,K] . B[N,K]^T + bias) (+ C).
struct GemmF32Params {
  size_t m = 0, n = 0, k = 0;
  const float* a = nullptr;
  size_t lda = 0;
  const float* b = nullptr;
  size_t ldb = 0;
  const float* bias = nullptr;
  Activation activation = Activation::kNone;
  bool accumulate = false;
  float* c = nullptr;
  size_t ldc = 0;
};

// B stored as IEEE half precision (uint16 bit patterns); otherwise as GemmF32Params.
struct GemmF16Params {
  size_t m = 0, n = 0, k = 0;
  const float* a = nullptr;
  size_t lda = 0;
  const uint16_t* b = nullptr;
  size_t ldb = 0;
  const float* bias = nullptr;
  Activation activation = Activation::kNone;
  bool accumulate = false;
  float* c = nullptr;
  size_t ldc = 0;
};

struct KernelTable {
  Isa isa = Isa::kScalar;

  // Symmetric per-row quantization: scale = max|x| / 127, q = round-half-away(x / scale) in
  // [-127, 127]; an all-zero row gets scale 0 and q = 0. rows x cols, row strides ldx / ldq.
  void (*quantize_rows_i8)(const float* x, size_t rows, size_t cols, size_t ldx, int8_t* q,
                           size_t ldq, float* scales) = nullptr;
  void (*gemm_i8)(const GemmI8Params& p) = nullptr;
  void (*gemm_f32)(const GemmF32Params& p) = nullptr;
  void (*gemm_f16)(const GemmF16Params& p) = nullptr;
  // y = (x - mean) / sqrt(var + eps) * gamma + beta, per row of n (gamma/beta may be null: 1/0).
  void (*layer_norm)(const float* x, size_t rows, size_t n, const float* gamma, const float* beta,
                     float eps, float* y) = nullptr;
  // y = x / sqrt(mean(x^2) + eps) * gamma, per row of n.
  void (*rms_norm)(const float* x, size_t rows, size_t n, const float* gamma, float eps,
                   float* y) = nullptr;
  // In place, one row of n: softmax, log-softmax (numerically stable: max subtracted first).
  void (*softmax)(float* x, size_t n) = nullptr;
  void (*log_softmax)(float* x, size_t n) = nullptr;
  // In place elementwise activation over n values.
  void (*activate)(float* x, size_t n, Activation act) = nullptr;
  // y[i] += x[i] over n.
  void (*add)(float* y, const float* x, size_t n) = nullptr;
  // sum_i a[i] * b[i].
  float (*dot_f32)(const float* a, const float* b, size_t n) = nullptr;
  // y[i] += alpha * x[i].
  void (*axpy_f32)(float alpha, const float* x, float* y, size_t n) = nullptr;
  // f16 bit patterns -> f32, and back (round to nearest even).
  void (*f16_to_f32)(const uint16_t* x, float* y, size_t n) = nullptr;
  void (*f32_to_f16)(const float* x, uint16_t* y, size_t n) = nullptr;
};

// The best table for this CPU (chosen once, thread-safe). HEED_ISA=<name> in the environment caps
// the choice (for example HEED_ISA=scalar) so any variant can be exercised on capable hardware.
const KernelTable& best();
// The table for one ISA, or nullptr when this build or this CPU cannot run it.
const KernelTable* for_isa(Isa isa);
// The scalar reference table: always available.
const KernelTable& reference();

}  // namespace heed::kernels
