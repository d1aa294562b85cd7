// Every SIMD variant's quantize/GEMM kernels against the scalar reference, over odd and even
// shapes, strides, extreme values, zero rows, per-group scales, bias, activations, accumulation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernel_test_util.h"

using namespace heed::kernels;
using heed::kernels::test::close;
using heed::kernels::test::random_f32;
using heed::kernels::test::random_i8;
using heed::kernels::test::simd_variants;

namespace {

const Activation kActs[] = {Activation::kNone, Activation::kRelu, Activation::kGelu,
                            Activation::kGeluTanh, Activation::kSilu};

// kPairLimit: A in [-127, -126] against weights in [-128, -127], the packed kernels' worst case (its
// A comes from quantize_rows_i8: [-127, 127]; NEON sums two products in int16, 2 * 127 * 128 =
// 32512 at most).
enum class Fill { kRandom, kExtremes, kMinus128InA, kMinus128Both, kPairLimit };

struct GemmCase {
  size_t m, n, k;
  size_t group = 0;
  bool bias = false;
  Activation act = Activation::kNone;
  bool accumulate = false;
  Fill fill = Fill::kRandom;
  bool zero_row = false;  // A's row 0 all zero with scale 0 (an all-zero activation row)
  size_t pad = 0;         // extra elements in every row stride
};

// Runs one case on `variant` and on the reference and compares. The int32 sums are exact in
// both, so the only difference allowed is float rounding in the epilogue.
void check_gemm_i8(const KernelTable& variant, const GemmCase& g) {
  const size_t lda = g.k + g.pad, ldb = g.k + g.pad, ldc = g.n + g.pad;
  std::vector<int8_t> a, b;
  switch (g.fill) {
    case Fill::kRandom:
      a = random_i8(g.m * lda);
      b = random_i8(g.n * ldb);
      break;
    case Fill::kExtremes:  // only +-127: the largest sums the API allows
      a = random_i8(g.m * lda, 0, 1);
      b = random_i8(g.n * ldb, 0, 1);
      for (auto& v : a) v = v ? 127 : -127;
      for (auto& v : b) v = v ? 127 : -127;
      break;
    case Fill::kMinus128InA:
      a = random_i8(g.m * lda, -128, -126);
      b = random_i8(g.n * ldb, -127, 127);
      break;
    case Fill::kMinus128Both:
      a = random_i8(g.m * lda, -128, -127);
      b = random_i8(g.n * ldb, -128, -127);
      break;
    case Fill::kPairLimit:
      a = random_i8(g.m * lda, -127, -126);
      b = random_i8(g.n * ldb, -128, -127);
      break;
  }
  auto as = random_f32(g.m, 0.001f, 0.05f);
  if (g.zero_row) {
    for (size_t k = 0; k < g.k; ++k) a[k] = 0;
    as[0] = 0.0f;
  }
  const size_t groups = g.group ? (g.k + g.group - 1) / g.group : 1;
  auto bs = random_f32(g.n * groups, 0.001f, 0.05f);
  auto bias = random_f32(g.n);
  auto c0 = random_f32(g.m * ldc, -2.0f, 2.0f);
  auto c_ref = c0, c_var = c0;

  GemmI8Params p;
  p.m = g.m; p.n = g.n; p.k = g.k;
  p.a = a.data(); p.lda = lda; p.a_scales = as.data();
  p.b = b.data(); p.ldb = ldb; p.b_scales = bs.data(); p.group_size = g.group;
  p.bias = g.bias ? bias.data() : nullptr;
  p.activation = g.act;
  p.accumulate = g.accumulate;
  p.c = c_ref.data(); p.ldc = ldc;
  reference().gemm_i8(p);
  p.c = c_var.data();
  variant.gemm_i8(p);

  for (size_t m = 0; m < g.m; ++m) {
    for (size_t n = 0; n < g.n; ++n) {
      // The error scale: the sum of |terms| of the dequantized dot product plus bias and C.
      double mag = 0;
      for (size_t k = 0; k < g.k; ++k) {
        const size_t gi = g.group ? k / g.group : 0;
        mag += std::fabs(double(a[m * lda + k]) * b[n * ldb + k] * as[m] * bs[n * groups + gi]);
      }
      mag += std::fabs(bias[n]) + std::fabs(c0[m * ldc + n]) + 1e-20;
      const float want = c_ref[m * ldc + n], got = c_var[m * ldc + n];
      if (!close(got, want, mag, 1e-5)) {
        FAIL(isa_name(variant.isa) << " gemm_i8 m=" << g.m << " n=" << g.n << " k=" << g.k
                                   << " group=" << g.group << " act=" << int(g.act)
                                   << " acc=" << g.accumulate << " bias=" << g.bias
                                   << " fill=" << int(g.fill) << " at (" << m << "," << n
                                   << "): got " << got << " want " << want);
      }
    }
    // Padding columns of C are never written.
    for (size_t n = g.n; n < ldc; ++n) REQUIRE(c_var[m * ldc + n] == c0[m * ldc + n]);
  }
}

const size_t kDims[] = {1, 3, 17, 64};
const size_t kKs[] = {1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 513};

}  // namespace

