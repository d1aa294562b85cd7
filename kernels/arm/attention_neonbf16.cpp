// Fused attention for aarch64 with BF16 (BFDOT): the bfloat16 block path of the avx512bf16 variant
// (same layout, internal/attention_bf16_layout.h; same arithmetic: q, k, v and the exponentials
// rounded to bfloat16, float32 sums, each output row divided by its sum) when the caller accepts
// bfloat16 products (AttentionParams::bf16_products: an int8 embedder's encoder on long
// sentences). The tile is 4 rows x 16 columns: 16 accumulators, per pair of the inner dimension
// four loads of B and 16 BFDOT by element (8 multiply-adds each, against FMLA's 4), A's rows
// loaded 4 pairs at a time. Every other call is the i8mm table's attention (NEON's).
#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "arm/neon_shim.h"
#include "internal/attention_bf16_impl.h"
#include "internal/variants.h"

namespace heed::kernels::neonbf16 {

namespace {

// Four floats, zeros past `count` (nothing read past it).
float32x4_t load_x4(const float* x, size_t count) {
  if (count >= 4) return vld1q_f32(x);
  float part[4] = {};
  std::memcpy(part, x, count * sizeof(float));
  return vld1q_f32(part);
}

// Four floats (zeros past `count`) as four bfloat16 in the low half.
bfloat16x8_t to_bf16x4(const float* x, size_t count) { return vcvtq_low_bf16_f32(load_x4(x, count)); }

struct Ops {
  static constexpr size_t kTileRows = 4, kVectors = 4, kTileCols = 4 * kVectors;

  // A row of `count` floats (even) as count / 2 bfloat16 pairs, zero pairs up to `ld` (a multiple of 4).
  static void row_to_pairs(const float* x, size_t count, uint32_t* out, size_t ld) {
    for (size_t i = 0; i < 2 * ld; i += 8) {
      const size_t left = i < count ? count - i : 0;
      const uint64x2_t lo = vreinterpretq_u64_bf16(to_bf16x4(x + i, left));
      const uint64x2_t hi = vreinterpretq_u64_bf16(to_bf16x4(x + i + 4, left > 4 ? left - 4 : 0));
      vst1q_u32(out + i / 2, vreinterpretq_u32_u64(vzip1q_u64(lo, hi)));
    }
  }

  // keys[i * ld_keys + j] = pair i of key j for j < n; zero pairs for j in [n, ld_keys).
  void pack_keys(const AttentionParams& p, const float* k, size_t n, const AttentionBf16Layout& l,
                 uint32_t* keys) const {
    attention_bf16_keys_by_row(*this, p, k, n, l, keys, 0, 0);
  }

  // out[d] = (even[d], odd[d]) for d < 4, each 0 past its count.
  static constexpr size_t kPairColumns = 4;
  static void interleave(const float* even, size_t even_count, const float* odd, size_t odd_count, uint32_t* out) {
    const uint16x8_t lo = vreinterpretq_u16_bf16(to_bf16x4(even, even_count));
    const uint16x8_t hi = vreinterpretq_u16_bf16(to_bf16x4(odd, odd_count));
    vst1q_u32(out, vreinterpretq_u32_u16(vzip1q_u16(lo, hi)));
  }

  // acc[r][v] += pair Q of a[r] times the 4 pairs at b + 4 v, r < kTileRows (Q a constant lane).
  template <int Q>
  static void step(float32x4_t (&acc)[kTileRows][kVectors], const bfloat16x8_t (&a)[kTileRows], const uint32_t* b) {
    bfloat16x8_t bv[kVectors];
    for (size_t v = 0; v < kVectors; ++v) bv[v] = vreinterpretq_bf16_u32(vld1q_u32(b + 4 * v));
    for (size_t r = 0; r < kTileRows; ++r)
      for (size_t v = 0; v < kVectors; ++v) acc[r][v] = vbfdotq_laneq_f32(acc[r][v], bv[v], a[r], Q);
  }

