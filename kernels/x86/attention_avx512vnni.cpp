// Fused attention for AVX-512: the AVX2 variant's block tiles (x86/attention_avx2_ops.h) with the
// AVX-512 softmax, which is most of the rest of the time on long encoder inputs, and a row path
// (every decoder step's query rows) on 16-float vectors: half the loads and FMAs of AVX2's per
// key, which is most of a batched beam search's attention time.
#include "x86/attention_avx2_ops.h"
#include "x86/avx512_math.h"

#include "internal/variants.h"

namespace heed::kernels::avx512vnni {

namespace {

// internal/attention_row_impl.h's vector traits: a head row of 64 floats is 4 vectors; scores 8
// keys per group, sums in blocks of 4 vectors (64 columns) in 2 sets of accumulators.
struct Avx512Vec : avx2::RowVecOn<avx512::F32x16, 8, 4, 2> {
  // Each accumulator's two 256-bit halves added, then AVX2's reduction of 8 vectors of 8.
  static void hsums(const Vec* acc, float scale, float* out) {
    __m256 halves[kScoreKeys];
    for (size_t i = 0; i < kScoreKeys; ++i) {
      const __m256 high = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(acc[i]), 1));
      halves[i] = _mm256_add_ps(_mm512_castps512_ps256(acc[i]), high);
    }
    avx2::Avx2Vec::hsums(halves, scale, out);
  }
};

}  // namespace

void attention(const AttentionParams& p) { attention_block_impl(p, avx2::Avx2Ops<avx512vnni::softmax, Avx512Vec>{}); }

}  // namespace heed::kernels::avx512vnni