TEST_CASE("gemm_i8 variants match the reference over shapes", "[variants][gemm_i8]") {
  for (const KernelTable* v : simd_variants()) {
    for (size_t m : kDims)
      for (size_t n : kDims)
        for (size_t k : kKs) {
          if (m * n * k > 64 * 17 * 257) continue;  // keep emulated runs short
          check_gemm_i8(*v, GemmCase{m, n, k});
        }
    check_gemm_i8(*v, GemmCase{64, 64, 1024});
    // Long K: past the avx512vnni variant's on-stack chunk of shifted A rows (K > 8192 takes its
    // other path), with per-row and per-group scales.
    check_gemm_i8(*v, GemmCase{3, 5, 8200});
    check_gemm_i8(*v, GemmCase{2, 6, 8256, 64, true, Activation::kRelu, true});
    // Many rows: more than one chunk of A rows, full and partial 4 x 4 tiles, M = 1 (the GEMV
    // path) with every epilogue.
    check_gemm_i8(*v, GemmCase{130, 9, 600, 0, true, Activation::kNone, true});
    for (Activation act : kActs) check_gemm_i8(*v, GemmCase{1, 37, 200, 0, true, act, true});
    check_gemm_i8(*v, GemmCase{5, 11, 2048, 0, true, Activation::kNone, true});
  }
}

TEST_CASE("gemm_i8 variants: epilogue (bias, activations, accumulate), strides, zero rows",
          "[variants][gemm_i8]") {
  for (const KernelTable* v : simd_variants()) {
    for (Activation act : kActs)
      for (bool bias : {false, true})
        for (bool acc : {false, true}) {
          check_gemm_i8(*v, GemmCase{3, 17, 65, 0, bias, act, acc});
          check_gemm_i8(*v, GemmCase{4, 9, 96, 32, bias, act, acc});
        }
    for (size_t pad : {1, 3, 16}) check_gemm_i8(*v, GemmCase{5, 7, 45, 0, true, Activation::kNone, false, Fill::kRandom, false, pad});
    check_gemm_i8(*v, GemmCase{3, 5, 40, 0, true, Activation::kGelu, true, Fill::kRandom, true});
    check_gemm_i8(*v, GemmCase{3, 5, 40, 8, true, Activation::kNone, false, Fill::kRandom, true});
  }
}

TEST_CASE("gemm_i8 variants: per-group scales", "[variants][gemm_i8]") {
  for (const KernelTable* v : simd_variants()) {
    for (size_t group : {4, 8, 12, 16, 32, 64, 128})
      for (size_t k : {4, 16, 33, 64, 100, 128, 129, 256, 300}) {
        check_gemm_i8(*v, GemmCase{3, 17, k, group});
        check_gemm_i8(*v, GemmCase{1, 64, k, group, true, Activation::kSilu, true, Fill::kRandom, false, 5});
      }
  }
}

