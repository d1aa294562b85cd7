// decoding::forbid_token against its definition: the row a log-softmax gives when the forbidden
// token's logit is -inf, evaluated in double from the logits, over the whole range of the forbidden
// token's probability (the closed form and the summing fallback).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "decoding/token_selection.h"

namespace {

std::vector<double> log_softmax(const std::vector<double>& logits, int skip) {
  double max_value = -std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < logits.size(); ++j) {
    if (static_cast<int>(j) != skip) max_value = std::max(max_value, logits[j]);
  }
  double sum = 0;
  for (size_t j = 0; j < logits.size(); ++j) {
    if (static_cast<int>(j) != skip) sum += std::exp(logits[j] - max_value);
  }
  std::vector<double> out(logits.size());
  for (size_t j = 0; j < logits.size(); ++j) {
    out[j] = static_cast<int>(j) == skip ? -std::numeric_limits<double>::infinity() : logits[j] - max_value - std::log(sum);
  }
  return out;
}

}  // namespace

TEST_CASE("forbid_token renormalizes like masking the logit before the softmax", "[decoding]") {
  const size_t vocab = 1000;
  const int eos = 7;
  // The forbidden token's logit sweeps p(eos) from ~1e-12 to ~1 - 1e-12.
  for (double eos_logit : {-25.0, -8.0, -2.0, 0.0, 1.5, 3.0, 6.0, 7.5, 9.0, 12.0, 20.0, 30.0, 40.0}) {
    std::vector<double> logits(vocab);
    for (size_t j = 0; j < vocab; ++j) logits[j] = std::sin(0.37 * static_cast<double>(j)) * 2.0;
    logits[eos] = eos_logit + 7.0;  // well above the others' log-sum-exp (~7) at the high end
    const std::vector<double> full = log_softmax(logits, -1);
    const std::vector<double> expected = log_softmax(logits, eos);
    std::vector<float> row(full.begin(), full.end());
    heed::decoding::forbid_token(row.data(), vocab, eos);
    INFO("p(eos) = " << std::exp(full[eos]));
    CHECK(row[eos] == -std::numeric_limits<float>::infinity());
    double worst = 0, mass = 0;
    for (size_t j = 0; j < vocab; ++j) {
      if (static_cast<int>(j) == eos) continue;
      worst = std::max(worst, std::fabs(row[j] - expected[j]));
      mass += std::exp(static_cast<double>(row[j]));
    }
    CHECK(worst < 2e-5);
    CHECK(mass == Approx(1.0).epsilon(1e-5));
  }
  SECTION("a row with nothing but the forbidden token stays -inf") {
    std::vector<float> row(4, -std::numeric_limits<float>::infinity());
    row[2] = 0.0f;
    heed::decoding::forbid_token(row.data(), row.size(), 2);
    for (float v : row) CHECK(v == -std::numeric_limits<float>::infinity());
  }
}
