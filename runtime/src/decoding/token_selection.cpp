#include "decoding/token_selection.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace heed::decoding {

double remove_token(float* scores, int32_t token, float shift) {
  const float value = scores[token] - shift;
  if (value == -std::numeric_limits<float>::infinity()) return 0;
  scores[token] = -std::numeric_limits<float>::infinity();
  return std::exp(static_cast<double>(value));
}

float renormalization(const float* scores, size_t vocab, double removed, float shift) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  if (removed <= 0) return 0.0f;
  if (removed < 0.5) return static_cast<float>(std::log1p(-removed));  // exact while the others keep most of the mass
  // Most of the mass went: 1 - removed would lose digits, so sum what is left explicitly (in
  // double, relative to its maximum).
  float max_value = kNegInf;
  for (size_t j = 0; j < vocab; ++j) max_value = std::max(max_value, scores[j] - shift);
  if (max_value == kNegInf) return 0.0f;
  double sum = 0;
  for (size_t j = 0; j < vocab; ++j) sum += std::exp(static_cast<double>(scores[j] - shift) - max_value);
  return static_cast<float>(max_value + std::log(sum));
}

void renormalize(float* log_probs, size_t vocab, double removed) {
  if (removed <= 0) return;
  const float norm = renormalization(log_probs, vocab, removed);
  for (size_t j = 0; j < vocab; ++j) log_probs[j] -= norm;  // -inf stays -inf
}

void forbid_token(float* log_probs, size_t vocab, int32_t token) {
  renormalize(log_probs, vocab, remove_token(log_probs, token));
}

int32_t argmax(const float* values, size_t n) {
  size_t best = 0;
  for (size_t j = 1; j < n; ++j) {
    if (values[j] > values[best]) best = j;
  }
  return static_cast<int32_t>(best);
}

RowTokens row_tokens(const StepModel& model, size_t vocab) {
  RowTokens t;
  t.size = vocab;
  t.ids = model.vocabulary_candidates(&t.count);
  return t;
}

int32_t argmax(const float* values, const RowTokens& tokens) {
  if (tokens.ids == nullptr || tokens.count == 0) return argmax(values, tokens.size);
  int32_t best = tokens.ids[0];
  for (size_t c = 1; c < tokens.count; ++c) {
    if (values[tokens.ids[c]] > values[best]) best = tokens.ids[c];
  }
  // Every other value is -inf: a row of -inf only is where the whole-row argmax gives token 0.
  return values[best] == -std::numeric_limits<float>::infinity() ? argmax(values, tokens.size) : best;
}

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

int32_t sample_token(const float* log_probs, size_t vocab, const SamplingParams& params, Rng& rng,
                     float* weights, int32_t* ids) {
  const size_t k = (params.top_k == 0 || params.top_k > vocab) ? vocab : params.top_k;
  // Candidates best first (ties: lower id first) when a cut is needed, else in id order.
  auto better = [log_probs](int32_t a, int32_t b) {
    return log_probs[a] > log_probs[b] || (log_probs[a] == log_probs[b] && a < b);
  };
  for (size_t j = 0; j < vocab; ++j) ids[j] = static_cast<int32_t>(j);
  size_t n = vocab;
  if (k < vocab || params.top_p < 1.0f) {
    std::partial_sort(ids, ids + k, ids + vocab, better);  // in place: no allocation
    n = k;
  }
  const float max_value = log_probs[argmax(log_probs, vocab)];
  if (max_value == -std::numeric_limits<float>::infinity()) return ids[0];
  const double inv_t = 1.0 / params.temperature;
  double total = 0;
  for (size_t i = 0; i < n; ++i) {
    const double w = std::exp((static_cast<double>(log_probs[ids[i]]) - max_value) * inv_t);
    weights[i] = static_cast<float>(w);
    total += w;
  }
  if (params.top_p < 1.0f) {
    // Smallest best-first prefix whose share of the mass reaches top_p.
    double running = 0;
    size_t keep = n;
    for (size_t i = 0; i < n; ++i) {
      running += weights[i];
      if (running >= params.top_p * total) {
        keep = i + 1;
        break;
      }
    }
    n = keep;
    total = running;
  }
  const double target = rng.uniform() * total;
  double running = 0;
  for (size_t i = 0; i < n; ++i) {
    running += weights[i];
    if (target < running && weights[i] > 0) return ids[i];
  }
  // Rounding left the target at the very end: the last token with any weight.
  for (size_t i = n; i-- > 0;) {
    if (weights[i] > 0) return ids[i];
  }
  return ids[0];
}

}  // namespace heed::decoding
