// The loop structure shared by the gemm_i8_packed variants that multiply signed A directly (NEON,
// NEON dotprod, i8mm, armv7, AVX2; the avx512vnni variant has its own, with the a + 128 shift). A
// variant supplies only its integer micro-kernel, a class template over the tile size:
//
//   template <size_t R, size_t NB> struct Kernel {
//     static void run(const int8_t* a, size_t lda, const int8_t* b, size_t block_bytes,
//                     size_t groups, int32_t* out, size_t ldo);
//   };
//
// which writes the exact int32 sums of R rows of A (stride lda) against NB 16-row weight blocks
// (block c at b + c * block_bytes) over `groups` groups of 4 k: out[r * ldo + 16 * c + row].
// The driver copies A, a chunk of rows at a time, into a stack buffer with rows of K rounded up to
// 16 and zero-filled past K, so a micro-kernel may read A 16 bytes at a time and never needs a
// K tail of its own (the packed weights are already zero past K). When K is a multiple of 16 and
// the layout is the plain one (no kAbsCopy, no kPairRows), the kernel reads A's rows in place.
// M = 1 (the decoder's GEMV) takes NB_GEMV blocks per tile, so a single row of A still has
// enough independent accumulators.
// With kAbsCopy each chunk row is followed by |a| (as unsigned bytes) of the same row: the kernel
// gets lda = 2 * (K rounded to 16) and finds |a| at a + lda / 2 (the AVX2 sign trick then
// broadcasts both from memory instead of taking VPABSB per row and group).
// With kPairRows (the i8mm kernel: SMMLA wants 8 k of two rows of A in one register) rows 2i and
// 2i + 1 of the chunk are interleaved 8 bytes at a time over 2 * row_bytes: row 2i's k 0-7, row
// 2i + 1's k 0-7, row 2i's k 8-15, ... The kernel finds pair i at a + 2 * i * lda and loads each
// SMMLA operand of A with one 16-byte load. A chunk with an odd row count gets an all-zero partner
// for its last row, so an odd tile (M odd) reads zeros, never stale or unwritten bytes.
// The epilogue is a policy class (ScalarEpilogue below: the reference's own gemm_store of
// gemm_i8_dequant_row, one value at a time); a variant may pass a vector one that does the same
// operations in the same order (arm/gemm_store_neon.h), so results are equal either way.
// With activation blocks (p.a_block) the micro-kernel runs once per block of K (a_block is a
// multiple of 16, so a block starts on a chunk boundary of every layout) and the driver adds the
// blocks' dequantized sums in the reference's order.
//
// Everything here is `static` and instantiated with a micro-kernel that lives in an anonymous
// namespace, so each variant's file gets its own copy compiled with its own flags (see the note in
// gemm_epilogue.h).
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "internal/gemm_epilogue.h"

