// The scalar reference against independent double-precision arithmetic and hand-worked values:
// the reference is the specification every SIMD variant is compared with, so it is checked first.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "kernel_test_util.h"

using namespace heed::kernels;
using heed::kernels::test::close;
using heed::kernels::test::random_f32;
using heed::kernels::test::random_i8;

namespace {

double act_double(double x, Activation a) {
  switch (a) {
    case Activation::kNone: return x;
    case Activation::kRelu: return x > 0 ? x : 0;
    case Activation::kGelu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case Activation::kGeluTanh:
      return 0.5 * x * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case Activation::kSilu: return x / (1 + std::exp(-x));
  }
  return x;
}

const Activation kActs[] = {Activation::kNone, Activation::kRelu, Activation::kGelu,
                            Activation::kGeluTanh, Activation::kSilu};

}  // namespace

TEST_CASE("reference quantize_rows_i8: hand-worked rows, rounding half away from zero", "[reference]") {
  // max |x| = 127 makes the scale exactly 1, so q is round(x) with ties away from zero.
  const std::vector<float> x = {127.0f, -63.5f, 0.5f, -0.5f, 2.5f, -2.49f, 0.0f, -127.0f};
  std::vector<int8_t> q(x.size());
  float scale = -1;
  reference().quantize_rows_i8(x.data(), 1, x.size(), x.size(), q.data(), q.size(), &scale);
  CHECK(scale == 1.0f);
  const std::vector<int8_t> want = {127, -64, 1, -1, 3, -2, 0, -127};
  CHECK(q == want);

  // All-zero row: scale 0 and zeros; stride respected (the padding byte is untouched).
  const float zeros[3] = {0, 0, 0};
  int8_t qz[4] = {5, 5, 5, 99};
  float sz = -1;
  reference().quantize_rows_i8(zeros, 1, 3, 3, qz, 4, &sz);
  CHECK(sz == 0.0f);
  CHECK(qz[0] == 0);
  CHECK(qz[2] == 0);
  CHECK(qz[3] == 99);
}

TEST_CASE("reference quantize_rows_i8: random rows reconstruct within half a step", "[reference]") {
  const size_t rows = 5, cols = 37, ldx = 40, ldq = 41;
  auto x = random_f32(rows * ldx, -3.0f, 3.0f);
  std::vector<int8_t> q(rows * ldq);
  std::vector<float> s(rows);
  reference().quantize_rows_i8(x.data(), rows, cols, ldx, q.data(), ldq, s.data());
  for (size_t r = 0; r < rows; ++r) {
    double mx = 0;
    for (size_t c = 0; c < cols; ++c) mx = std::max(mx, std::fabs(double(x[r * ldx + c])));
    CHECK(close(s[r], mx / 127.0, mx / 127.0, 1e-6));
    bool hit_extreme = false;
    for (size_t c = 0; c < cols; ++c) {
      const int v = q[r * ldq + c];
      CHECK(v >= -127);
      CHECK(v <= 127);
      hit_extreme |= (v == 127 || v == -127);
      CHECK(std::fabs(double(x[r * ldx + c]) / s[r] - v) <= 0.5 + 1e-4);
    }
    CHECK(hit_extreme);
  }
}

