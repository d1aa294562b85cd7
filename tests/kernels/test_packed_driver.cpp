// The shared gemm_i8_packed driver (kernels/internal/gemm_i8_packed_driver.h) with a scalar
// micro-kernel, on every target (and under ASan on the host): the A chunk layouts the SIMD
// kernels rely on, here checked byte by byte. The pair-interleaved chunk (kPairRows) is what the
// i8mm SMMLA kernel reads; only an aarch64 CPU with I8MM runs that kernel itself, so this is where
// the x86 sanitizer builds see its chunk copies and tile edges.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "internal/gemm_i8_packed_driver.h"
#include "kernel_test_util.h"

using namespace heed::kernels;
using heed::kernels::test::random_f32;
using heed::kernels::test::random_i8;

namespace {

size_t g_bad_partner_bytes = 0;  // nonzero bytes seen in the zero partner of an odd last row

// Reads A through the pair-interleaved chunk layout (row 2i + s's k at pair i, byte
// 16 * (k / 8) + 8 * s + k % 8) and the weights through the 16x4 formula.
template <size_t R, size_t NB>
struct PairRowsKernel {
  static void run(const int8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups,
                  int32_t* out, size_t ldo) {
    auto a_at = [&](size_t r, size_t k) { return a[(r / 2) * 2 * lda + 16 * (k / 8) + 8 * (r % 2) + k % 8]; };
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < NB; ++c)
        for (size_t row = 0; row < 16; ++row) {
          int32_t sum = 0;
          for (size_t k = 0; k < 4 * groups; ++k)
            sum += int32_t{a_at(r, k)} * int32_t{b[c * block_bytes + (k / 4) * 64 + row * 4 + k % 4]};
          out[r * ldo + 16 * c + row] = sum;
        }
    if (R % 2 == 1) {  // the partner row R: zeroed as far as a kernel reads (16 bytes at a time)
      const size_t reach = (4 * groups + 15) / 16 * 16;
      for (size_t k = 0; k < std::min(lda, reach); ++k) g_bad_partner_bytes += a_at(R, k) != 0;
    }
  }
};

// The plain layout (row r at a + r * lda) for comparison.
template <size_t R, size_t NB>
struct RowsKernel {
  static void run(const int8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups,
                  int32_t* out, size_t ldo) {
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < NB; ++c)
        for (size_t row = 0; row < 16; ++row) {
          int32_t sum = 0;
          for (size_t k = 0; k < 4 * groups; ++k)
            sum += int32_t{a[r * lda + k]} * int32_t{b[c * block_bytes + (k / 4) * 64 + row * 4 + k % 4]};
          out[r * ldo + 16 * c + row] = sum;
        }
  }
};

template <void (*Gemm)(const GemmI8PackedParams&)>
void check_driver(size_t m, size_t n, size_t k, size_t a_block = 0, bool b_per_block = false) {
  const size_t lda = k + 3, ldc = n + 1, blocks = a_block == 0 ? 1 : (k + a_block - 1) / a_block;
  auto a = random_i8(m * lda, -127, 127), b = random_i8(n * k, -128, 127);  // A: the slot's range
  auto as = random_f32(m * blocks, 0.001f, 0.05f), bias = random_f32(n);
  auto bs = random_f32(b_per_block ? n * blocks : n, 0.001f, 0.05f);
  std::vector<int8_t> packed(packed_i8_16x4_bytes(n, k));
  std::vector<int32_t> sums(n);
  pack_i8_16x4(b.data(), n, k, k, packed.data(), sums.data());
  std::vector<float> want(m * ldc, 0.5f), got = want;
  GemmI8PackedParams q;
  q.m = m; q.n = n; q.k = k; q.a = a.data(); q.lda = lda; q.a_scales = as.data(); q.a_block = a_block; q.b_scales_per_block = b_per_block;
  q.packed = packed.data(); q.row_sums = sums.data(); q.b_scales = bs.data(); q.bias = bias.data();
  q.activation = Activation::kRelu; q.c = want.data(); q.ldc = ldc;
  reference().gemm_i8_packed(q);
  q.c = got.data();
  Gemm(q);
  INFO("m " << m << " n " << n << " k " << k << " a_block " << a_block);
  REQUIRE(got == want);
}

void pair_rows(const GemmI8PackedParams& p) { gemm_i8_packed_blocked<PairRowsKernel, 8, 1, 2, false, true>(p); }
void plain_rows(const GemmI8PackedParams& p) { gemm_i8_packed_blocked<RowsKernel, 4, 1, 3>(p); }

}  // namespace

TEST_CASE("gemm_i8_packed driver: pair-interleaved and plain A chunks, tile and chunk edges",
          "[gemm_i8_packed][driver]") {
  g_bad_partner_bytes = 0;
  for (size_t m : {1, 2, 3, 5, 7, 8, 9, 16, 17})
    for (size_t n : {5, 33, 81})
      for (size_t k : {1, 4, 8, 12, 13, 64, 99}) {
        check_driver<pair_rows>(m, n, k);
        check_driver<plain_rows>(m, n, k);
      }
  // Few rows per chunk: 16384-byte rows (two per chunk), 5000 (six, under the 8-row tile).
  for (size_t m : {3, 5}) check_driver<pair_rows>(m, 3, 16384);
  for (size_t m : {7, 13}) check_driver<pair_rows>(m, 3, 5000);
  // Rows too long for two in a chunk: the reference loop; for one: the plain driver still runs.
  check_driver<pair_rows>(3, 3, 16400);
  check_driver<plain_rows>(3, 3, 16400);
  // Activation blocks: the micro-kernel runs per block of K, from each block's place in the chunk
  // (pairs of rows: two bytes of chunk per k).
  for (size_t a_block : {16, 32, 64})
    for (size_t m : {1, 2, 3, 8, 9})
      for (size_t k : {13, 64, 99, 200}) {
        check_driver<pair_rows>(m, 33, k, a_block);
        check_driver<plain_rows>(m, 33, k, a_block, true);
      }
  CHECK(g_bad_partner_bytes == 0);
}