TEST_CASE("gemm_i8 variants: values at +-127 give exact extreme sums", "[variants][gemm_i8]") {
  for (const KernelTable* v : simd_variants()) {
    for (size_t k : {1, 16, 33, 256, 1000, 4096}) {
      check_gemm_i8(*v, GemmCase{3, 5, k, 0, false, Activation::kNone, false, Fill::kExtremes});
      check_gemm_i8(*v, GemmCase{2, 3, k, 32, false, Activation::kNone, false, Fill::kExtremes});
    }
    // All-equal signs: sum = 127 * 127 * K exactly, no saturation anywhere.
    const size_t K = 4096;
    std::vector<int8_t> a(K, 127), b(K, -127);
    float one = 1.0f, c = 0.0f;
    GemmI8Params p;
    p.m = 1; p.n = 1; p.k = K; p.a = a.data(); p.lda = K; p.a_scales = &one;
    p.b = b.data(); p.ldb = K; p.b_scales = &one; p.c = &c; p.ldc = 1;
    v->gemm_i8(p);
    CHECK(c == -127.0f * 127.0f * K);
  }
}

// The API promises [-127, 127]. What each variant does outside it, so nobody relies on more:
// -128 in A is exact everywhere (x86's u8*s8 sign trick takes |a| = 128 as an unsigned byte);
// -128 in B is exact on ARM (signed x signed multiplies) but not on x86, where the sign trick
// negates B and -(-128) wraps.
TEST_CASE("gemm_i8 variants: -128 handling as documented", "[variants][gemm_i8]") {
  for (const KernelTable* v : simd_variants()) {
    for (size_t k : {5, 64, 67, 300})
      check_gemm_i8(*v, GemmCase{3, 7, k, 0, false, Activation::kNone, false, Fill::kMinus128InA});
    const bool x86 = v->isa == Isa::kAvx2 || v->isa == Isa::kAvx512Vnni;
    if (!x86) {
      for (size_t k : {5, 64, 67, 300})
        check_gemm_i8(*v, GemmCase{3, 7, k, 0, false, Activation::kNone, false, Fill::kMinus128Both});
    }
  }
}

TEST_CASE("quantize_rows_i8 variants match the reference exactly", "[variants][quantize]") {
  for (const KernelTable* v : simd_variants()) {
    for (size_t rows : {1, 3, 8, 16, 37})  // 16 and 37: the AVX-512 variant's groups of 16 short rows
      for (size_t cols : {1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 64, 65, 100, 257, 1024}) {
        const size_t ldx = cols + 3, ldq = cols + 5;
        auto x = random_f32(rows * ldx, -5.0f, 5.0f);
        // Exact ties at half steps: row 0 has max 127 so its scale is 1.
        if (rows > 1 && cols > 4) {
          x[0] = 127.0f; x[1] = 0.5f; x[2] = -2.5f; x[3] = 63.5f;
        }
        if (rows > 2) for (size_t c = 0; c < cols; ++c) x[2 * ldx + c] = 0.0f;  // zero row
        if (rows > 20) for (size_t c = 0; c < cols; ++c) x[20 * ldx + c] = 0.0f;  // one in a later group
        std::vector<int8_t> q_ref(rows * ldq, 77), q_var(rows * ldq, 77);
        std::vector<float> s_ref(rows), s_var(rows);
        reference().quantize_rows_i8(x.data(), rows, cols, ldx, q_ref.data(), ldq, s_ref.data());
        v->quantize_rows_i8(x.data(), rows, cols, ldx, q_var.data(), ldq, s_var.data());
        INFO(isa_name(v->isa) << " rows " << rows << " cols " << cols);
        REQUIRE(s_var == s_ref);
        REQUIRE(q_var == q_ref);  // includes the untouched padding bytes (77)
      }
  }
}