TEST_CASE("reference gemm_i8 matches exact integer sums (per-row and per-group scales)", "[reference]") {
  const size_t M = 3, N = 5, K = 37;
  for (size_t group : {size_t(0), size_t(8), size_t(12)}) {
    for (Activation act : kActs) {
      for (bool accumulate : {false, true}) {
        auto a = random_i8(M * K);
        auto b = random_i8(N * K);
        auto as = random_f32(M, 0.001f, 0.02f);
        const size_t groups = group ? (K + group - 1) / group : 1;
        auto bs = random_f32(N * groups, 0.001f, 0.02f);
        auto bias = random_f32(N);
        auto c0 = random_f32(M * N);
        auto c = c0;
        GemmI8Params p;
        p.m = M; p.n = N; p.k = K;
        p.a = a.data(); p.lda = K; p.a_scales = as.data();
        p.b = b.data(); p.ldb = K; p.b_scales = bs.data(); p.group_size = group;
        p.bias = bias.data(); p.activation = act; p.accumulate = accumulate;
        p.c = c.data(); p.ldc = N;
        reference().gemm_i8(p);
        for (size_t m = 0; m < M; ++m) {
          for (size_t n = 0; n < N; ++n) {
            double v = 0, mag = 0;
            for (size_t k = 0; k < K; ++k) {
              const size_t g = group ? k / group : 0;
              const double term = double(a[m * K + k]) * b[n * K + k] * as[m] * bs[n * groups + g];
              v += term;
              mag += std::fabs(term);
            }
            v = act_double(v + bias[n], act);
            mag += std::fabs(bias[n]);
            if (accumulate) v += c0[m * N + n];
            mag += std::fabs(c0[m * N + n]);
            INFO("group " << group << " act " << int(act) << " m " << m << " n " << n);
            CHECK(close(c[m * N + n], v, mag, 1e-5));
          }
        }
      }
    }
  }
}

TEST_CASE("reference gemm_f32 and gemm_f16 match double arithmetic", "[reference]") {
  const size_t M = 4, N = 6, K = 29;
  auto a = random_f32(M * K);
  auto bf = random_f32(N * K);
  std::vector<uint16_t> bh(N * K);
  reference().f32_to_f16(bf.data(), bh.data(), bh.size());
  std::vector<float> bh_f(N * K);
  reference().f16_to_f32(bh.data(), bh_f.data(), bh.size());
  auto bias = random_f32(N);
  for (Activation act : kActs) {
    std::vector<float> c32(M * N), c16(M * N);
    GemmF32Params p;
    p.m = M; p.n = N; p.k = K; p.a = a.data(); p.lda = K; p.b = bf.data(); p.ldb = K;
    p.bias = bias.data(); p.activation = act; p.c = c32.data(); p.ldc = N;
    reference().gemm_f32(p);
    GemmF16Params h;
    h.m = M; h.n = N; h.k = K; h.a = a.data(); h.lda = K; h.b = bh.data(); h.ldb = K;
    h.bias = bias.data(); h.activation = act; h.c = c16.data(); h.ldc = N;
    reference().gemm_f16(h);
    for (size_t m = 0; m < M; ++m) {
      for (size_t n = 0; n < N; ++n) {
        double v32 = 0, v16 = 0, mag = std::fabs(bias[n]);
        for (size_t k = 0; k < K; ++k) {
          v32 += double(a[m * K + k]) * bf[n * K + k];
          v16 += double(a[m * K + k]) * bh_f[n * K + k];
          mag += std::fabs(double(a[m * K + k]) * bf[n * K + k]);
        }
        CHECK(close(c32[m * N + n], act_double(v32 + bias[n], act), mag, 1e-5));
        CHECK(close(c16[m * N + n], act_double(v16 + bias[n], act), mag, 1e-5));
      }
    }
  }
}

