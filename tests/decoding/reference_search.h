// Exhaustive reference for the decoding tests: enumerates every complete hypothesis of the toy
// model up to max_length (plain recursion over vectors, in double precision) with the documented
// rules of decoding.h (forced prefix, EOS forbidden and renormalized away before min_length,
// length penalty on the number of generated tokens, EOS counted).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "toy_model.h"

namespace heed::test {

struct RefHypothesis {
  std::vector<int32_t> ids;          // without EOS
  std::vector<double> token_log_probs;
  bool with_eos = false;
  double log_prob = 0;
  double score = 0;
};

struct RefRules {
  size_t max_length = 4;
  size_t min_length = 0;
  std::vector<int32_t> prefix;
  double length_penalty = 1.0;
};

// The toy distribution at this point of the hypothesis, with EOS removed when it is forbidden.
inline std::vector<double> ref_distribution(uint64_t key, size_t vocab, const std::vector<int32_t>& generated,
                                            const RefRules& rules) {
  std::vector<double> lp = toy_log_probs(key, vocab, generated);
  const size_t t = generated.size();
  if (t >= rules.prefix.size() && t < rules.min_length) {
    double others = 0;
    for (size_t v = 0; v < vocab; ++v)
      if (static_cast<int32_t>(v) != kToyEos) others += std::exp(lp[v]);
    for (size_t v = 0; v < vocab; ++v) lp[v] -= std::log(others);
    lp[kToyEos] = -INFINITY;
  }
  return lp;
}

inline void ref_finish(RefHypothesis h, const RefRules& rules, std::vector<RefHypothesis>* out) {
  h.log_prob = 0;
  for (double x : h.token_log_probs) h.log_prob += x;
  const double len = static_cast<double>(h.token_log_probs.size());  // EOS counted
  h.score = h.log_prob / std::pow(len, rules.length_penalty);
  out->push_back(std::move(h));
}

inline void ref_expand(uint64_t key, size_t vocab, const RefRules& rules, const RefHypothesis& h,
                       std::vector<RefHypothesis>* out) {
  const size_t t = h.ids.size();
  const std::vector<double> lp = ref_distribution(key, vocab, h.ids, rules);
  for (size_t v = 0; v < vocab; ++v) {
    const int32_t token = static_cast<int32_t>(v);
    if (t < rules.prefix.size() && token != rules.prefix[t]) continue;
    if (lp[v] == -INFINITY) continue;
    RefHypothesis next = h;
    next.token_log_probs.push_back(lp[v]);
    if (token == kToyEos && t >= rules.prefix.size()) {
      next.with_eos = true;
      ref_finish(std::move(next), rules, out);
      continue;
    }
    next.ids.push_back(token);
    if (t + 1 == rules.max_length) {
      ref_finish(std::move(next), rules, out);
    } else {
      ref_expand(key, vocab, rules, next, out);
    }
  }
}

// Every complete hypothesis, best score first.
inline std::vector<RefHypothesis> ref_enumerate(uint64_t key, size_t vocab, const RefRules& rules) {
  std::vector<RefHypothesis> all;
  ref_expand(key, vocab, rules, RefHypothesis{}, &all);
  std::stable_sort(all.begin(), all.end(), [](const RefHypothesis& a, const RefHypothesis& b) { return a.score > b.score; });
  return all;
}

// The greedy chain: the most likely token at every step.
inline RefHypothesis ref_greedy(uint64_t key, size_t vocab, const RefRules& rules) {
  RefHypothesis h;
  for (size_t t = 0; t < rules.max_length; ++t) {
    const std::vector<double> lp = ref_distribution(key, vocab, h.ids, rules);
    int32_t token = 0;
    if (t < rules.prefix.size()) {
      token = rules.prefix[t];
    } else {
      for (size_t v = 1; v < vocab; ++v)
        if (lp[v] > lp[static_cast<size_t>(token)]) token = static_cast<int32_t>(v);
    }
    h.token_log_probs.push_back(lp[static_cast<size_t>(token)]);
    if (token == kToyEos) {
      h.with_eos = true;
      break;
    }
    h.ids.push_back(token);
  }
  std::vector<RefHypothesis> one;
  ref_finish(h, rules, &one);
  return one[0];
}

}  // namespace heed::test