// Rounding at and next to every half step: rows whose largest value is 127 (scale 1, so x * 127 /
// max is x itself) holding n + 0.5 and its float neighbours, 4 ulps either way, for every n in
// [-128, 127), and +-0.49999997, the value that adding 0.5 before truncating would misround.
TEST_CASE("quantize_rows_i8 variants round values next to half steps as the reference", "[variants][quantize]") {
  std::vector<float> values = {0.49999997f, -0.49999997f};
  for (int n = -128; n < 127; ++n) {
    float v = static_cast<float>(n) + 0.5f;
    for (int i = 0; i < 4; ++i) v = std::nextafter(v, -1000.0f);
    for (int i = 0; i < 9; ++i, v = std::nextafter(v, 1000.0f)) values.push_back(v);
  }
  // 32: an activation block (the AVX-512 variant's short-row path); 512: a whole row of K.
  for (const size_t cols : {size_t{32}, size_t{512}}) {
    const size_t rows = (values.size() + cols - 2) / (cols - 1);
    std::vector<float> x(rows * cols, 0.0f);
    for (size_t r = 0; r < rows; ++r) x[r * cols] = 127.0f;
    for (size_t i = 0; i < values.size(); ++i) x[(i / (cols - 1)) * cols + 1 + i % (cols - 1)] = values[i];
    std::vector<int8_t> q_ref(x.size()), q_var(x.size());
    std::vector<float> s_ref(rows), s_var(rows);
    reference().quantize_rows_i8(x.data(), rows, cols, cols, q_ref.data(), cols, s_ref.data());
    for (const KernelTable* v : simd_variants()) {
      v->quantize_rows_i8(x.data(), rows, cols, cols, q_var.data(), cols, s_var.data());
      INFO(isa_name(v->isa) << " cols " << cols);
      REQUIRE(s_var == s_ref);
      REQUIRE(q_var == q_ref);
    }
  }
}

TEST_CASE("gemm_f32 and gemm_f16 variants match the reference", "[variants][gemm_f]") {
  for (const KernelTable* v : simd_variants()) {
    for (size_t m : {1, 3, 17})
      for (size_t n : {1, 3, 17, 64})
        for (size_t k : {1, 3, 8, 15, 16, 17, 33, 64, 100, 257}) {
          const Activation act = kActs[(m + n + k) % 5];
          const bool acc = (k % 2) == 1, with_bias = (n % 2) == 1;
          const size_t lda = k + 1, ldb = k + 2, ldc = n + 1;
          auto a = random_f32(m * lda);
          auto b = random_f32(n * ldb);
          std::vector<uint16_t> bh(b.size());
          reference().f32_to_f16(b.data(), bh.data(), b.size());
          auto bias = random_f32(n);
          auto c0 = random_f32(m * ldc);
          auto r32 = c0, v32 = c0, r16 = c0, v16 = c0;
          GemmF32Params p;
          p.m = m; p.n = n; p.k = k; p.a = a.data(); p.lda = lda; p.b = b.data(); p.ldb = ldb;
          p.bias = with_bias ? bias.data() : nullptr; p.activation = act; p.accumulate = acc;
          p.ldc = ldc;
          p.c = r32.data();
          reference().gemm_f32(p);
          p.c = v32.data();
          v->gemm_f32(p);
          GemmF16Params h;
          h.m = m; h.n = n; h.k = k; h.a = a.data(); h.lda = lda; h.b = bh.data(); h.ldb = ldb;
          h.bias = p.bias; h.activation = act; h.accumulate = acc; h.ldc = ldc;
          h.c = r16.data();
          reference().gemm_f16(h);
          h.c = v16.data();
          v->gemm_f16(h);
          for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < ldc; ++j) {
              double mag = std::fabs(bias[j % n]) + std::fabs(c0[i * ldc + j]);
              for (size_t t = 0; t < k && j < n; ++t) mag += std::fabs(double(a[i * lda + t]) * b[j * ldb + t]);
              INFO(isa_name(v->isa) << " m " << m << " n " << n << " k " << k << " at " << i << "," << j);
              REQUIRE(close(v32[i * ldc + j], r32[i * ldc + j], mag, 1e-5));
              REQUIRE(close(v16[i * ldc + j], r16[i * ldc + j], mag, 1e-5));
            }
        }
  }
}

TEST_CASE("pack_i8_16x4 places every byte by the documented formula", "[gemm_i8_packed]") {
  for (size_t n : {1, 15, 16, 17, 40})
    for (size_t k : {1, 3, 4, 5, 64, 70}) {
      const size_t ldb = k + 2, k4 = (k + 3) / 4 * 4, n16 = (n + 15) / 16 * 16;
      auto b = random_i8(n * ldb, -128, 127);
      REQUIRE(packed_i8_16x4_bytes(n, k) == n16 * k4);
      std::vector<int8_t> packed(packed_i8_16x4_bytes(n, k), 99);
      std::vector<int32_t> sums(n);
      pack_i8_16x4(b.data(), n, k, ldb, packed.data(), sums.data());
      for (size_t r = 0; r < n16; ++r) {
        int32_t want_sum = 0;
        for (size_t i = 0; i < k4; ++i) {
          const int8_t want = r < n && i < k ? b[r * ldb + i] : 0;
          if (r < n && i < k) want_sum += want;
          REQUIRE(packed[((r / 16) * (k4 / 4) + i / 4) * 64 + (r % 16) * 4 + i % 4] == want);
        }
        if (r < n) REQUIRE(sums[r] == want_sum);
      }
    }
}