TEST_CASE("reference layer_norm and rms_norm match double arithmetic", "[reference]") {
  const size_t rows = 3, n = 77;
  auto x = random_f32(rows * n, -4.0f, 6.0f);
  auto gamma = random_f32(n, 0.5f, 1.5f);
  auto beta = random_f32(n);
  std::vector<float> y(rows * n), yr(rows * n), yplain(rows * n);
  reference().layer_norm(x.data(), rows, n, gamma.data(), beta.data(), 1e-5f, y.data());
  reference().layer_norm(x.data(), rows, n, nullptr, nullptr, 1e-5f, yplain.data());
  reference().rms_norm(x.data(), rows, n, gamma.data(), 1e-6f, yr.data());
  for (size_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0, ms = 0;
    for (size_t i = 0; i < n; ++i) mean += x[r * n + i];
    mean /= n;
    for (size_t i = 0; i < n; ++i) {
      var += (x[r * n + i] - mean) * (x[r * n + i] - mean);
      ms += double(x[r * n + i]) * x[r * n + i];
    }
    var /= n;
    ms /= n;
    for (size_t i = 0; i < n; ++i) {
      const double z = (x[r * n + i] - mean) / std::sqrt(var + 1e-5);
      CHECK(close(y[r * n + i], z * gamma[i] + beta[i], 4.0, 1e-5));
      CHECK(close(yplain[r * n + i], z, 4.0, 1e-5));
      CHECK(close(yr[r * n + i], x[r * n + i] / std::sqrt(ms + 1e-6) * gamma[i], 4.0, 1e-5));
    }
  }
}

TEST_CASE("reference softmax and log_softmax: double arithmetic, masking, extremes", "[reference]") {
  for (size_t n : {size_t(1), size_t(7), size_t(300)}) {
    auto x = random_f32(n, -20.0f, 20.0f);
    if (n > 3) x[2] = -std::numeric_limits<float>::infinity();  // a masked position
    std::vector<float> s = x, l = x;
    reference().softmax(s.data(), n);
    reference().log_softmax(l.data(), n);
    double mx = -INFINITY;
    for (float v : x) mx = std::max(mx, double(v));
    double sum = 0;
    for (float v : x) sum += std::exp(double(v) - mx);
    for (size_t i = 0; i < n; ++i) {
      const double p = std::exp(double(x[i]) - mx) / sum;
      CHECK(close(s[i], p, p, 1e-5, 1e-12));
      const double lp = double(x[i]) - mx - std::log(sum);
      CHECK(close(l[i], lp, std::max(1.0, std::fabs(lp)), 1e-5));
    }
    const double lse = mx + std::log(sum);
    CHECK(close(reference().log_sum_exp(x.data(), n), lse, std::max(1.0, std::fabs(lse)), 1e-6));
  }
  // A fully masked row is defined as all zeros (softmax) and stays -inf (log_softmax).
  const float ninf = -std::numeric_limits<float>::infinity();
  std::vector<float> masked(5, ninf), lmasked(5, ninf);
  reference().softmax(masked.data(), 5);
  reference().log_softmax(lmasked.data(), 5);
  for (float v : masked) CHECK(v == 0.0f);
  for (float v : lmasked) CHECK(v == ninf);
  // Large logits do not overflow.
  std::vector<float> big = {1000.0f, 1000.0f};
  reference().softmax(big.data(), 2);
  CHECK(big[0] == Approx(0.5f));
}

TEST_CASE("reference activations match their defining formulas", "[reference]") {
  auto x = random_f32(200, -8.0f, 8.0f);
  x.push_back(-100.0f);  // SiLU/GELU far in the negative tail must be ~0, not NaN
  x.push_back(100.0f);
  for (Activation act : kActs) {
    auto y = x;
    reference().activate(y.data(), y.size(), act);
    for (size_t i = 0; i < x.size(); ++i) {
      INFO("act " << int(act) << " x " << x[i]);
      CHECK(close(y[i], act_double(x[i], act), std::max(1.0f, std::fabs(x[i])), 2e-6));
    }
  }
  // GELU (erf) and its tanh approximation differ measurably at x = 1 (0.841345 vs 0.841192).
  float e = 1.0f, t = 1.0f;
  reference().activate(&e, 1, Activation::kGelu);
  reference().activate(&t, 1, Activation::kGeluTanh);
  CHECK(e == Approx(0.8413447).epsilon(1e-6));
  CHECK(t == Approx(0.8411920).epsilon(1e-6));
}

