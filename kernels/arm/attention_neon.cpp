// Fused attention for NEON (armv7 and aarch64): the block path (internal/attention_block_impl.h)
// with an FMA register tile of 4 rows x 16 columns on aarch64 (16 of its 32 vector registers as
// accumulators) and 4 x 8 on armv7 (8 of 16), one load of B per 4 columns and one scalar of A per
// row and k; and the row loop (internal/attention_impl.h) over the target's own dot, axpy and
// softmax for the calls blocks do not take.
#include "arm/neon_shim.h"
#include "internal/attention_block_impl.h"
#include "internal/variants.h"

namespace heed::kernels::HEED_NEON_VARIANT {

namespace {
struct NeonOps {
#if defined(__aarch64__)
  static constexpr size_t kTileRows = 4, kVectors = 4;
#else
  static constexpr size_t kTileRows = 4, kVectors = 2;
#endif
  static constexpr size_t kTileCols = 4 * kVectors;

  float dot(const float* a, const float* b, size_t n) const { return dot_f32(a, b, n); }
  void axpy(float alpha, const float* x, float* y, size_t n) const { axpy_f32(alpha, x, y, n); }
  void softmax(float* x, size_t n) const { HEED_NEON_VARIANT::softmax(x, n); }

  void tile(const float* a, size_t lda, size_t rows, const float* b, size_t ldb, size_t k, float alpha, float* c,
            size_t ldc) const {
    const float* ar[kTileRows];
    for (size_t r = 0; r < kTileRows; ++r) ar[r] = a + (r < rows ? r : rows - 1) * lda;  // extra rows: repeats
    float32x4_t acc[kTileRows][kVectors];
    for (size_t r = 0; r < kTileRows; ++r)
      for (size_t v = 0; v < kVectors; ++v) acc[r][v] = vdupq_n_f32(0.0f);
    for (size_t i = 0; i < k; ++i) {
      float32x4_t bv[kVectors];
      for (size_t v = 0; v < kVectors; ++v) bv[v] = vld1q_f32(b + i * ldb + 4 * v);
      for (size_t r = 0; r < kTileRows; ++r) {
        const float x = ar[r][i];
        for (size_t v = 0; v < kVectors; ++v) acc[r][v] = fma_n_f32x4(acc[r][v], bv[v], x);
      }
    }
    // Constant indices only (r < rows tested inside): with acc[r] indexed up to `rows`, GCC kept
    // the accumulators in memory, storing them on every k.
    for (size_t r = 0; r < kTileRows; ++r)
      if (r < rows)
        for (size_t v = 0; v < kVectors; ++v) vst1q_f32(c + r * ldc + 4 * v, vmulq_n_f32(acc[r][v], alpha));
  }
};
}  // namespace

void attention(const AttentionParams& p) { attention_block_impl(p, NeonOps{}); }

}  // namespace heed::kernels::HEED_NEON_VARIANT
