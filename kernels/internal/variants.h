// Internal to heed_kernels: the functions each variant provides, and the helpers they share.
//
// Every variant lives in its own namespace with the exact signatures of the KernelTable slots.
// A variant declares only what it implements; dispatch.cpp fills the rest from the next best
// variant, ending at the scalar reference.
#pragma once

#include <cstddef>
#include <cstdint>

#include "heed/kernels.h"

namespace heed::kernels {

// The slot signatures, spelled once.
#define HEED_KERNEL_DECLARE_QUANTIZE \
  void quantize_rows_i8(const float* x, size_t rows, size_t cols, size_t ldx, int8_t* q, size_t ldq, float* scales)
#define HEED_KERNEL_DECLARE_GEMM_I8 void gemm_i8(const GemmI8Params& p)
#define HEED_KERNEL_DECLARE_GEMM_F32 void gemm_f32(const GemmF32Params& p)
#define HEED_KERNEL_DECLARE_GEMM_F16 void gemm_f16(const GemmF16Params& p)
#define HEED_KERNEL_DECLARE_LAYER_NORM                                                  \
  void layer_norm(const float* x, size_t rows, size_t n, const float* gamma, const float* beta, \
                  float eps, float* y)
#define HEED_KERNEL_DECLARE_RMS_NORM \
  void rms_norm(const float* x, size_t rows, size_t n, const float* gamma, float eps, float* y)
#define HEED_KERNEL_DECLARE_SOFTMAX void softmax(float* x, size_t n)
#define HEED_KERNEL_DECLARE_LOG_SOFTMAX void log_softmax(float* x, size_t n)
#define HEED_KERNEL_DECLARE_ACTIVATE void activate(float* x, size_t n, Activation act)
#define HEED_KERNEL_DECLARE_ADD void add(float* y, const float* x, size_t n)
#define HEED_KERNEL_DECLARE_DOT_F32 float dot_f32(const float* a, const float* b, size_t n)
#define HEED_KERNEL_DECLARE_AXPY_F32 void axpy_f32(float alpha, const float* x, float* y, size_t n)
#define HEED_KERNEL_DECLARE_F16_TO_F32 void f16_to_f32(const uint16_t* x, float* y, size_t n)
#define HEED_KERNEL_DECLARE_F32_TO_F16 void f32_to_f16(const float* x, uint16_t* y, size_t n)
#define HEED_KERNEL_DECLARE_GEMM_I8_PACKED void gemm_i8_packed(const GemmI8PackedParams& p)
#define HEED_KERNEL_DECLARE_ATTENTION void attention(const AttentionParams& p)
#define HEED_KERNEL_DECLARE_EMBED_I8                                                          \
  size_t embed_i8(const int8_t* table, size_t rows, size_t ld, const float* row_scales,       \
                  const int32_t* ids, size_t count, size_t dim, float multiplier, float* out, \
                  size_t ldo)
#define HEED_KERNEL_DECLARE_EMBED_F16                                                             \
  size_t embed_f16(const uint16_t* table, size_t rows, size_t ld, const int32_t* ids, size_t count, \
                   size_t dim, float multiplier, float* out, size_t ldo)

// Scalar reference: the specification (kernels/ref/).
namespace ref {
HEED_KERNEL_DECLARE_QUANTIZE;
HEED_KERNEL_DECLARE_GEMM_I8;
HEED_KERNEL_DECLARE_GEMM_F32;
HEED_KERNEL_DECLARE_GEMM_F16;
HEED_KERNEL_DECLARE_LAYER_NORM;
HEED_KERNEL_DECLARE_RMS_NORM;
HEED_KERNEL_DECLARE_SOFTMAX;
HEED_KERNEL_DECLARE_LOG_SOFTMAX;
HEED_KERNEL_DECLARE_ACTIVATE;
HEED_KERNEL_DECLARE_ADD;
HEED_KERNEL_DECLARE_DOT_F32;
HEED_KERNEL_DECLARE_AXPY_F32;
HEED_KERNEL_DECLARE_F16_TO_F32;
HEED_KERNEL_DECLARE_F32_TO_F16;
HEED_KERNEL_DECLARE_ATTENTION;
HEED_KERNEL_DECLARE_EMBED_I8;
HEED_KERNEL_DECLARE_EMBED_F16;
HEED_KERNEL_DECLARE_GEMM_I8_PACKED;

// One activation on one value (shared by every variant's GEMM epilogue so they agree exactly).
float activation(float x, Activation act);
// One half-precision bit pattern to float, exactly.
float f16_bits_to_f32(uint16_t h);
}  // namespace ref

// x86-64 AVX2 + FMA + F16C (kernels/x86/*_avx2.cpp).
namespace avx2 {
HEED_KERNEL_DECLARE_QUANTIZE;
HEED_KERNEL_DECLARE_GEMM_I8;
HEED_KERNEL_DECLARE_GEMM_F32;
HEED_KERNEL_DECLARE_GEMM_F16;
HEED_KERNEL_DECLARE_LAYER_NORM;
HEED_KERNEL_DECLARE_RMS_NORM;
HEED_KERNEL_DECLARE_SOFTMAX;
HEED_KERNEL_DECLARE_LOG_SOFTMAX;
HEED_KERNEL_DECLARE_ADD;
HEED_KERNEL_DECLARE_DOT_F32;
HEED_KERNEL_DECLARE_AXPY_F32;
HEED_KERNEL_DECLARE_F16_TO_F32;
HEED_KERNEL_DECLARE_F32_TO_F16;
HEED_KERNEL_DECLARE_ACTIVATE;
HEED_KERNEL_DECLARE_ATTENTION;
HEED_KERNEL_DECLARE_GEMM_I8_PACKED;
}  // namespace avx2

// x86-64 AVX-512 BW/VL + VNNI (kernels/x86/*_avx512vnni.cpp).
namespace avx512vnni {
HEED_KERNEL_DECLARE_GEMM_I8;
HEED_KERNEL_DECLARE_GEMM_I8_PACKED;
}  // namespace avx512vnni

// aarch64 baseline NEON (kernels/arm/*_neon.cpp).
namespace neon {
HEED_KERNEL_DECLARE_QUANTIZE;
HEED_KERNEL_DECLARE_GEMM_I8;
HEED_KERNEL_DECLARE_GEMM_F32;
HEED_KERNEL_DECLARE_LAYER_NORM;
HEED_KERNEL_DECLARE_RMS_NORM;
HEED_KERNEL_DECLARE_SOFTMAX;
HEED_KERNEL_DECLARE_LOG_SOFTMAX;
HEED_KERNEL_DECLARE_ADD;
HEED_KERNEL_DECLARE_DOT_F32;
HEED_KERNEL_DECLARE_AXPY_F32;
HEED_KERNEL_DECLARE_F16_TO_F32;
HEED_KERNEL_DECLARE_F32_TO_F16;
HEED_KERNEL_DECLARE_GEMM_F16;
HEED_KERNEL_DECLARE_ACTIVATE;
HEED_KERNEL_DECLARE_ATTENTION;
HEED_KERNEL_DECLARE_GEMM_I8_PACKED;
}  // namespace neon

// aarch64 + SDOT (kernels/arm/*_neondot.cpp).
namespace neondot {
HEED_KERNEL_DECLARE_GEMM_I8;
HEED_KERNEL_DECLARE_GEMM_I8_PACKED;
}  // namespace neondot

// aarch64 + SMMLA (kernels/arm/*_i8mm.cpp).
namespace i8mm {
HEED_KERNEL_DECLARE_GEMM_I8;
HEED_KERNEL_DECLARE_GEMM_I8_PACKED;
}  // namespace i8mm

// 32-bit ARM NEON (kernels/arm/*_armv7.cpp).
namespace armv7 {
HEED_KERNEL_DECLARE_QUANTIZE;
HEED_KERNEL_DECLARE_GEMM_I8;
HEED_KERNEL_DECLARE_GEMM_F32;
HEED_KERNEL_DECLARE_LAYER_NORM;
HEED_KERNEL_DECLARE_SOFTMAX;
HEED_KERNEL_DECLARE_LOG_SOFTMAX;
HEED_KERNEL_DECLARE_ADD;
HEED_KERNEL_DECLARE_DOT_F32;
HEED_KERNEL_DECLARE_AXPY_F32;
HEED_KERNEL_DECLARE_ATTENTION;
HEED_KERNEL_DECLARE_GEMM_I8_PACKED;
}  // namespace armv7

// Table fillers, one per variant, defined next to the variant's kernels; each overwrites only the
// slots its variant implements. Which exist depends on the target (see kernels/CMakeLists.txt).
void fill_avx2(KernelTable& t);
void fill_avx512vnni(KernelTable& t);
void fill_neon(KernelTable& t);
void fill_neondot(KernelTable& t);
void fill_i8mm(KernelTable& t);
void fill_armv7(KernelTable& t);

}  // namespace heed::kernels
