// gemm_f32 for AVX2: the shared float loop (x86/gemm_float_avx2.h) over float weights.
#include "x86/gemm_float_avx2.h"

namespace heed::kernels::avx2 {

namespace {
struct FloatWeights {
  __m256 load(const float* p) const { return _mm256_loadu_ps(p); }
  __m256 tail(const float* p, size_t, __m256i mask) const { return _mm256_maskload_ps(p, mask); }
};
}  // namespace

void gemm_f32(const GemmF32Params& p) { gemm_float_rows(p, FloatWeights{}); }

}  // namespace heed::kernels::avx2
