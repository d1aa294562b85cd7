// Every SIMD variant's norms, softmaxes, activations and vector kernels against the reference.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernel_test_util.h"

using namespace heed::kernels;
using heed::kernels::test::close;
using heed::kernels::test::random_f32;
using heed::kernels::test::simd_variants;

namespace {
const size_t kLens[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257, 512, 1000, 4099};
const float kInf = std::numeric_limits<float>::infinity();
}  // namespace

TEST_CASE("layer_norm and rms_norm variants match the reference", "[variants][norm]") {
  for (const KernelTable* v : simd_variants()) {
    for (size_t n : kLens) {
      const size_t rows = 3;
      auto x = random_f32(rows * n, -3.0f, 5.0f);
      auto gamma = random_f32(n, 0.5f, 2.0f), beta = random_f32(n);
      for (int with_affine = 0; with_affine < 2; ++with_affine) {
        const float* gm = with_affine ? gamma.data() : nullptr;
        const float* bt = with_affine ? beta.data() : nullptr;
        std::vector<float> r(rows * n), y(rows * n), rr(rows * n), yr(rows * n);
        reference().layer_norm(x.data(), rows, n, gm, bt, 1e-5f, r.data());
        v->layer_norm(x.data(), rows, n, gm, bt, 1e-5f, y.data());
        reference().rms_norm(x.data(), rows, n, gm, 1e-6f, rr.data());
        v->rms_norm(x.data(), rows, n, gm, 1e-6f, yr.data());
        for (size_t i = 0; i < rows * n; ++i) {
          INFO(isa_name(v->isa) << " n " << n << " affine " << with_affine << " i " << i);
          // Normalized values are O(1): compare relative to the affine scale.
          const double scale = with_affine ? std::fabs(gamma[i % n]) * 4 + std::fabs(beta[i % n]) : 4.0;
          REQUIRE(close(y[i], r[i], scale, 1e-5));
          REQUIRE(close(yr[i], rr[i], scale, 1e-5));
        }
        // In place (y == x), as the post-norm stacks call them: the same values bit for bit.
        auto in_place = x, rms_in_place = x;
        v->layer_norm(in_place.data(), rows, n, gm, bt, 1e-5f, in_place.data());
        v->rms_norm(rms_in_place.data(), rows, n, gm, 1e-6f, rms_in_place.data());
        REQUIRE(in_place == y);
        REQUIRE(rms_in_place == yr);
        in_place = x;
        rms_in_place = x;
        reference().layer_norm(in_place.data(), rows, n, gm, bt, 1e-5f, in_place.data());
        reference().rms_norm(rms_in_place.data(), rows, n, gm, 1e-6f, rms_in_place.data());
        REQUIRE(in_place == r);
        REQUIRE(rms_in_place == rr);
      }
    }
    // A constant row: zero variance, output exactly beta (no NaN from 0/0 thanks to eps).
    std::vector<float> x(33, 2.5f), y(33), beta = random_f32(33);
    v->layer_norm(x.data(), 1, 33, nullptr, beta.data(), 1e-5f, y.data());
    for (size_t i = 0; i < 33; ++i) CHECK(y[i] == beta[i]);
  }
}

TEST_CASE("softmax and log_softmax variants match the reference", "[variants][softmax]") {
  for (const KernelTable* v : simd_variants()) {
    for (size_t n : kLens) {
      for (float spread : {1.0f, 30.0f, 200.0f}) {
        auto x = random_f32(n, -spread, spread);
        if (n > 5) {
          x[1] = -kInf;  // masked positions (causal / padding masks)
          x[n - 1] = -kInf;
        }
        auto rs = x, vs = x, rl = x, vl = x;
        reference().softmax(rs.data(), n);
        v->softmax(vs.data(), n);
        reference().log_softmax(rl.data(), n);
        v->log_softmax(vl.data(), n);
        for (size_t i = 0; i < n; ++i) {
          INFO(isa_name(v->isa) << " n " << n << " spread " << spread << " i " << i << " x " << x[i]);
          // Probabilities: relative to themselves, with an absolute floor far below anything a
          // decoder can observe (exp of very negative differences is ~0 either way).
          REQUIRE(close(vs[i], rs[i], rs[i], 1e-5, 1e-30));
          // log_softmax = x - (max + log sum): its rounding is relative to the operands' size
          // (|x| up to the spread), not just to the result's.
          REQUIRE(close(vl[i], rl[i], std::max({1.0f, std::fabs(rl[i]), std::fabs(x[i])}), 1e-5));
        }
      }
    }
    std::vector<float> masked(37, -kInf), lmasked(37, -kInf);
    v->softmax(masked.data(), masked.size());
    v->log_softmax(lmasked.data(), lmasked.size());
    for (float m : masked) CHECK(m == 0.0f);
    for (float m : lmasked) CHECK(m == -kInf);
  }
}

