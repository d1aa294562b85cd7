// decoding::forbid_token against its definition: the row a log-softmax gives when the forbidden
// token's logit is -inf, evaluated in double from the logits, over the whole range of the forbidden
// token's probability (the closed form and the summing fallback).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
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

// Beam search reads rows of logits through a LogProbView instead of rewriting them
// (decoding/beam_search.cpp): the view must give bitwise what the rewritten row holds, on both
// sides of the renormalization's closed form.
TEST_CASE("a LogProbView reads a row of logits as the log-softmaxed, renormalized row", "[decoding]") {
  const size_t vocab = 1000;
  const int eos = 7;
  for (double eos_logit : {-25.0, 0.0, 3.0, 7.5, 12.0, 40.0}) {
    std::vector<double> logits(vocab);
    for (size_t j = 0; j < vocab; ++j) logits[j] = std::sin(0.37 * static_cast<double>(j)) * 2.0;
    logits[eos] = eos_logit + 7.0;
    logits[11] = -std::numeric_limits<double>::infinity();
    const std::vector<double> full = log_softmax(logits, -1);
    const std::vector<float> scores(logits.begin(), logits.end());
    const float shift = static_cast<float>(logits[0] - full[0]);  // what a log-softmax subtracts
    std::vector<float> rewritten(vocab), lazy = scores;
    for (size_t j = 0; j < vocab; ++j) rewritten[j] = scores[j] - shift;
    const double removed = heed::decoding::remove_token(rewritten.data(), eos);
    heed::decoding::renormalize(rewritten.data(), vocab, removed);
    const double lazy_removed = heed::decoding::remove_token(lazy.data(), eos, shift);
    const heed::decoding::LogProbView view{shift,
                                          heed::decoding::renormalization(lazy.data(), vocab, lazy_removed, shift)};
    INFO("p(eos) = " << std::exp(full[eos]));
    CHECK(lazy_removed == removed);
    for (size_t j = 0; j < vocab; ++j) {
      const float read = view.at(lazy[j]);
      INFO("j " << j);
      REQUIRE(std::memcmp(&rewritten[j], &read, sizeof(float)) == 0);
    }
  }
}
