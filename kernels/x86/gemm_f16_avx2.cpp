// gemm_f16 for AVX2 + F16C: half-precision weights widened with VCVTPH2PS (exact) in the shared
// float loop (x86/gemm_float_avx2.h). The K tail goes through a zero-padded copy (there is no
// masked 16-bit load in AVX2).
#include "x86/gemm_float_avx2.h"

#include <cstring>

namespace heed::kernels::avx2 {

namespace {
struct HalfWeights {
  __m256 load(const uint16_t* p) const { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
  __m256 tail(const uint16_t* p, size_t n, __m256i) const {
    uint16_t padded[8] = {};
    std::memcpy(padded, p, n * sizeof(uint16_t));
    return load(padded);
  }
};
}  // namespace

void gemm_f16(const GemmF16Params& p) { gemm_float_rows(p, HalfWeights{}); }

}  // namespace heed::kernels::avx2
