// Fused attention for NEON (armv7 and aarch64): the block path (internal/attention_block_impl.h)
// with an FMA register tile of 4 rows x 16 columns on aarch64 (16 of its 32 vector registers as
// accumulators) and 4 x 8 on armv7 (8 of 16), one load of B per 4 columns and one scalar of A per
// row and k; and the row loop (internal/attention_impl.h) for the calls blocks do not take, with
// the register-tiled scores and weighted sum of internal/attention_row_impl.h: groups of 8 keys
// on aarch64 and 4 on armv7 (whose 32-bit core has too few registers for 8 key pointers), output
// blocks of 8 vectors on aarch64 (32 columns; 16 spilled: GCC loads all of a key's vectors before
// its FMAs, 33 registers) and 4 vectors in 2 sets on armv7 (8 of its 16 registers).
#include "arm/neon_shim.h"
#include "internal/attention_block_impl.h"
#include "internal/attention_row_impl.h"
#include "internal/variants.h"

namespace heed::kernels::HEED_NEON_VARIANT {

namespace {
struct NeonVec {
  using Vec = float32x4_t;
  using Weight = float;  // FMLA by element on aarch64: no broadcast per key
#if defined(__aarch64__)
  static constexpr size_t kLanes = 4, kScoreKeys = 8, kSumVectors = 8, kSumSets = 1;
#else  // 8 accumulators in one set spilled: GCC loads all 8 vectors of a key first (17 registers)
  static constexpr size_t kLanes = 4, kScoreKeys = 4, kSumVectors = 4, kSumSets = 2;
#endif

  static Vec zero() { return vdupq_n_f32(0.0f); }
  static Vec load(const float* p) { return vld1q_f32(p); }
  static void store(float* p, Vec v) { vst1q_f32(p, v); }
  static Vec add(Vec a, Vec b) { return vaddq_f32(a, b); }
  static Vec fma(Vec acc, Vec a, Vec b) { return vfmaq_f32(acc, a, b); }
  static Weight weight(float w) { return w; }
  static Vec fma_weight(Vec acc, Weight w, Vec x) { return fma_n_f32x4(acc, x, w); }
  static void hsums(const Vec* acc, float scale, float* out) {
    for (size_t i = 0; i < kScoreKeys; i += 4)
      vst1q_f32(out + i, vmulq_n_f32(hsum4_f32x4(acc[i], acc[i + 1], acc[i + 2], acc[i + 3]), scale));
  }
};

struct NeonOps {
#if defined(__aarch64__)
  static constexpr size_t kTileRows = 4, kVectors = 4;
#else
  static constexpr size_t kTileRows = 4, kVectors = 2;
#endif
  static constexpr size_t kTileCols = 4 * kVectors;

  void softmax(float* x, size_t n) const { HEED_NEON_VARIANT::softmax(x, n); }
  void scores(const float* q, KvRows k, size_t n, size_t d, float scale, float* s) const {
    attention_row_scores<NeonVec>(q, k, n, d, scale, s);
  }
  void weighted_sum(const float* s, KvRows v, size_t n, size_t d, float* out) const {
    attention_row_sum<NeonVec>(s, v, n, d, out);
  }

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
