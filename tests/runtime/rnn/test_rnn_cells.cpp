// RNN cell kernels: the scalar reference against double-precision formulas written here, and every
// kernel table this CPU can run against the reference.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "heed/kernels.h"

namespace {

using heed::kernels::Isa;
using heed::kernels::KernelTable;

double sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

std::vector<float> random_values(size_t n, float scale, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

std::vector<const KernelTable*> available_tables() {
  std::vector<const KernelTable*> tables;
  for (int i = 0; i < static_cast<int>(Isa::kCount); ++i) {
    if (const KernelTable* t = heed::kernels::for_isa(static_cast<Isa>(i))) tables.push_back(t);
  }
  return tables;
}

// Sizes that exercise SIMD main loops and every tail length.
const size_t kSizes[] = {1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 96, 131};

}  // namespace

TEST_CASE("reference LSTM cell matches the gate equations in double precision") {
  const KernelTable& k = heed::kernels::reference();
  for (size_t n : kSizes) {
    const auto gx = random_values(4 * n, 4.0f, 1 + n), gh = random_values(4 * n, 4.0f, 2 + n);
    auto c = random_values(n, 2.0f, 3 + n);
    std::vector<float> h(n, 0.0f);
    std::vector<double> c_ref(c.begin(), c.end()), h_ref(n);
    for (size_t j = 0; j < n; ++j) {
      const double i = sig(double(gx[j]) + gh[j]), f = sig(double(gx[n + j]) + gh[n + j]);
      const double g = std::tanh(double(gx[2 * n + j]) + gh[2 * n + j]), o = sig(double(gx[3 * n + j]) + gh[3 * n + j]);
      c_ref[j] = f * c_ref[j] + i * g;
      h_ref[j] = o * std::tanh(c_ref[j]);
    }
    k.lstm_cell(gx.data(), gh.data(), c.data(), h.data(), n);
    for (size_t j = 0; j < n; ++j) {
      REQUIRE(c[j] == Approx(c_ref[j]).margin(1e-6));
      REQUIRE(h[j] == Approx(h_ref[j]).margin(1e-6));
    }
  }
}

TEST_CASE("reference GRU cell matches the gate equations in double precision") {
  const KernelTable& k = heed::kernels::reference();
  for (size_t n : kSizes) {
    const auto gx = random_values(3 * n, 4.0f, 10 + n), gh = random_values(3 * n, 4.0f, 20 + n);
    auto h = random_values(n, 1.0f, 30 + n);
    std::vector<double> h_ref(n);
    for (size_t j = 0; j < n; ++j) {
      const double r = sig(double(gx[j]) + gh[j]), z = sig(double(gx[n + j]) + gh[n + j]);
      const double cand = std::tanh(double(gx[2 * n + j]) + r * gh[2 * n + j]);
      h_ref[j] = (1 - z) * cand + z * h[j];
    }
    k.gru_cell(gx.data(), gh.data(), h.data(), n);
    for (size_t j = 0; j < n; ++j) REQUIRE(h[j] == Approx(h_ref[j]).margin(1e-6));
  }
}

TEST_CASE("reference tanh, including saturation and zero") {
  const KernelTable& k = heed::kernels::reference();
  std::vector<float> x = {0.0f, -0.0f, 1e-8f, 0.5f, -3.0f, 20.0f, -20.0f, 100.0f};
  std::vector<double> want;
  for (float v : x) want.push_back(std::tanh(double(v)));
  k.tanh_f32(x.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) REQUIRE(x[i] == Approx(want[i]).margin(1e-7));
}

TEST_CASE("every RNN cell variant this CPU runs agrees with the reference") {
  const KernelTable& ref = heed::kernels::reference();
  for (const KernelTable* t : available_tables()) {
    INFO("isa " << heed::kernels::isa_name(t->isa));
    REQUIRE(t->lstm_cell != nullptr);
    REQUIRE(t->gru_cell != nullptr);
    REQUIRE(t->tanh_f32 != nullptr);
    for (size_t n : kSizes) {
      INFO("n " << n);
      // Large pre-activations too: saturated gates must stay exact 0/1-like, never NaN.
      const auto gx = random_values(4 * n, 12.0f, 100 + n), gh = random_values(4 * n, 12.0f, 200 + n);
      auto c1 = random_values(n, 3.0f, 300 + n), c2 = c1;
      std::vector<float> h1(n), h2(n);
      ref.lstm_cell(gx.data(), gh.data(), c1.data(), h1.data(), n);
      t->lstm_cell(gx.data(), gh.data(), c2.data(), h2.data(), n);
      for (size_t j = 0; j < n; ++j) {
        REQUIRE(c2[j] == Approx(c1[j]).margin(2e-6));
        REQUIRE(h2[j] == Approx(h1[j]).margin(2e-6));
      }
      auto g1 = random_values(n, 1.0f, 400 + n), g2 = g1;
      ref.gru_cell(gx.data(), gh.data(), g1.data(), n);
      t->gru_cell(gx.data(), gh.data(), g2.data(), n);
      for (size_t j = 0; j < n; ++j) REQUIRE(g2[j] == Approx(g1[j]).margin(2e-6));
      auto x1 = random_values(n, 10.0f, 500 + n), x2 = x1;
      ref.tanh_f32(x1.data(), n);
      t->tanh_f32(x2.data(), n);
      for (size_t j = 0; j < n; ++j) REQUIRE(x2[j] == Approx(x1[j]).margin(2e-6));
    }
  }
}

TEST_CASE("every SIMD variant has its own RNN cells, exact on zeros and saturated gates") {
  const KernelTable& ref = heed::kernels::reference();
  for (const KernelTable* t : available_tables()) {
    INFO("isa " << heed::kernels::isa_name(t->isa));
    if (t->isa != Isa::kScalar) {
      // x86 AVX2 (+AVX-512), aarch64 NEON (+dotprod, i8mm) and 32-bit ARM NEON all have a variant:
      // a table still pointing at the reference would make the comparison above vacuous.
      REQUIRE(t->lstm_cell != ref.lstm_cell);
      REQUIRE(t->gru_cell != ref.gru_cell);
      REQUIRE(t->tanh_f32 != ref.tanh_f32);
    }
    for (size_t n : {size_t{5}, size_t{12}}) {
      // All-zero pre-activations: every gate 0.5, candidate 0.
      const std::vector<float> zeros(4 * n, 0.0f);
      std::vector<float> c(n, 0.0f), h(n, 1.0f), g(n, 0.75f);
      t->lstm_cell(zeros.data(), zeros.data(), c.data(), h.data(), n);
      t->gru_cell(zeros.data(), zeros.data(), g.data(), n);
      for (size_t j = 0; j < n; ++j) {
        REQUIRE(c[j] == 0.0f);
        REQUIRE(h[j] == 0.0f);
        REQUIRE(g[j] == Approx(0.375f).margin(1e-7));  // 0.5 * 0 + 0.5 * 0.75
      }
      // Saturated: +-1000 and beyond exp's range give exactly 0, 1 and -1, never NaN.
      std::vector<float> big(4 * n), none(4 * n, 0.0f), cs(n, 2.0f), hs(n);
      for (size_t j = 0; j < 4 * n; ++j) big[j] = (j % 2 ? 1000.0f : -1000.0f);
      t->lstm_cell(big.data(), none.data(), cs.data(), hs.data(), n);
      std::vector<float> cr(n, 2.0f), hr(n);
      ref.lstm_cell(big.data(), none.data(), cr.data(), hr.data(), n);
      for (size_t j = 0; j < n; ++j) {
        REQUIRE(cs[j] == cr[j]);
        REQUIRE(hs[j] == hr[j]);
      }
      std::vector<float> x(n);
      for (size_t j = 0; j < n; ++j) x[j] = (j % 2 ? 200.0f : -200.0f);
      t->tanh_f32(x.data(), n);
      for (size_t j = 0; j < n; ++j) REQUIRE(x[j] == (j % 2 ? 1.0f : -1.0f));
    }
  }
}
