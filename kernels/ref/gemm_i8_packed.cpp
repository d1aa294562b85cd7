// The 16x4 packed weight layout (pack_i8_16x4, the same for every variant) and gemm_i8 over it,
// the specification: exact int32 sums read through the layout's address formula, then the shared
// per-row-scale epilogue, so the result equals gemm_i8 on the unpacked matrix.
#include <cstring>

#include "internal/gemm_epilogue.h"

namespace heed::kernels {

namespace {
size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }
}  // namespace

size_t packed_i8_16x4_bytes(size_t n, size_t k) { return round_up(n, 16) * round_up(k, 4); }

void pack_i8_16x4(const int8_t* b, size_t n, size_t k, size_t ldb, int8_t* packed, int32_t* row_sums) {
  std::memset(packed, 0, packed_i8_16x4_bytes(n, k));
  for (size_t r = 0; r < n; ++r) {
    int32_t sum = 0;
    for (size_t i = 0; i < k; ++i) {
      packed[packed_i8_16x4_index(r, i, k)] = b[r * ldb + i];
      sum += b[r * ldb + i];
    }
    row_sums[r] = sum;
  }
}

void pack_block_lanes(const int8_t* packed, size_t n, size_t k, size_t a_block, const float* b_scales,
                      bool per_block, BlockLanes* lanes) {
  const size_t blocks = (k + a_block - 1) / a_block, groups = (k + 3) / 4;
  std::memset(lanes, 0, block_lanes_count(n, k, a_block) * sizeof(BlockLanes));
  // The packed bytes in order: per 16-row block, per group of 4 k (never split by a block of K,
  // a multiple of 16), 16 rows x 4 bytes; padding rows and k are 0.
  const int8_t* unit = packed;
  for (size_t nb = 0; nb < (n + 15) / 16; ++nb) {
    for (size_t g = 0; g < groups; ++g, unit += 64) {
      BlockLanes& to = lanes[nb * blocks + 4 * g / a_block];
      for (size_t l = 0; l < 16; ++l) to.corrections[l] += 128 * (unit[4 * l] + unit[4 * l + 1] + unit[4 * l + 2] + unit[4 * l + 3]);
    }
  }
  for (size_t r = 0; r < n; ++r)
    for (size_t q = 0; q < blocks; ++q) lanes[(r / 16) * blocks + q].scales[r % 16] = per_block ? b_scales[r * blocks + q] : b_scales[r];
}

namespace ref {

void gemm_i8_packed(const GemmI8PackedParams& p) {
  const size_t k4 = (p.k + 3) / 4 * 4;
  const size_t block = p.a_block == 0 ? k4 : p.a_block, blocks = p.a_block == 0 ? 1 : gemm_i8_groups(p.k, block);
  for (size_t m = 0; m < p.m; ++m) {
    const int8_t* a = p.a + m * p.lda;
    for (size_t n = 0; n < p.n; ++n) {
      const int8_t* unit = p.packed + (n / 16) * (k4 / 4) * 64 + (n % 16) * 4;
      float v = 0.0f;
      for (size_t b = 0; b < blocks; ++b) {
        const size_t end = (b + 1) * block < p.k ? (b + 1) * block : p.k;
        int32_t sum = 0;
        for (size_t i = b * block; i < end; ++i) sum += int32_t{a[i]} * int32_t{unit[(i / 4) * 64 + i % 4]};
        const float a_scale = p.a_scales[m * blocks + b];
        const float b_scale = p.b_scales_per_block ? p.b_scales[n * blocks + b] : p.b_scales[n];
        v = b == 0 ? gemm_i8_dequant_row(sum, a_scale, b_scale) : gemm_i8_dequant_add(v, sum, a_scale, b_scale);
      }
      gemm_store(v, p.bias, p.activation, p.accumulate, p.c + m * p.ldc + n, n);
    }
  }
}

}  // namespace ref
}  // namespace heed::kernels
