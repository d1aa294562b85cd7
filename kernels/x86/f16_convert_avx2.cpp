// f16 <-> f32 with F16C (VCVTPH2PS / VCVTPS2PH, round to nearest even): the same results as the
// reference's bit manipulation, including subnormals, infinities and overflow to infinity.
#include <immintrin.h>

#include "internal/variants.h"

namespace heed::kernels::avx2 {

void f16_to_f32(const uint16_t* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
  for (; i < n; ++i) y[i] = ref::f16_bits_to_f32(x[i]);
}

void f32_to_f16(const float* x, uint16_t* y, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), h);
  }
  if (i < n) ref::f32_to_f16(x + i, y + i, n - i);
}

}  // namespace heed::kernels::avx2