TEST_CASE("reference add, dot_f32, axpy_f32, axpy_rows_f32 match double arithmetic", "[reference]") {
  const size_t n = 103;
  auto a = random_f32(n), b = random_f32(n);
  double dot = 0, mag = 0;
  for (size_t i = 0; i < n; ++i) {
    dot += double(a[i]) * b[i];
    mag += std::fabs(double(a[i]) * b[i]);
  }
  CHECK(close(reference().dot_f32(a.data(), b.data(), n), dot, mag, 1e-6));
  auto y = b;
  reference().axpy_f32(0.75f, a.data(), y.data(), n);
  for (size_t i = 0; i < n; ++i) CHECK(close(y[i], b[i] + 0.75 * a[i], 2.0, 1e-6));
  y = b;
  const float alphas[2] = {0.75f, -2.0f};
  std::vector<float> rows(a);
  rows.insert(rows.end(), b.begin(), b.end());  // rows a and b, stride n
  reference().axpy_rows_f32(1, alphas, 2, 2, rows.data(), n, y.data(), n, n);
  for (size_t i = 0; i < n; ++i) CHECK(close(y[i], b[i] + 0.75 * a[i] - 2.0 * b[i], 4.0, 1e-6));
  y = b;
  reference().add(y.data(), a.data(), n);
  for (size_t i = 0; i < n; ++i) CHECK(y[i] == a[i] + b[i]);
}

TEST_CASE("reference f16 conversions: known patterns, ties to even, full round trip", "[reference]") {
  struct Case {
    float f;
    uint16_t h;
  };
  const Case cases[] = {
      {1.0f, 0x3c00},           {-2.0f, 0xc000},
      {65504.0f, 0x7bff},       {65519.0f, 0x7bff},      // just below the rounding edge
      {65520.0f, 0x7c00},       {1e9f, 0x7c00},          // overflow rounds to infinity
      {0.0f, 0x0000},           {-0.0f, 0x8000},
      {std::ldexp(1.0f, -24), 0x0001},                   // smallest subnormal
      {std::ldexp(1.0f, -25), 0x0000},                   // tie between 0 and 1 unit: even (0)
      {std::ldexp(3.0f, -25), 0x0002},                   // tie between 1 and 2 units: even (2)
      {std::ldexp(1.0f, -14), 0x0400},                   // smallest normal
      {1.0f + std::ldexp(1.0f, -11), 0x3c00},            // tie: even mantissa 0
      {1.0f + 3 * std::ldexp(1.0f, -11), 0x3c02},        // tie: even mantissa 2
      {std::numeric_limits<float>::infinity(), 0x7c00},
  };
  for (const Case& c : cases) {
    uint16_t h = 0;
    reference().f32_to_f16(&c.f, &h, 1);
    INFO("f " << c.f);
    CHECK(h == c.h);
  }
  float nan = std::numeric_limits<float>::quiet_NaN();
  uint16_t hn = 0;
  reference().f32_to_f16(&nan, &hn, 1);
  CHECK((hn & 0x7c00) == 0x7c00);
  CHECK((hn & 0x03ff) != 0);

  // Every non-NaN half survives f16 -> f32 -> f16, and f16 -> f32 matches 2^(e-15) * 1.m.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint16_t h = static_cast<uint16_t>(bits);
    float f;
    reference().f16_to_f32(&h, &f, 1);
    const uint32_t e = (h >> 10) & 31, m = h & 1023;
    if (e == 31 && m != 0) {
      CHECK(std::isnan(f));
      continue;
    }
    double want = e == 0 ? std::ldexp(double(m), -24)
                 : e == 31 ? INFINITY
                           : std::ldexp(1.0 + m / 1024.0, int(e) - 15);
    if (h & 0x8000) want = -want;
    if (double(f) != want) FAIL("f16 " << h << " -> " << f << ", want " << want);
    uint16_t back = 0;
    reference().f32_to_f16(&f, &back, 1);
    if (back != h) FAIL("f16 round trip " << h << " -> " << back);
  }
}