namespace {

// Every table with its own gemm_i8_packed, the reference first.
std::vector<const KernelTable*> packed_tables() {
  std::vector<const KernelTable*> tables = simd_variants();
  tables.insert(tables.begin(), &reference());
  return tables;
}

struct PackedCase {
  size_t m, n, k;
  bool bias = true;
  Activation act = Activation::kNone;
  bool accumulate = false;
  Fill fill = Fill::kRandom;
  bool zero_row = false;  // A's row 0 all zero with scale 0
  size_t pad = 0;         // extra elements in the row strides of A, B and C
};

// Packs B, runs `t`'s gemm_i8_packed and compares with the reference gemm_i8 on the unpacked B:
// exact int32 sums and the same epilogue operations, so the floats must be identical.
void check_packed(const KernelTable& t, const PackedCase& g) {
  const size_t lda = g.k + g.pad + 3, ldb = g.k + g.pad + 1, ldc = g.n + g.pad + 2;
  std::vector<int8_t> a, b;
  switch (g.fill) {
    case Fill::kRandom:
      a = random_i8(g.m * lda);
      b = random_i8(g.n * ldb);
      break;
    case Fill::kExtremes:
      a = random_i8(g.m * lda, 0, 1);
      b = random_i8(g.n * ldb, 0, 1);
      for (auto& v : a) v = v ? 127 : -127;
      for (auto& v : b) v = v ? 127 : -127;
      break;
    case Fill::kPairLimit:
      a = random_i8(g.m * lda, -127, -126);
      b = random_i8(g.n * ldb, -128, -127);
      break;
    default:
      FAIL("-128 in A is outside gemm_i8_packed's contract");
  }
  auto as = random_f32(g.m, 0.001f, 0.05f), bs = random_f32(g.n, 0.001f, 0.05f);
  if (g.zero_row) {
    for (size_t k = 0; k < g.k; ++k) a[k] = 0;
    as[0] = 0.0f;
  }
  auto bias = random_f32(g.n);
  auto c0 = random_f32(g.m * ldc, -2.0f, 2.0f);
  std::vector<int8_t> packed(packed_i8_16x4_bytes(g.n, g.k));
  std::vector<int32_t> sums(g.n);
  pack_i8_16x4(b.data(), g.n, g.k, ldb, packed.data(), sums.data());
  auto want = c0, got = c0;
  GemmI8Params p;
  p.m = g.m; p.n = g.n; p.k = g.k; p.a = a.data(); p.lda = lda; p.a_scales = as.data();
  p.b = b.data(); p.ldb = ldb; p.b_scales = bs.data(); p.bias = g.bias ? bias.data() : nullptr;
  p.activation = g.act; p.accumulate = g.accumulate; p.c = want.data(); p.ldc = ldc;
  reference().gemm_i8(p);
  GemmI8PackedParams q;
  q.m = g.m; q.n = g.n; q.k = g.k; q.a = a.data(); q.lda = lda; q.a_scales = as.data();
  q.packed = packed.data(); q.row_sums = sums.data(); q.b_scales = bs.data(); q.bias = p.bias;
  q.activation = g.act; q.accumulate = g.accumulate; q.c = got.data(); q.ldc = ldc;
  t.gemm_i8_packed(q);
  INFO(isa_name(t.isa) << " gemm_i8_packed m " << g.m << " n " << g.n << " k " << g.k << " bias "
                       << g.bias << " act " << int(g.act) << " acc " << g.accumulate << " fill "
                       << int(g.fill) << " zero_row " << g.zero_row << " pad " << g.pad);
  REQUIRE(got == want);  // padding columns of C included: never written
}

// Activation blocks: every table (the reference included) against the definition in kernels.h,
// computed here from the unpacked matrices: exact int32 sums per block of K, the first block's
// product, then one fused multiply-add per further block, then bias and ReLU.
void check_packed_blocks(const KernelTable& t, size_t m, size_t n, size_t k, size_t a_block, bool block_sums,
                         bool b_per_block = false) {
  const size_t blocks = (k + a_block - 1) / a_block, lda = k + 5, ldc = n + 3;
  const auto a = random_i8(m * lda), b = random_i8(n * k);
  const auto as = random_f32(m * blocks, 0.001f, 0.05f), bias = random_f32(n);
  const auto bs = random_f32(b_per_block ? n * blocks : n, 0.001f, 0.05f);
  std::vector<float> want(m * ldc, 0.25f);
  for (size_t r = 0; r < m; ++r)
    for (size_t j = 0; j < n; ++j) {
      float v = 0.0f;
      for (size_t q = 0; q < blocks; ++q) {
        int32_t sum = 0;
        for (size_t i = q * a_block; i < std::min(k, (q + 1) * a_block); ++i) sum += int32_t{a[r * lda + i]} * b[j * k + i];
        const float f = as[r * blocks + q] * (b_per_block ? bs[j * blocks + q] : bs[j]);
        v = q == 0 ? static_cast<float>(sum) * f : std::fma(static_cast<float>(sum), f, v);
      }
      want[r * ldc + j] = std::max(0.0f, v + bias[j]);
    }
  std::vector<int8_t> packed(packed_i8_16x4_bytes(n, k));
  std::vector<int32_t> sums(n);
  pack_i8_16x4(b.data(), n, k, k, packed.data(), sums.data());
  std::vector<float> got(m * ldc, 0.25f);
  GemmI8PackedParams q;
  q.m = m; q.n = n; q.k = k; q.a = a.data(); q.lda = lda; q.a_scales = as.data(); q.a_block = a_block;
  q.packed = packed.data(); q.row_sums = sums.data(); q.b_scales = bs.data(); q.bias = bias.data();
  q.activation = Activation::kRelu; q.c = got.data(); q.ldc = ldc; q.b_scales_per_block = b_per_block;
  // The optional lane tables, checked against sums and scales taken from B itself.
  std::vector<BlockLanes> lanes(block_lanes_count(n, k, a_block));
  pack_block_lanes(packed.data(), n, k, a_block, bs.data(), b_per_block, lanes.data());
  for (size_t j = 0; j < (n + 15) / 16 * 16; ++j)
    for (size_t qb = 0; qb < blocks; ++qb) {
      int32_t sum = 0;
      for (size_t i = qb * a_block; j < n && i < std::min(k, (qb + 1) * a_block); ++i) sum += b[j * k + i];
      const float scale = j >= n ? 0.0f : b_per_block ? bs[j * blocks + qb] : bs[j];
      const BlockLanes& at = lanes[(j / 16) * blocks + qb];
      REQUIRE(at.corrections[j % 16] == 128 * sum);
      REQUIRE(at.scales[j % 16] == scale);
    }
  if (block_sums) q.block_lanes = lanes.data();
  t.gemm_i8_packed(q);
  INFO(isa_name(t.isa) << " gemm_i8_packed a_block " << a_block << " m " << m << " n " << n << " k " << k
                       << " block row sums " << block_sums << " weight scales per block " << b_per_block);
  REQUIRE(got == want);
}

}  // namespace