// The contract a lazy beam search relies on (decoding/beam_search.cpp): a table's log_softmax
// subtracts exactly its own log_sum_exp, one float subtraction per entry, and that value agrees
// with the reference's.
TEST_CASE("log_sum_exp variants match the reference and are what log_softmax subtracts", "[variants][softmax]") {
  std::vector<const KernelTable*> tables = simd_variants();
  tables.push_back(&reference());
  for (const KernelTable* v : tables) {
    for (size_t n : kLens) {
      for (float spread : {1.0f, 30.0f, 200.0f}) {
        auto x = random_f32(n, -spread, spread);
        if (n > 5) x[3] = -kInf;
        const float value = v->log_sum_exp(x.data(), n), expected = reference().log_sum_exp(x.data(), n);
        INFO(isa_name(v->isa) << " n " << n << " spread " << spread);
        REQUIRE(close(value, expected, std::max(1.0f, std::fabs(expected)), 1e-6));
        auto l = x;
        v->log_softmax(l.data(), n);
        for (size_t i = 0; i < n; ++i) REQUIRE(l[i] == x[i] - value);
      }
    }
    std::vector<float> masked(37, -kInf);
    CHECK(v->log_sum_exp(masked.data(), masked.size()) == -kInf);
    CHECK(v->log_sum_exp(masked.data(), 0) == -kInf);
  }
}

TEST_CASE("activate variants match the reference", "[variants][activate]") {
  const Activation acts[] = {Activation::kNone, Activation::kRelu, Activation::kGelu,
                             Activation::kGeluTanh, Activation::kSilu};
  for (const KernelTable* v : simd_variants()) {
    for (size_t n : kLens) {
      auto x = random_f32(n, -10.0f, 10.0f);
      if (n > 3) { x[0] = -100.0f; x[1] = 100.0f; x[2] = 0.0f; }
      if (n > 9) { x[3] = -0.0f; x[4] = 1e-4f; x[5] = -1e-4f; x[6] = -95.0f; x[7] = 90.0f; x[8] = -5.5f; }
      for (Activation act : acts) {
        auto r = x, y = x;
        reference().activate(r.data(), n, act);
        v->activate(y.data(), n, act);
        for (size_t i = 0; i < n; ++i) {
          INFO(isa_name(v->isa) << " act " << int(act) << " x " << x[i]);
          // ~1e-6 relative to the result, with a small absolute floor where the result itself
          // is tiny (GELU of large negative x: the reference's own float rounding dominates).
          REQUIRE(close(y[i], r[i], r[i], 2e-6, 2e-7 * std::max(1.0f, std::fabs(x[i]))));
        }
      }
    }
  }
}

TEST_CASE("add, dot_f32, axpy_f32, axpy_rows_f32 and f16 conversion variants match the reference", "[variants][vector]") {
  for (const KernelTable* v : simd_variants()) {
    for (size_t n : kLens) {
      auto a = random_f32(n), b = random_f32(n);
      double mag = 0;
      for (size_t i = 0; i < n; ++i) mag += std::fabs(double(a[i]) * b[i]);
      INFO(isa_name(v->isa) << " n " << n);
      REQUIRE(close(v->dot_f32(a.data(), b.data(), n), reference().dot_f32(a.data(), b.data(), n), mag, 1e-5));
      auto r = b, y = b;
      reference().axpy_f32(-1.25f, a.data(), r.data(), n);
      v->axpy_f32(-1.25f, a.data(), y.data(), n);
      for (size_t i = 0; i < n; ++i) REQUIRE(close(y[i], r[i], 3.0, 1e-6));
      for (size_t count : {1, 3, 8})  // rows of x at stride n + 5; 1, 4 and 6 rows of y at stride n + 2
        for (size_t ys : {1, 4, 6}) {
          const auto rows = random_f32(count * (n + 5)), alphas = random_f32(ys * (count + 1));
          auto ry = random_f32(ys * (n + 2)), vy = ry;
          reference().axpy_rows_f32(ys, alphas.data(), count + 1, count, rows.data(), n + 5, ry.data(), n + 2, n);
          v->axpy_rows_f32(ys, alphas.data(), count + 1, count, rows.data(), n + 5, vy.data(), n + 2, n);
          for (size_t i = 0; i < ry.size(); ++i) REQUIRE(close(vy[i], ry[i], 1.0 + count, 1e-6));  // padding untouched
        }
      r = b; y = b;
      reference().add(r.data(), a.data(), n);
      v->add(y.data(), a.data(), n);
      REQUIRE(y == r);  // one rounding per element either way: bit-identical

      // f32 -> f16 over a wide range (subnormal halves, overflow, ties) must be bit-identical.
      std::vector<float> f = random_f32(n, -70000.0f, 70000.0f);
      for (size_t i = 0; i < n; i += 3) f[i] = std::ldexp(f[i], -30);  // into the subnormal range
      if (n > 4) { f[1] = 65520.0f; f[2] = std::ldexp(3.0f, -25); f[3] = -0.0f; f[4] = kInf; }
      std::vector<uint16_t> hr(n), hv(n);
      reference().f32_to_f16(f.data(), hr.data(), n);
      v->f32_to_f16(f.data(), hv.data(), n);
      REQUIRE(hv == hr);
      std::vector<float> fr(n), fv(n);
      reference().f16_to_f32(hr.data(), fr.data(), n);
      v->f16_to_f32(hr.data(), fv.data(), n);
      REQUIRE(fv == fr);
    }
  }
}
