// gemm_i8_packed for Intel AMX (AMX-TILE + AMX-INT8: Xeon Sapphire Rapids and later). One
// TDPBSSD multiplies a tile of 16 rows x 64 signed bytes of A by a tile of 16 units of 4 k x 16
// weight rows and adds the products into a tile of 16 x 16 int32 sums: 16,384 multiply-adds per
// instruction, one every 16 cycles, 8x the multiply-adds per cycle of VPDPBUSD. Its weight
// operand is exactly 16 consecutive 64-byte units of the 16x4 packed layout (kernels.h), so
// weights load straight from the packed matrix (stride 64): no repacking, the same .heed file.
//
// Tiles: tmm0-3 the sums of a 32 x 32 output tile (tmm 2i + j: A tile i times weight block j),
// tmm4-5 two A tiles, tmm6-7 two weight tiles, all 16 rows x 64 bytes: 4 TDPBSSD per 4 loads.
// A is copied a chunk of rows at a time into a stack buffer with rows of K rounded up to 64,
// zero past K and past M, so every A tile load reads whole rows and padding rows add nothing;
// when K is a multiple of 64 and M of 16 the tiles load A's own rows instead. The
// packed matrix ends at K rounded to 4, so a last step of K past it reads its weight units from a
// zeroed copy. int32 sums are exact in any order and the epilogue does the reference's float
// operations (gemm_epilogue.h), so the output equals the reference's bitwise.
//
// Fewer than kMinRows rows (there the time is the weights' read, and the avx512vnni GEMV loop
// reads them as fast; from 4 rows, where Linear cuts N at n_step, the tiles are faster), K past
// what the chunk holds for 16 rows when A must be copied, or activation blocks that do not start on a 64-byte step: the
// avx512vnni kernel. The OS must have granted the process the tile state (cpu_features.cpp asks
// for it before dispatch lists this variant).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 avx512 headers, as in gemm_i8

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "internal/amx_tiles.h"
#include "internal/gemm_epilogue.h"
#include "internal/gemm_store_avx512.h"
#include "internal/variants.h"