TEST_CASE("gemm_i8_packed (reference and variants) equals gemm_i8 on the unpacked weights",
          "[variants][gemm_i8_packed]") {
  struct Shape { size_t m, n, k; };
  const Shape shapes[] = {{1, 1, 1},   {1, 37, 200}, {3, 17, 5},   {8, 48, 64},  {8, 50, 67},
                          {9, 100, 300}, {17, 16, 4}, {16, 96, 512}, {130, 49, 33}, {2, 20, 9000}};
  for (const KernelTable* t : packed_tables())
    for (const Shape& s : shapes)
      for (int variant = 0; variant < 3; ++variant) {
        const Activation act = variant == 0 ? Activation::kNone : variant == 1 ? Activation::kRelu : Activation::kGelu;
        check_packed(*t, PackedCase{s.m, s.n, s.k, variant != 1, act, variant != 0});
      }
}

TEST_CASE("gemm_i8_packed variants over M (GEMV and tile edges), odd N and K tails",
          "[variants][gemm_i8_packed]") {
  // M: the GEMV path, every edge of the 2-, 4- and 8-row tiles, and a full chunk; N: one partial
  // 16-row block, several blocks with a partial last one (GEMV tiles take 2 or 4 blocks); K: not
  // a multiple of 4, 16 or 64, and the multiples themselves.
  for (const KernelTable* t : packed_tables())
    for (size_t m : {1, 2, 3, 7, 8, 9, 64})
      for (size_t n : {5, 16, 33, 70, 81})  // 70: 5 blocks, the last two behind a full 3-block tile
        for (size_t k : {1, 3, 4, 13, 16, 47, 64, 99, 130}) {
          if (m * n * k > 64 * 33 * 64) continue;  // keep emulated runs short
          check_packed(*t, PackedCase{m, n, k});
        }
  for (const KernelTable* t : packed_tables()) {
    check_packed(*t, PackedCase{1, 1000, 520});   // GEMV over many blocks
    check_packed(*t, PackedCase{64, 130, 257});
    check_packed(*t, PackedCase{1, 24, 16384});   // the longest K the avx2 chunk (A and |A|) holds
    check_packed(*t, PackedCase{2, 7, 16400});    // past it (avx2: the reference loop)
    check_packed(*t, PackedCase{1, 24, 32768});   // the longest K the on-stack A chunk holds
    check_packed(*t, PackedCase{3, 7, 32771});    // past it: the reference loop
  }
}

