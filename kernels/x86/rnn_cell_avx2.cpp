// RNN cell gate math, AVX2 + FMA: eight hidden units at a time, tails through masked loads.
// sigmoid(x) = 1 / (1 + e^-x) and tanh(x) = 1 - 2 / (e^2x + 1) over avx2_math.h's exp, which
// saturate correctly (e^x = +inf or 0 gives exactly 0, 1 or -1, never NaN).
#include "x86/avx2_math.h"
#include "internal/variants.h"

namespace heed::kernels::avx2 {

namespace {

inline __m256 sigmoid_ps(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(one, _mm256_add_ps(one, exp_ps(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}

inline __m256 tanh_ps(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 e = exp_ps(_mm256_add_ps(x, x));
  return _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one)));
}

}  // namespace

void tanh_f32(float* x, size_t n) {
  for (size_t j = 0; j < n; j += 8) store_part(x + j, tanh_ps(load_part(x + j, n - j)), n - j);
}

void lstm_cell(const float* gx, const float* gh, float* c, float* h, size_t n) {
  for (size_t j = 0; j < n; j += 8) {
    const size_t left = n - j;
    const __m256 i = sigmoid_ps(_mm256_add_ps(load_part(gx + j, left), load_part(gh + j, left)));
    const __m256 f = sigmoid_ps(_mm256_add_ps(load_part(gx + n + j, left), load_part(gh + n + j, left)));
    const __m256 g = tanh_ps(_mm256_add_ps(load_part(gx + 2 * n + j, left), load_part(gh + 2 * n + j, left)));
    const __m256 o = sigmoid_ps(_mm256_add_ps(load_part(gx + 3 * n + j, left), load_part(gh + 3 * n + j, left)));
    const __m256 cn = _mm256_fmadd_ps(f, load_part(c + j, left), _mm256_mul_ps(i, g));
    store_part(c + j, cn, left);
    store_part(h + j, _mm256_mul_ps(o, tanh_ps(cn)), left);
  }
}

void gru_cell(const float* gx, const float* gh, float* h, size_t n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  for (size_t j = 0; j < n; j += 8) {
    const size_t left = n - j;
    const __m256 r = sigmoid_ps(_mm256_add_ps(load_part(gx + j, left), load_part(gh + j, left)));
    const __m256 z = sigmoid_ps(_mm256_add_ps(load_part(gx + n + j, left), load_part(gh + n + j, left)));
    const __m256 cand = tanh_ps(_mm256_fmadd_ps(r, load_part(gh + 2 * n + j, left), load_part(gx + 2 * n + j, left)));
    // (1 - z) cand + z h
    const __m256 hn = _mm256_fmadd_ps(z, load_part(h + j, left), _mm256_mul_ps(_mm256_sub_ps(one, z), cand));
    store_part(h + j, hn, left);
  }
}

}  // namespace heed::kernels::avx2
