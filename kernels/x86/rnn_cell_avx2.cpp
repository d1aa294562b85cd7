// RNN cell gate math, AVX2 + FMA: eight hidden units at a time, tails through masked loads.
// sigmoid(x) = 1 / (1 + e^-x) and tanh(x) = 1 - 2 / (e^2x + 1) over avx2_math.h's exp, which
// saturate correctly (e^x = +inf or 0 gives exactly 0, 1 or -1, never NaN).
#include "internal/rnn_cell_variants.h"
#include "x86/avx2_math.h"

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

inline __m256 load(const float* p, size_t left) {
  return left >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, tail_mask(left));
}

inline void store(float* p, __m256 v, size_t left) {
  if (left >= 8) {
    _mm256_storeu_ps(p, v);
  } else {
    _mm256_maskstore_ps(p, tail_mask(left), v);
  }
}

}  // namespace

void tanh_f32(float* x, size_t n) {
  for (size_t j = 0; j < n; j += 8) store(x + j, tanh_ps(load(x + j, n - j)), n - j);
}

void lstm_cell(const float* gx, const float* gh, float* c, float* h, size_t n) {
  for (size_t j = 0; j < n; j += 8) {
    const size_t left = n - j;
    const __m256 i = sigmoid_ps(_mm256_add_ps(load(gx + j, left), load(gh + j, left)));
    const __m256 f = sigmoid_ps(_mm256_add_ps(load(gx + n + j, left), load(gh + n + j, left)));
    const __m256 g = tanh_ps(_mm256_add_ps(load(gx + 2 * n + j, left), load(gh + 2 * n + j, left)));
    const __m256 o = sigmoid_ps(_mm256_add_ps(load(gx + 3 * n + j, left), load(gh + 3 * n + j, left)));
    const __m256 cn = _mm256_fmadd_ps(f, load(c + j, left), _mm256_mul_ps(i, g));
    store(c + j, cn, left);
    store(h + j, _mm256_mul_ps(o, tanh_ps(cn)), left);
  }
}

void gru_cell(const float* gx, const float* gh, float* h, size_t n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  for (size_t j = 0; j < n; j += 8) {
    const size_t left = n - j;
    const __m256 r = sigmoid_ps(_mm256_add_ps(load(gx + j, left), load(gh + j, left)));
    const __m256 z = sigmoid_ps(_mm256_add_ps(load(gx + n + j, left), load(gh + n + j, left)));
    const __m256 cand = tanh_ps(_mm256_fmadd_ps(r, load(gh + 2 * n + j, left), load(gx + 2 * n + j, left)));
    // (1 - z) cand + z h
    const __m256 hn = _mm256_fmadd_ps(z, load(h + j, left), _mm256_mul_ps(_mm256_sub_ps(one, z), cand));
    store(h + j, hn, left);
  }
}

}  // namespace heed::kernels::avx2