TEST_CASE("gemm_i8_packed variants: every tile height, odd group counts, A chunk edges",
          "[variants][gemm_i8_packed]") {
  // M 1-17: every edge of the 4-row (dotprod, avx2), 2-row (neon) and 8-row (i8mm: 4 pairs of
  // rows, an odd M pairs its last row with zeros) tiles. K: 1-8 groups of 4 (i8mm takes groups two
  // at a time, an odd count ends with a half step), and not a multiple of 4.
  for (const KernelTable* t : packed_tables()) {
    for (size_t m = 1; m <= 17; ++m)
      for (size_t k : {4, 8, 12, 20, 23, 28, 32})
        check_packed(*t, PackedCase{m, 21, k});
    // A chunk holding few rows (16384 and 5000 bytes each): M = chunk rows + 1 leaves a chunk of
    // one row; 2 (k = 16384) and 6 (k = 5000) rows per chunk are under the 8-row tile.
    check_packed(*t, PackedCase{3, 17, 16384});
    check_packed(*t, PackedCase{7, 17, 5000});
    check_packed(*t, PackedCase{13, 17, 5000});
  }
}

TEST_CASE("gemm_i8_packed variants: 16-row tiles (amx) over M, N and K edges", "[variants][gemm_i8_packed]") {
  // M: under, at and past one and two 16-row A tiles and a 32-row output tile; N: one block, a
  // pair, an odd block count; K: under one 64-byte step, whole steps, a step plus a short tail,
  // and 4096 / 4097 (the longest K a 16-row A chunk holds, and past it: the avx512vnni kernel).
  for (const KernelTable* t : packed_tables()) {
    for (size_t m : {4, 15, 16, 17, 31, 32, 33, 48, 70})
      for (size_t n : {16, 17, 32, 48, 70})
        for (size_t k : {60, 64, 65, 128, 200})
          check_packed(*t, PackedCase{m, n, k, (m + n) % 2 == 0,
                                      m % 3 == 0 ? Activation::kGelu : Activation::kNone, k == 65});
    check_packed(*t, PackedCase{20, 40, 4096});
    check_packed(*t, PackedCase{20, 40, 4097});
    check_packed(*t, PackedCase{300, 33, 512});  // several A chunks at K = 512 (128 rows each)
    for (size_t m : {16, 33})
      for (size_t a_block : {64, 128})
        for (bool b_per_block : {false, true}) check_packed_blocks(*t, m, 50, 300, a_block, false, b_per_block);
    // M a multiple of 16 and K of 64: amx reads A's rows in place (strided, no copy).
    check_packed_blocks(*t, 32, 50, 256, 64, false);
    check_packed(*t, PackedCase{64, 70, 512});
    check_packed(*t, PackedCase{144, 70, 512});  // in place, past 64 rows: passes of 32 rows (amx)
    check_packed(*t, PackedCase{16, 20, 8192});  // in place past the 4096 a copied chunk holds
  }
}