namespace heed::kernels {

constexpr size_t kPackedAChunkBytes = 32 * 1024;
constexpr size_t kPackedMaxCols = 16 * 8;  // output columns of one tile (NB or NB_GEMV blocks of 16) at most

// Kernel<r, nb>::run for a runtime r in [1, R] and nb in [1, NB]: the full tile is the common
// case, the smaller ones are the edges of M and N.
template <template <size_t, size_t> class Kernel, size_t R, size_t NB, class... Args>
static inline void packed_tile_nb(size_t nb, Args... args) {
  if constexpr (NB > 1) {
    if (nb < NB) return packed_tile_nb<Kernel, R, NB - 1>(nb, args...);
  }
  Kernel<R, NB>::run(args...);
}

template <template <size_t, size_t> class Kernel, size_t R, size_t NB, class... Args>
static inline void packed_tile(size_t r, size_t nb, Args... args) {
  if constexpr (R > 1) {
    if (r < R) return packed_tile<Kernel, R - 1, NB>(r, nb, args...);
  }
  packed_tile_nb<Kernel, R, NB>(nb, args...);
}

// The slot's contract on A (kernels.h: [-127, 127], what quantize_rows_i8 writes), checked in
// debug builds as A is copied: a -128 would make the NEON kernels' int16 pairs wrap.
static inline void assert_a_in_range([[maybe_unused]] const int8_t* a, [[maybe_unused]] size_t n) {
#ifndef NDEBUG
  for (size_t i = 0; i < n; ++i) assert(a[i] != -128 && "gemm_i8_packed: A outside [-127, 127]");
#endif
}

// Copies rows [mc, mc + rows) of A into the chunk in the layout the micro-kernel reads (see the
// top of this file): rows of K rounded to 16, zero-filled; with kAbsCopy |a| after each row; with
// kPairRows pairs of rows interleaved 8 bytes at a time.
template <bool kAbsCopy, bool kPairRows>
static inline void packed_copy_a(const GemmI8PackedParams& p, size_t mc, size_t rows, size_t k16, size_t row_bytes,
                                 int8_t* chunk) {
  if (kPairRows) {
    for (size_t r = 0; r < rows + rows % 2; ++r) {  // the odd last row's partner: zeros
      int8_t* piece = chunk + (r - r % 2) * row_bytes + 8 * (r % 2);
      const int8_t* src = r < rows ? p.a + (mc + r) * p.lda : nullptr;
      for (size_t k0 = 0; k0 < k16; k0 += 8, piece += 16) {
        const size_t n = src != nullptr && k0 < p.k ? (p.k - k0 < 8 ? p.k - k0 : 8) : 0;
        if (n == 8) {
          std::memcpy(piece, src + k0, 8);  // a constant size: one 8-byte move, no call into libc
        } else {
          for (size_t i = 0; i < 8; ++i) piece[i] = i < n ? src[k0 + i] : 0;
        }
        assert_a_in_range(piece, n);
      }
    }
    return;
  }
  for (size_t r = 0; r < rows; ++r) {
    int8_t* row = chunk + r * row_bytes;
    std::memcpy(row, p.a + (mc + r) * p.lda, p.k);
    assert_a_in_range(row, p.k);
    std::memset(row + p.k, 0, k16 - p.k);
    if (kAbsCopy) {
      for (size_t i = 0; i < k16; ++i)  // |-128| = 128 as an unsigned byte
        row[k16 + i] = static_cast<int8_t>(static_cast<uint8_t>(row[i] < 0 ? -row[i] : row[i]));
    }
  }
}

// The reference's epilogue, one value at a time. An epilogue writes C's rows [row, row + mr),
// columns [n0, n0 + cols): store_sums from int32 sums (per-row scales: sums[i * ld + j] times
// a_scales[row + i] * b_scales[n0 + j]), store_floats from values already dequantized (activation
// blocks); then bias, activation and accumulate, as gemm_store does them.
struct ScalarEpilogue {
  static void store_sums(const GemmI8PackedParams& p, const int32_t* sums, size_t ld, size_t row, size_t mr,
                         size_t n0, size_t cols) {
    for (size_t i = 0; i < mr; ++i)
      for (size_t j = 0; j < cols; ++j)
        gemm_store(gemm_i8_dequant_row(sums[i * ld + j], p.a_scales[row + i], p.b_scales[n0 + j]), p.bias,
                   p.activation, p.accumulate, p.c + (row + i) * p.ldc + n0 + j, n0 + j);
  }
  static void store_floats(const GemmI8PackedParams& p, const float* acc, size_t ld, size_t row, size_t mr,
                           size_t n0, size_t cols) {
    for (size_t i = 0; i < mr; ++i)
      for (size_t j = 0; j < cols; ++j)
        gemm_store(acc[i * ld + j], p.bias, p.activation, p.accumulate, p.c + (row + i) * p.ldc + n0 + j, n0 + j);
  }
};

// Rows [mc, mc + rows) of A as the micro-kernel reads them; *lda their stride. In place when the
// plain layout needs no padding (K a multiple of 16: the kernels' 16-byte reads stay in the row),
// else copied into the chunk.
template <bool kAbsCopy, bool kPairRows>
static inline const int8_t* packed_rows_of_a(const GemmI8PackedParams& p, size_t mc, size_t rows, size_t k16,
                                             size_t row_bytes, int8_t* chunk, size_t* lda) {
  if (!kAbsCopy && !kPairRows && p.k % 16 == 0) {
    for (size_t r = 0; r < rows; ++r) assert_a_in_range(p.a + (mc + r) * p.lda, p.k);
    *lda = p.lda;
    return p.a + mc * p.lda;
  }
  packed_copy_a<kAbsCopy, kPairRows>(p, mc, rows, k16, row_bytes, chunk);
  *lda = row_bytes;
  return chunk;
}

// One tile of output: rows [row, row + mr) of C against weight blocks from n0 (cols columns).
// `tile(a_offset, b_offset, groups)` leaves the int32 sums over those k in sums[i * ld + j]. One
// scale per row of A: one call over all of K. Activation blocks: one call per block of K, each
// dequantized with its block's scale and added in order (as the reference adds them).
template <class Epilogue, class Tile>
static inline void packed_output_tile(const GemmI8PackedParams& p, Tile tile, size_t row, size_t mr, size_t n0,
                                      size_t cols, size_t k4, size_t a_step, const int32_t* sums, float* acc,
                                      size_t ld) {
  if (p.a_block == 0) {
    tile(0, 0, k4 / 4);
    Epilogue::store_sums(p, sums, ld, row, mr, n0, cols);
    return;
  }
  const size_t blocks = gemm_i8_groups(p.k, p.a_block);
  for (size_t q = 0; q < blocks; ++q) {
    const size_t kb = q * p.a_block, end = kb + p.a_block < k4 ? kb + p.a_block : k4;
    tile(a_step * kb, 16 * kb, (end - kb) / 4);  // 16 kb: k groups of 4 are 64-byte units
    float block_scales[kPackedMaxCols];  // weights quantized per block: this block's scales
    const float* b_scales = p.b_scales + n0;
    if (p.b_scales_per_block) {
      for (size_t j = 0; j < cols; ++j) block_scales[j] = p.b_scales[(n0 + j) * blocks + q];
      b_scales = block_scales;
    }
    for (size_t i = 0; i < mr; ++i) {  // straight loops over j: the compiler vectorizes them
      const float a_scale = p.a_scales[(row + i) * blocks + q];
      const int32_t* s = sums + i * ld;
      float* v = acc + i * ld;
      if (q == 0) {
        for (size_t j = 0; j < cols; ++j) v[j] = gemm_i8_dequant_row(s[j], a_scale, b_scales[j]);
      } else {
        for (size_t j = 0; j < cols; ++j) v[j] = gemm_i8_dequant_add(v[j], s[j], a_scale, b_scales[j]);
      }
    }
  }
  Epilogue::store_floats(p, acc, ld, row, mr, n0, cols);
}

template <template <size_t, size_t> class Kernel, size_t MR, size_t NB, size_t NB_GEMV,
          bool kAbsCopy = false, bool kPairRows = false, class Epilogue = ScalarEpilogue>
static void gemm_i8_packed_blocked(const GemmI8PackedParams& p) {
  static_assert(!(kAbsCopy && kPairRows), "one chunk layout at a time");
  static_assert(!kPairRows || MR % 2 == 0, "pairs of rows: tiles start on even rows");
  if (p.m == 0 || p.n == 0) return;
  const size_t k4 = (p.k + 3) / 4 * 4, k16 = (p.k + 15) / 16 * 16;
  const size_t row_bytes = kAbsCopy ? 2 * k16 : k16;  // one row of A in the chunk
  const size_t min_rows = kPairRows ? 2 : 1;          // what the chunk must hold at least
  if (k4 == 0 || min_rows * row_bytes > kPackedAChunkBytes) {  // too long: the reference's loop
    ref::gemm_i8_packed(p);
    return;
  }
  constexpr size_t kCols = 16 * (NB > NB_GEMV ? NB : NB_GEMV);
  static_assert(kCols <= kPackedMaxCols, "a tile's columns fit the block scales buffer");
  const size_t block_bytes = 16 * k4, blocks = (p.n + 15) / 16;
  const size_t a_step = kPairRows ? 2 : 1;  // chunk bytes per k of A (pairs interleave two rows)
  alignas(64) int8_t chunk[kPackedAChunkBytes];
  alignas(64) int32_t sums[MR * kCols];
  alignas(64) float acc[MR * kCols];  // activation blocks: the dequantized sum so far
  size_t chunk_rows = kPackedAChunkBytes / row_bytes;
  if (chunk_rows >= MR) chunk_rows -= chunk_rows % MR;
  if (kPairRows) chunk_rows -= chunk_rows % 2;  // room for the zero partner of an odd last row
  for (size_t mc = 0; mc < p.m; mc += chunk_rows) {
    const size_t rows = p.m - mc < chunk_rows ? p.m - mc : chunk_rows;
    size_t lda = 0;
    const int8_t* a_rows = packed_rows_of_a<kAbsCopy, kPairRows>(p, mc, rows, k16, row_bytes, chunk, &lda);
    const size_t nb_step = rows == 1 ? NB_GEMV : NB;
    // Weight blocks outer, rows of A inner: a block (16 * k4 bytes) stays in cache for the chunk.
    for (size_t blk = 0; blk < blocks; blk += nb_step) {
      const size_t nb = blocks - blk < nb_step ? blocks - blk : nb_step;
      const int8_t* b = p.packed + blk * block_bytes;
      for (size_t m0 = 0; m0 < rows; m0 += MR) {
        const size_t mr = rows - m0 < MR ? rows - m0 : MR;
        const int8_t* a = a_rows + m0 * lda;
        const auto tile = [&](size_t a_offset, size_t b_offset, size_t groups) {
          if (rows == 1) {
            packed_tile<Kernel, 1, NB_GEMV>(1, nb, a + a_offset, lda, b + b_offset, block_bytes, groups, &sums[0],
                                            kCols);
          } else {
            packed_tile<Kernel, MR, NB>(mr, nb, a + a_offset, lda, b + b_offset, block_bytes, groups, &sums[0],
                                        kCols);
          }
        };
        const size_t n0 = blk * 16, cols = p.n - n0 < 16 * nb ? p.n - n0 : 16 * nb;
        packed_output_tile<Epilogue>(p, tile, mc + m0, mr, n0, cols, k4, a_step, sums, acc, kCols);
      }
    }
  }
}

}  // namespace heed::kernels