namespace heed::kernels::amx {

namespace {

constexpr size_t kTileRows = 16;            // rows of A (and of sums) per tile
constexpr size_t kStepBytes = 64;           // bytes of K per TDPBSSD: 16 units of 4 k
constexpr size_t kOutRows = 2 * kTileRows;  // rows of one output tile
constexpr size_t kOutCols = 2 * 16;         // columns of one output tile: 2 weight blocks
static_assert(kOutCols == kGemmI8PackedNStep, "the table's n_step is this kernel's tile width");
constexpr size_t kAChunkBytes = 64 * 1024;  // A rows on the stack
constexpr size_t kMinRows = 4;

// One step of K: A tiles at a (rows of lda bytes), weight tiles at b0 and b1 (64-byte units).
template <int kA, int kB>
inline void tile_step(const int8_t* a, size_t lda, const int8_t* b0, const int8_t* b1) {
  _tile_loadd(4, a, lda);
  _tile_loadd(6, b0, kStepBytes);
  _tile_dpbssd(0, 4, 6);
  if constexpr (kB == 2) {
    _tile_loadd(7, b1, kStepBytes);
    _tile_dpbssd(1, 4, 7);
  }
  if constexpr (kA == 2) {
    _tile_loadd(5, a + kTileRows * lda, lda);
    _tile_dpbssd(2, 5, 6);
    if constexpr (kB == 2) _tile_dpbssd(3, 5, 7);
  }
}

// Exact int32 sums of 16 kA chunk rows (a, rows of lda bytes) against kB weight blocks (b, the
// next at b + block_bytes) over `units` units of 4 k, into sums (rows of kOutCols).
template <int kA, int kB>
void tile_sums(const int8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t units, int32_t* sums) {
  _tile_zero(0);
  if constexpr (kB == 2) _tile_zero(1);
  if constexpr (kA == 2) _tile_zero(2);
  if constexpr (kA == 2 && kB == 2) _tile_zero(3);
  constexpr size_t kUnits = kStepBytes / 4;
  size_t u = 0;
  for (; u + kUnits <= units; u += kUnits) tile_step<kA, kB>(a + 4 * u, lda, b + 64 * u, b + block_bytes + 64 * u);
  if (u < units) {  // the last units of K: weights from zeroed copies, never past the matrix
    alignas(64) int8_t tail[2][kUnits * 64];
    const size_t bytes = 64 * (units - u);
    for (int c = 0; c < kB; ++c) {
      std::memcpy(tail[c], b + c * block_bytes + 64 * u, bytes);
      std::memset(tail[c] + bytes, 0, sizeof(tail[c]) - bytes);
    }
    tile_step<kA, kB>(a + 4 * u, lda, tail[0], tail[1]);
  }
  constexpr size_t kStride = kOutCols * sizeof(int32_t);
  _tile_stored(0, sums, kStride);
  if constexpr (kB == 2) _tile_stored(1, sums + 16, kStride);
  if constexpr (kA == 2) _tile_stored(2, sums + kTileRows * kOutCols, kStride);
  if constexpr (kA == 2 && kB == 2) _tile_stored(3, sums + kTileRows * kOutCols + 16, kStride);
}

// tile_sums for mr rows (1-32) and nb weight blocks (1-2).
void output_sums(const int8_t* a, size_t lda, size_t mr, const int8_t* b, size_t block_bytes, size_t nb,
                 size_t units, int32_t* sums) {
  if (mr > kTileRows) {
    if (nb == 2) return tile_sums<2, 2>(a, lda, b, block_bytes, units, sums);
    return tile_sums<2, 1>(a, lda, b, block_bytes, units, sums);
  }
  if (nb == 2) return tile_sums<1, 2>(a, lda, b, block_bytes, units, sums);
  tile_sums<1, 1>(a, lda, b, block_bytes, units, sums);
}

// Rows [mc, mc + rows) of A into the chunk, rows of k64 bytes, zero past K; rows up to the next
// multiple of 16 all zero.
void copy_rows(const GemmI8PackedParams& p, size_t mc, size_t rows, size_t k64, int8_t* chunk) {
  for (size_t r = 0; r < rows; ++r) {
    std::memcpy(chunk + r * k64, p.a + (mc + r) * p.lda, p.k);
    std::memset(chunk + r * k64 + p.k, 0, k64 - p.k);
  }
  const size_t padded = (rows + kTileRows - 1) / kTileRows * kTileRows;
  std::memset(chunk + rows * k64, 0, (padded - rows) * k64);
}

// One scale per row of A: float(sum) * (a_scale * b_scale), as gemm_i8_dequant_row.
void store_sums(const GemmI8PackedParams& p, size_t m0, size_t mr, size_t n0, size_t nb, const int32_t* sums) {
  for (size_t c = 0; c < nb && n0 + 16 * c < p.n; ++c) {
    const size_t col = n0 + 16 * c;
    __m512 bias;
    const __mmask16 mask = column_mask_avx512(p, col, &bias);
    const __m512 b_scale = _mm512_maskz_loadu_ps(mask, p.b_scales + col);
    for (size_t i = 0; i < mr; ++i) {
      const __m512 sum = _mm512_cvtepi32_ps(_mm512_load_si512(sums + i * kOutCols + 16 * c));
      const __m512 v = _mm512_mul_ps(sum, _mm512_mul_ps(_mm512_set1_ps(p.a_scales[m0 + i]), b_scale));
      store_outputs_avx512(p, v, bias, mask, p.c + (m0 + i) * p.ldc + col);
    }
  }
}

// Activation block q of `blocks` added into v (rows of kOutCols floats) as the reference adds
// blocks: the first a product, each next one fused multiply-add (gemm_i8_dequant_add).
void add_block(const GemmI8PackedParams& p, size_t q, size_t blocks, size_t m0, size_t mr, size_t n0, size_t nb,
               const int32_t* sums, float* v) {
  for (size_t c = 0; c < nb; ++c) {
    const size_t col = n0 + 16 * c;
    alignas(64) float b_scales[16] = {};
    for (size_t l = 0; l < 16 && col + l < p.n; ++l)
      b_scales[l] = p.b_scales_per_block ? p.b_scales[(col + l) * blocks + q] : p.b_scales[col + l];
    const __m512 b_scale = _mm512_load_ps(b_scales);
    for (size_t i = 0; i < mr; ++i) {
      const __m512 f = _mm512_mul_ps(_mm512_set1_ps(p.a_scales[(m0 + i) * blocks + q]), b_scale);
      const __m512 sum = _mm512_cvtepi32_ps(_mm512_load_si512(sums + i * kOutCols + 16 * c));
      float* out = v + i * kOutCols + 16 * c;
      _mm512_store_ps(out, q == 0 ? _mm512_mul_ps(sum, f) : _mm512_fmadd_ps(sum, f, _mm512_load_ps(out)));
    }
  }
}

// v -> C for rows [m0, m0 + mr), columns from n0 (nb blocks, clipped to N).
void store_values(const GemmI8PackedParams& p, size_t m0, size_t mr, size_t n0, size_t nb, const float* v) {
  for (size_t c = 0; c < nb && n0 + 16 * c < p.n; ++c) {
    const size_t col = n0 + 16 * c;
    __m512 bias;
    const __mmask16 mask = column_mask_avx512(p, col, &bias);
    for (size_t i = 0; i < mr; ++i)
      store_outputs_avx512(p, _mm512_load_ps(v + i * kOutCols + 16 * c), bias, mask, p.c + (m0 + i) * p.ldc + col);
  }
}

// Calls tile(a, lda, row, mr, blk, nb) for every output tile with the tiles configured: chunks
// of A's rows, then pairs of weight blocks, then the chunk's rows 32 at a time, so a pair of
// weight blocks (2 x 16 x K bytes) is read from memory once per chunk and stays in L1 for the
// chunk's output tiles. a: the tile's first row in the chunk (rows of lda bytes); row: in A.
// When A's own rows are whole tiles (K a multiple of 64 and M of 16, as a batch of 16 x beam 4's
// decoder layers), the tiles load them in place: no copy, chunks of rows_per_weight_pass().
inline bool rows_in_place(const GemmI8PackedParams& p) { return p.k % kStepBytes == 0 && p.m % kTileRows == 0; }

// Rows per pass over the weights when the tiles load A in place. Up to 64 rows (a decoder step of
// batch 16 x beam 4) run in one pass: each pair of weight blocks is read from memory once. Past
// that, passes of 32 rows when the weights fit in L2: a pass's A tiles then stay in L1 while the
// weights come back from L2, where one pass over all rows would read every A tile from L2 again for
// each pair of weight blocks (an encoder layer at M = 512: its GEMMs ~8 % faster, docs/benchmarks.md).
size_t rows_per_weight_pass(const GemmI8PackedParams& p) {
  constexpr size_t kOnePassRows = 64, kPassRows = 32, kL2Weights = size_t(1) << 20;
  return p.m <= kOnePassRows || p.n * p.k > kL2Weights ? p.m : kPassRows;
}

template <class Tile>
void for_each_output_tile(const GemmI8PackedParams& p, size_t k64, Tile tile) {
  alignas(64) int8_t chunk[kAChunkBytes];
  const size_t blocks = (p.n + 15) / 16;
  const bool in_place = rows_in_place(p);
  const size_t fit = kAChunkBytes / k64 / kTileRows * kTileRows;
  const size_t m16 = (p.m + kTileRows - 1) / kTileRows * kTileRows;
  const size_t chunk_rows = in_place ? rows_per_weight_pass(p) : m16 < fit ? m16 : fit;
  amx_configure_16x64();  // every tile this kernel uses: kTileRows rows of kStepBytes
  for (size_t mc = 0; mc < p.m; mc += chunk_rows) {
    const size_t rows = p.m - mc < chunk_rows ? p.m - mc : chunk_rows;
    const int8_t* a = p.a + mc * p.lda;
    size_t lda = p.lda;
    if (!in_place) {
      copy_rows(p, mc, rows, k64, chunk);
      a = chunk;
      lda = k64;
    }
    for (size_t blk = 0; blk < blocks; blk += 2) {
      const size_t nb = blocks - blk < 2 ? blocks - blk : 2;
      for (size_t m0 = 0; m0 < rows; m0 += kOutRows) {
        tile(a + m0 * lda, lda, mc + m0, rows - m0 < kOutRows ? rows - m0 : kOutRows, blk, nb);
      }
    }
  }
  _tile_release();  // the tile state off again: cheaper context switches
}

// An output tile's sums, stored from the tiles but not yet through the epilogue.
struct PendingTile {
  alignas(64) int32_t sums[kOutRows * kOutCols];
  size_t row = 0, mr = 0, n0 = 0, nb = 0;
};

// One scale per row of A. Each tile's epilogue runs after the next tile's products are issued
// (the next tile's sums go to the other buffer), so the vector units may dequantize while the tile
// unit multiplies. Measured, that hides little of it: the epilogue's loads and stores and the
// tiles' loads share the same units (docs/kernels.md).
void gemm_rows(const GemmI8PackedParams& p, size_t k4, size_t k64) {
  PendingTile pending[2];
  size_t current = 0;
  bool previous = false;
  const size_t block_bytes = 16 * k4;
  for_each_output_tile(p, k64, [&](const int8_t* a, size_t lda, size_t row, size_t mr, size_t blk, size_t nb) {
    PendingTile& t = pending[current];
    output_sums(a, lda, mr, p.packed + blk * block_bytes, block_bytes, nb, k4 / 4, t.sums);
    t.row = row, t.mr = mr, t.n0 = blk * 16, t.nb = nb;
    current ^= 1;
    const PendingTile& before = pending[current];
    if (previous) store_sums(p, before.row, before.mr, before.n0, before.nb, before.sums);
    previous = true;
  });
  const PendingTile& last = pending[current ^ 1];
  if (previous) store_sums(p, last.row, last.mr, last.n0, last.nb, last.sums);
}

// Activation blocks: each block of K's sums dequantized and added in the reference's order.
void gemm_blocks(const GemmI8PackedParams& p, size_t k4, size_t k64) {
  const size_t block_bytes = 16 * k4, blocks = gemm_i8_groups(p.k, p.a_block);
  alignas(64) int32_t sums[kOutRows * kOutCols];
  alignas(64) float v[kOutRows * kOutCols];
  for_each_output_tile(p, k64, [&](const int8_t* a, size_t lda, size_t row, size_t mr, size_t blk, size_t nb) {
    const int8_t* b = p.packed + blk * block_bytes;
    for (size_t q = 0; q < blocks; ++q) {
      const size_t kb = q * p.a_block, end = kb + p.a_block < k4 ? kb + p.a_block : k4;
      output_sums(a + kb, lda, mr, b + 16 * kb, block_bytes, nb, (end - kb) / 4, sums);
      add_block(p, q, blocks, row, mr, blk * 16, nb, sums, v);
    }
    store_values(p, row, mr, blk * 16, nb, v);
  });
}

}  // namespace

void gemm_i8_packed(const GemmI8PackedParams& p) {
  if (p.m == 0 || p.n == 0) return;
  const size_t k4 = (p.k + 3) / 4 * 4, k64 = (p.k + kStepBytes - 1) / kStepBytes * kStepBytes;
  const bool fits = k64 > 0 && (rows_in_place(p) || kTileRows * k64 <= kAChunkBytes);
  if (p.m < kMinRows || !fits || p.a_block % kStepBytes != 0) return avx512vnni::gemm_i8_packed(p);
  if (p.a_block == 0) return gemm_rows(p, k4, k64);
  gemm_blocks(p, k4, k64);
}

}  // namespace heed::kernels::amx