TEST_CASE("gemm_i8_packed variants: epilogue (bias, activations, accumulate), strides, zero rows",
          "[variants][gemm_i8_packed]") {
  for (const KernelTable* t : packed_tables()) {
    for (Activation act : kActs)
      for (bool bias : {false, true})
        for (bool acc : {false, true})
          for (size_t m : {1, 5}) check_packed(*t, PackedCase{m, 21, 70, bias, act, acc});
    for (size_t pad : {1, 3, 16})
      for (size_t m : {1, 9}) check_packed(*t, PackedCase{m, 19, 45, true, Activation::kNone, false, Fill::kRandom, false, pad});
    for (size_t m : {1, 3, 9})
      check_packed(*t, PackedCase{m, 35, 40, true, Activation::kGelu, true, Fill::kRandom, true});
  }
}

TEST_CASE("gemm_i8_packed variants: +-127 extremes and -128 weights as documented", "[variants][gemm_i8_packed]") {
  // A is in [-127, 127] (the slot's contract: quantize_rows_i8's range); -128 in A is outside it.
  for (const KernelTable* t : packed_tables()) {
    for (size_t m : {1, 2, 4, 9})
      for (size_t k : {1, 8, 33, 1000, 4096})
        check_packed(*t, PackedCase{m, 18, k, false, Activation::kNone, false, Fill::kExtremes});
    // -128 in B against -127 in A: exact wherever B is multiplied as signed (reference, ARM, the
    // VNNI shift), also where two products share an int16 lane (NEON, armv7); the AVX2 sign trick
    // negates B, so there -128 is outside the range, as for its gemm_i8.
    if (t->isa != Isa::kAvx2) {
      for (size_t m : {1, 2, 3, 4, 9})
        for (size_t k : {4, 5, 8, 64, 67, 300, 4096})
          for (size_t n : {18, 64})
            check_packed(*t, PackedCase{m, n, k, false, Activation::kNone, false, Fill::kPairLimit});
    }
    // All-equal signs over a long K: -127 * 127 * K exactly, no saturation anywhere.
    const size_t K = 4096;
    std::vector<int8_t> a(K, 127), b(K, -127), packed(packed_i8_16x4_bytes(1, K));
    std::vector<int32_t> sums(1);
    pack_i8_16x4(b.data(), 1, K, K, packed.data(), sums.data());
    float one = 1.0f, c = 0.0f;
    GemmI8PackedParams q;
    q.m = 1; q.n = 1; q.k = K; q.a = a.data(); q.lda = K; q.a_scales = &one;
    q.packed = packed.data(); q.row_sums = sums.data(); q.b_scales = &one; q.c = &c; q.ldc = 1;
    t->gemm_i8_packed(q);
    CHECK(c == -127.0f * 127.0f * K);
  }
}

TEST_CASE("gemm_i8_packed with activation blocks (a scale per block of K): reference and variants",
          "[variants][gemm_i8_packed]") {
  // Blocks of 16, 32 and 64; K a multiple of the block, with a short last block, under one block;
  // M: GEMV and the tile edges; N: partial blocks.
  for (const KernelTable* t : packed_tables())
    for (size_t a_block : {16, 32, 64})
      for (size_t m : {1, 3, 8, 9})
        for (size_t n : {5, 33})
          for (size_t k : {13, 64, 100, 384})
            for (bool block_sums : {false, true})
              for (bool b_per_block : {false, true}) check_packed_blocks(*t, m, n, k, a_block, block_sums, b_per_block);
  for (const KernelTable* t : packed_tables()) {
    for (size_t m : {4, 5, 12, 16, 17}) {  // the 8- and 4-row tiles, N over 3 blocks (avx512vnni)
      check_packed_blocks(*t, m, 50, 200, 32, true);
      check_packed_blocks(*t, m, 70, 200, 32, true, true);  // two edge blocks
    }
    check_packed_blocks(*t, 64, 130, 1536, 64, true);   // an encoder's FFN output shape
    check_packed_blocks(*t, 64, 130, 1536, 32, true, true);
    check_packed_blocks(*t, 2, 7, 40000, 64, true);     // past the A chunk: the reference loop
  }
}
