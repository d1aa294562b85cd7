// RoPE for AVX2: the shared loop and angles (internal/rope_impl.h), rotations 8 lanes at a time.
// Multiplies and adds stay separate (no FMA) so each lane rounds exactly like the reference.
#include "x86/avx2_math.h"

#include "internal/rope_impl.h"
#include "internal/variants.h"

namespace heed::kernels::avx2 {

namespace {
struct Avx2Ops {
  void rotate_split(float* x0, float* x1, const float* c, const float* s, size_t n) const {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const __m256 a = _mm256_loadu_ps(x0 + i), b = _mm256_loadu_ps(x1 + i);
      const __m256 vc = _mm256_loadu_ps(c + i), vs = _mm256_loadu_ps(s + i);
      _mm256_storeu_ps(x0 + i, _mm256_sub_ps(_mm256_mul_ps(a, vc), _mm256_mul_ps(b, vs)));
      _mm256_storeu_ps(x1 + i, _mm256_add_ps(_mm256_mul_ps(a, vs), _mm256_mul_ps(b, vc)));
    }
    for (; i < n; ++i) {
      const float a = x0[i], b = x1[i];
      x0[i] = a * c[i] - b * s[i];
      x1[i] = a * s[i] + b * c[i];
    }
  }
  void rotate_interleaved(float* x, const float* c, const float* s, size_t n) const {
    // 4 pairs per vector: cos duplicated per pair, sin as (-s, +s), and x with its pairs swapped.
    const __m256 sign = _mm256_setr_ps(-1.0f, 1.0f, -1.0f, 1.0f, -1.0f, 1.0f, -1.0f, 1.0f);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      const __m128 c4 = _mm_loadu_ps(c + i), s4 = _mm_loadu_ps(s + i);
      const __m256 vc = _mm256_set_m128(_mm_unpackhi_ps(c4, c4), _mm_unpacklo_ps(c4, c4));
      const __m256 vs = _mm256_mul_ps(_mm256_set_m128(_mm_unpackhi_ps(s4, s4), _mm_unpacklo_ps(s4, s4)), sign);
      const __m256 v = _mm256_loadu_ps(x + 2 * i);
      const __m256 swapped = _mm256_permute_ps(v, 0xb1);
      _mm256_storeu_ps(x + 2 * i, _mm256_add_ps(_mm256_mul_ps(v, vc), _mm256_mul_ps(swapped, vs)));
    }
    for (; i < n; ++i) {
      const float a = x[2 * i], b = x[2 * i + 1];
      x[2 * i] = a * c[i] - b * s[i];
      x[2 * i + 1] = a * s[i] + b * c[i];
    }
  }
};
}  // namespace

void rope(const RopeParams& p) { rope_impl(p, Avx2Ops{}); }

}  // namespace heed::kernels::avx2
