// Exhaustive reference for the decoding tests: enumerates every complete hypothesis of the toy
// model up to max_length (plain recursion over vectors, in double precision) with the documented
// rules of decoding.h (forced prefix, EOS forbidden and renormalized away before min_length,
// length penalty on the number of generated tokens, EOS counted), and a plain simulation of the
// CTranslate2 beam search algorithm documented in docs/decoding.md.
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

// log_prob: every token; score: the tokens after the prefix over the whole length (EOS counted).
inline void ref_finish(RefHypothesis h, const RefRules& rules, std::vector<RefHypothesis>* out) {
  h.log_prob = 0;
  double free_log_prob = 0;
  for (size_t t = 0; t < h.token_log_probs.size(); ++t) {
    h.log_prob += h.token_log_probs[t];
    if (t >= rules.prefix.size()) free_log_prob += h.token_log_probs[t];
  }
  const double len = static_cast<double>(h.token_log_probs.size());  // EOS counted
  h.score = free_log_prob / std::pow(len, rules.length_penalty);
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
    if (token == kToyEos && t >= rules.prefix.size()) {  // a forced end token does not end it
      h.with_eos = true;
      break;
    }
    h.ids.push_back(token);
  }
  std::vector<RefHypothesis> one;
  ref_finish(h, rules, &one);
  return one[0];
}

// How often the beam search simulation met each of its rules (to show a test exercised them).
struct RefBeamStats {
  size_t replaced = 0;       // a finished slot taken over by a second-half candidate
  size_t dropped_eos = 0;    // EOS candidates of the second half skipped
  size_t dead_slots = 0;     // rule 3: EOS below the top at the first free step after a prefix
  size_t early_stops = 0;    // stopped before max_length with hypotheses still alive
};

// CTranslate2's beam search, written plainly over vectors in double precision from the rules of
// docs/decoding.md: 2 x beam ranked candidates; the first `beam` fill the slots, those ending
// with EOS (all at the last step) finish and hand their slot to the next non-EOS candidate of the
// second half; at the first free step after a prefix, EOS below the top is a dead slot; stop at
// round(beam x patience) finished (length_penalty 0: once a step's best candidate finished and
// n_best have finished). Returns the n_best finished hypotheses by score (stable).
inline std::vector<RefHypothesis> ref_beam_search(uint64_t key, size_t vocab, const RefRules& rules, size_t beam,
                                                  size_t n_best, double patience, RefBeamStats* stats = nullptr) {
  struct Alive {
    RefHypothesis h;
    double cum;  // log-prob after the prefix
  };
  struct Cand {
    double score;
    size_t row;
    int32_t token;
  };
  RefBeamStats local;
  if (!stats) stats = &local;
  const size_t enough = static_cast<size_t>(std::round(static_cast<float>(beam) * static_cast<float>(patience)));
  const size_t prefix_len = rules.prefix.size();
  std::vector<Alive> alive{Alive{RefHypothesis{}, 0.0}};
  std::vector<RefHypothesis> finished;
  bool top_finished = false;
  for (size_t t = 0; t < rules.max_length; ++t) {
    const bool last = t + 1 == rules.max_length;
    std::vector<std::vector<double>> dists;
    for (const Alive& a : alive) dists.push_back(ref_distribution(key, vocab, a.h.ids, rules));
    auto extend = [&](size_t row, int32_t token, double cum) {
      Alive next = alive[row];
      next.h.token_log_probs.push_back(dists[row][static_cast<size_t>(token)]);
      if (token == kToyEos && t >= prefix_len) {  // a forced end token does not end it
        next.h.with_eos = true;
      } else {
        next.h.ids.push_back(token);
      }
      next.cum = cum;
      return next;
    };
    std::vector<Alive> next_alive;
    if (t < prefix_len) {
      Alive next = extend(0, rules.prefix[t], 0.0);
      if (last) {
        ref_finish(next.h, rules, &finished);
        break;
      }
      alive = {next};
      continue;
    }
    std::vector<Cand> cands;
    for (size_t j = 0; j < alive.size(); ++j) {
      for (size_t v = 0; v < vocab; ++v) {
        if (dists[j][v] == -INFINITY) continue;
        cands.push_back(Cand{alive[j].cum + dists[j][v], j, static_cast<int32_t>(v)});
      }
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.score > b.score; });
    if (cands.size() > 2 * beam) cands.resize(2 * beam);
    const bool first_free = prefix_len > 0 && t == prefix_len;
    size_t secondary = beam;
    for (size_t k = 0; k < std::min(beam, cands.size()); ++k) {
      const Cand& c = cands[k];
      const bool is_eos = c.token == kToyEos;
      if (first_free && k > 0 && is_eos) {
        stats->dead_slots++;
        continue;
      }
      if (!is_eos && !last) {
        next_alive.push_back(extend(c.row, c.token, c.score));
        continue;
      }
      if (k == 0) top_finished = true;
      ref_finish(extend(c.row, c.token, c.score).h, rules, &finished);
      if (last) continue;
      for (size_t j = secondary; j < cands.size(); ++j) {
        if (cands[j].token == kToyEos && !first_free) {
          stats->dropped_eos++;
          continue;
        }
        secondary = j + 1;
        if (cands[j].token != kToyEos) {
          next_alive.push_back(extend(cands[j].row, cands[j].token, cands[j].score));
          stats->replaced++;
        }
        break;
      }
    }
    if (last || next_alive.empty()) break;
    const bool stop = rules.length_penalty == 0 ? top_finished && finished.size() >= n_best : finished.size() >= enough;
    if (stop) {
      stats->early_stops++;
      break;
    }
    alive = std::move(next_alive);
  }
  std::stable_sort(finished.begin(), finished.end(),
                   [](const RefHypothesis& a, const RefHypothesis& b) { return a.score > b.score; });
  if (finished.size() > n_best) finished.resize(n_best);
  return finished;
}

}  // namespace heed::test