  // c[r][j] = scales[r] * sum_i dot(a[r * lda + i], b[i * ldb + j]) for r < rows <= kTileRows, j < cols
  // <= kTileCols. Rows past `rows` repeat the last one and are not stored. A's rows are read 4 pairs
  // at a time (their padding is zero pairs), B's pairs one at a time up to `pairs`.
  static void tile(const uint32_t* a, size_t lda, size_t rows, const uint32_t* b, size_t ldb, size_t pairs,
                   const float* scales, float* c, size_t ldc, size_t cols) {
    const uint32_t* ar[kTileRows];
    float32x4_t acc[kTileRows][kVectors];
    for (size_t r = 0; r < kTileRows; ++r) {
      ar[r] = a + (r < rows ? r : rows - 1) * lda;
      for (size_t v = 0; v < kVectors; ++v) acc[r][v] = vdupq_n_f32(0.0f);
    }
    bfloat16x8_t ap[kTileRows];
    size_t i = 0;
    for (; i + 4 <= pairs; i += 4, b += 4 * ldb) {
      for (size_t r = 0; r < kTileRows; ++r) ap[r] = vreinterpretq_bf16_u32(vld1q_u32(ar[r] + i));
      step<0>(acc, ap, b);
      step<1>(acc, ap, b + ldb);
      step<2>(acc, ap, b + 2 * ldb);
      step<3>(acc, ap, b + 3 * ldb);
    }
    for (; i < pairs; ++i, b += ldb) {
      for (size_t r = 0; r < kTileRows; ++r) ap[r] = vreinterpretq_bf16_u32(vdupq_n_u32(ar[r][i]));
      step<0>(acc, ap, b);
    }
    for (size_t r = 0; r < rows; ++r) {
      float out[kTileCols];
      for (size_t v = 0; v < kVectors; ++v) vst1q_f32(out + 4 * v, vmulq_n_f32(acc[r][v], scales[r]));
      std::memcpy(c + r * ldc, out, cols * sizeof(float));
    }
  }

  // exp(s[j] - max s) for j < n as bfloat16 pairs (zero pairs past n, up to `ld`, a multiple of 4);
  // returns their float32 sum.
  static float exp_to_pairs(const float* s, size_t n, uint32_t* probs, size_t ld) {
    float32x4_t m = vdupq_n_f32(-__builtin_inff());
    size_t j = 0;
    for (; j + 4 <= n; j += 4) m = vmaxq_f32(m, vld1q_f32(s + j));
    float max = vmaxvq_f32(m);
    for (; j < n; ++j) max = s[j] > max ? s[j] : max;
    const float32x4_t vmax = vdupq_n_f32(max);
    const uint32x4_t lane = {0, 1, 2, 3};
    float32x4_t sum = vdupq_n_f32(0.0f);
    for (size_t i = 0; i < 2 * ld; i += 8) {
      float32x4_t e[2];
      for (size_t h = 0; h < 2; ++h) {
        const size_t at = i + 4 * h, left = at < n ? n - at : 0;
        const float32x4_t x = vsubq_f32(load_x4(s + at, left), vmax);  // <= 0 where used: exp cannot overflow
        const uint32x4_t used = vcltq_u32(lane, vdupq_n_u32(static_cast<uint32_t>(left < 4 ? left : 4)));
        e[h] = vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(neon::exp_f32x4<true>(x)), used));
        sum = vaddq_f32(sum, e[h]);
      }
      vst1q_bf16(reinterpret_cast<bfloat16_t*>(probs + i / 2), vcvtq_high_bf16_f32(vcvtq_low_bf16_f32(e[0]), e[1]));
    }
    return vaddvq_f32(sum);
  }
};

}  // namespace

void attention(const AttentionParams& p) {
  if (!attention_bf16_impl(p, Ops{})) neon::attention(p);
}

}  // namespace heed::kernels::neonbf16
