// The decoding engine against an exhaustive reference on a toy model (toy_model.h,
// reference_search.h): greedy, beam search n-best, length penalty, min/max length, prefixes,
// batches, sampling, scoring and errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "heed/decoding.h"
#include "reference_search.h"
#include "toy_model.h"

using namespace heed;
using namespace heed::test;

namespace {

// Sentences stored flat, as TokenBatch wants them.
struct Batch {
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  void add(const std::vector<int32_t>& s) {
    ids.insert(ids.end(), s.begin(), s.end());
    offsets.push_back(ids.size());
  }
  TokenBatch view() const { return TokenBatch{ids.data(), offsets.data(), offsets.size() - 1}; }
};

std::vector<int32_t> hyp_ids(const Hypothesis& h) { return std::vector<int32_t>(h.ids, h.ids + h.length); }

struct Fixture {
  explicit Fixture(size_t vocab, size_t max_batch, size_t max_beam, size_t max_len, bool compacting = false)
      : model(vocab, StepModelLimits{max_batch, max_beam, 16, max_len}, compacting) {
    REQUIRE(DecodingEngine::create(&model, DecodingLimits{}, &engine).is_ok());
  }
  ToyStepModel model;
  std::unique_ptr<DecodingEngine> engine;
};

const std::vector<std::vector<int32_t>> kSources = {{3, 4, 5}, {7}, {0, 6, 6, 1}, {5, 5}};

void check_against_reference(const Hypothesis& got, const RefHypothesis& want) {
  CHECK(hyp_ids(got) == want.ids);
  CHECK(got.finished_with_eos == want.with_eos);
  REQUIRE(got.num_log_probs == want.token_log_probs.size());
  for (size_t t = 0; t < got.num_log_probs; ++t) CHECK(got.token_log_probs[t] == Approx(want.token_log_probs[t]).margin(1e-5));
  CHECK(got.log_prob == Approx(want.log_prob).margin(1e-4));
  CHECK(got.score == Approx(want.score).margin(1e-4));
}

// Beam search of one sentence with `o` against the plain simulation of the documented algorithm.
void check_beam_search(Fixture& f, size_t vocab, size_t max_len, const std::vector<int32_t>& src,
                       const std::vector<int32_t>& prefix, const DecodeOptions& o, RefBeamStats* stats) {
  Batch b, pre;
  b.add(src);
  pre.add(prefix);
  TokenBatch tb = b.view(), tp = pre.view();
  DecodeOutput out;
  REQUIRE(f.engine->decode(&tb, 1, o, &tp, &out).is_ok());
  RefRules rules;
  rules.max_length = max_len;
  rules.min_length = o.min_length;
  rules.length_penalty = o.length_penalty;
  rules.prefix = prefix;
  auto ref = ref_beam_search(toy_source_key(src.data(), src.size()), vocab, rules, o.beam_size, o.n_best, o.patience,
                             stats);
  REQUIRE(out.count(0) == ref.size());
  for (size_t k = 0; k < ref.size(); ++k) {
    INFO("rank " << k);
    check_against_reference(out.at(0, k), ref[k]);
  }
}

}  // namespace

TEST_CASE("greedy search follows the argmax chain", "[decoding]") {
  const size_t vocab = 6;
  Fixture f(vocab, 4, 1, 8);
  for (size_t min_len : {0, 3}) {
    for (const auto& src : kSources) {
      Batch b;
      b.add(src);
      TokenBatch tb = b.view();
      DecodeOptions o;
      o.min_length = min_len;
      DecodeOutput out;
      REQUIRE(f.engine->decode(&tb, 1, o, nullptr, &out).is_ok());
      REQUIRE(out.count(0) == 1);
      RefRules rules;
      rules.max_length = 8;
      rules.min_length = min_len;
      check_against_reference(out.at(0, 0), ref_greedy(toy_source_key(src.data(), src.size()), vocab, rules));
      if (min_len == 3) CHECK(out.at(0, 0).length >= 3);
    }
  }
  CHECK(f.model.contract_violations == 0);
}

TEST_CASE("beam search wide enough to keep everything equals exhaustive n-best", "[decoding]") {
  // vocab 5, max_length 4: at most 4^3 alive hypotheses x 5 tokens = 320 candidates per step, so
  // every candidate ranks within the beam and, with a length penalty, the search cannot stop
  // before max_length (1 + 4 + 16 finished < 320). With length_penalty 0 CTranslate2's early exit
  // (a step's best candidate finished and n_best have finished) may stop sooner: the reference is
  // then the simulation of that algorithm.
  const size_t vocab = 5, max_len = 4, beam = 320;
  Fixture f(vocab, 3, beam, max_len);
  for (float penalty : {1.0f, 0.0f, 0.6f}) {
    for (size_t min_len : {0, 2}) {
      for (size_t s = 0; s < 3; ++s) {
        INFO("penalty " << penalty << " min_length " << min_len << " source " << s);
        Batch b;
        b.add(kSources[s]);
        TokenBatch tb = b.view();
        DecodeOptions o;
        o.beam_size = beam;
        o.n_best = 10;
        o.length_penalty = penalty;
        o.min_length = min_len;
        o.max_length = max_len;
        DecodeOutput out;
        REQUIRE(f.engine->decode(&tb, 1, o, nullptr, &out).is_ok());
        RefRules rules;
        rules.max_length = max_len;
        rules.min_length = min_len;
        rules.length_penalty = penalty;
        const uint64_t key = toy_source_key(kSources[s].data(), kSources[s].size());
        auto ref = penalty != 0 ? ref_enumerate(key, vocab, rules) : ref_beam_search(key, vocab, rules, beam, 10, 1.0);
        REQUIRE(ref.size() >= 10);
        REQUIRE(out.count(0) == 10);
        for (size_t k = 0; k < 10; ++k) {
          INFO("rank " << k);
          check_against_reference(out.at(0, k), ref[k]);
          CHECK(out.at(0, k).length >= min_len);
          CHECK(out.at(0, k).length <= max_len);
        }
      }
    }
  }
  CHECK(f.model.contract_violations == 0);
  CHECK(f.model.reorders > 0);
}

TEST_CASE("a forced prefix is kept and the rest follows the beam search rules", "[decoding]") {
  const size_t vocab = 5, max_len = 5, beam = 320;
  Fixture f(vocab, 3, beam, max_len);
  // The last prefix holds the end token: a forced token never ends a hypothesis (a chat prompt
  // closes every turn with it), only a chosen one does.
  const std::vector<std::vector<int32_t>> prefixes = {{4}, {3, 0}, {}, {kToyEos, 3}};
  for (size_t s = 0; s < prefixes.size(); ++s) {
    INFO("source " << s);
    Batch src, pre;
    src.add(kSources[s]);
    pre.add(prefixes[s]);
    TokenBatch ts = src.view(), tp = pre.view();
    RefRules rules;
    rules.max_length = max_len;
    rules.prefix = prefixes[s];
    const uint64_t key = toy_source_key(kSources[s].data(), kSources[s].size());
    // A beam wide enough for every hypothesis after the prefix (at most 4^(5-1-|prefix|) alive);
    // what differs from exhaustive search is CTranslate2's rule for the first step after a prefix
    // (an EOS ranked below the best candidate is dropped), which the simulation applies.
    DecodeOptions o;
    o.beam_size = beam;
    o.n_best = 5;
    o.max_length = max_len;
    if (prefixes[s].empty()) o.max_length = 4;  // keep the unconstrained case within the beam
    rules.max_length = o.max_length;
    DecodeOutput out;
    REQUIRE(f.engine->decode(&ts, 1, o, &tp, &out).is_ok());
    auto ref = ref_beam_search(key, vocab, rules, beam, 5, 1.0);
    REQUIRE(out.count(0) == 5);
    REQUIRE(ref.size() == 5);
    if (prefixes[s].empty()) {
      // Without a prefix nothing is dropped: the wide beam is the exhaustive search.
      auto all = ref_enumerate(key, vocab, rules);
      for (size_t k = 0; k < 5; ++k) CHECK(ref[k].ids == all[k].ids);
    }
    for (size_t k = 0; k < 5; ++k) {
      check_against_reference(out.at(0, k), ref[k]);
      REQUIRE(out.at(0, k).length >= prefixes[s].size());
      CHECK(std::vector<int32_t>(out.at(0, k).ids, out.at(0, k).ids + prefixes[s].size()) == prefixes[s]);
    }
    // Greedy with the same prefix.
    DecodeOptions g;
    g.max_length = max_len;
    rules.max_length = max_len;
    REQUIRE(f.engine->decode(&ts, 1, g, &tp, &out).is_ok());
    check_against_reference(out.at(0, 0), ref_greedy(key, vocab, rules));
  }
}

TEST_CASE("beam search follows CTranslate2's algorithm step by step", "[decoding]") {
  // The engine against a plain simulation of the documented algorithm (reference_search.h) over
  // beams, length penalties, min lengths, patience factors, prefixes and sources; the counters
  // show the sweep met every rule (replacement from the second half, EOS dropped there, dead
  // slots after a prefix, early stops).
  const size_t vocab = 6, max_len = 7;
  Fixture f(vocab, 1, 4, max_len);
  const std::vector<std::vector<int32_t>> prefixes = {{}, {4}, {3, 0}};
  RefBeamStats stats;
  size_t cases = 0;
  for (size_t beam : {2, 3, 4}) {
    for (float penalty : {1.0f, 0.0f, 0.6f}) {
      for (size_t min_len : {0, 1, 3}) {
        for (float patience : {1.0f, 2.0f, 0.5f}) {
          for (const auto& prefix : prefixes) {
            for (const auto& src : kSources) {
              const size_t enough = static_cast<size_t>(std::round(static_cast<float>(beam) * patience));
              const size_t n_best = std::min(beam, enough);
              INFO("beam " << beam << " penalty " << penalty << " min " << min_len << " patience " << patience
                           << " prefix " << prefix.size() << " source " << src.size());
              DecodeOptions o;
              o.beam_size = beam;
              o.n_best = n_best;
              o.length_penalty = penalty;
              o.min_length = min_len;
              o.patience = patience;
              check_beam_search(f, vocab, max_len, src, prefix, o, &stats);
              ++cases;
            }
          }
        }
      }
    }
  }
  CHECK(cases == 3 * 3 * 3 * 3 * 3 * kSources.size());
  CHECK(stats.replaced > 0);
  CHECK(stats.dropped_eos > 0);
  CHECK(stats.dead_slots > 0);
  CHECK(stats.early_stops > 0);
  CHECK(f.model.contract_violations == 0);
}

TEST_CASE("beam search over a vocabulary of several scan blocks follows the reference", "[decoding]") {
  // The candidate scan skips whole chunks of 8 blocks, then whole blocks of 32 tokens, once its
  // heap is full (beam_search.cpp): 549 tokens = 2 chunks, a block and a tail, with the same sweep
  // as above on fewer settings.
  const size_t vocab = 549, max_len = 6;
  Fixture f(vocab, 1, 4, max_len);
  size_t cases = 0;
  for (size_t beam : {2, 3, 4}) {
    for (float penalty : {1.0f, 0.6f}) {
      for (size_t min_len : {0, 3}) {
        for (const std::vector<int32_t>& prefix : {std::vector<int32_t>{}, std::vector<int32_t>{40, 17}}) {
          for (const auto& src : kSources) {
            INFO("beam " << beam << " penalty " << penalty << " min " << min_len << " prefix " << prefix.size()
                         << " source " << src.size());
            DecodeOptions o;
            o.beam_size = beam;
            o.n_best = beam;
            o.length_penalty = penalty;
            o.min_length = min_len;
            check_beam_search(f, vocab, max_len, src, prefix, o, nullptr);
            ++cases;
          }
        }
      }
    }
  }
  CHECK(cases == 3 * 2 * 2 * 2 * kSources.size());
  CHECK(f.model.contract_violations == 0);
}

TEST_CASE("beam search over rows of logits: read through the model's shift or log-softmaxed, the same results",
          "[decoding]") {
  // A model that gives logits is either asked what its log-softmax subtracts and its rows are read
  // through that (never rewritten), or its rows are log-softmaxed in place (a model that does not
  // say): bitwise the same hypotheses, token log-probs and scores, with the controls removing
  // tokens (end token before min_length, n-gram repeats, a suppressed token), including removals
  // of most of the mass (vocabulary 6, where the end token dominates the late steps).
  const int32_t suppressed_ids[] = {4};
  const size_t suppressed_offsets[] = {0, 1};
  const TokenBatch suppressed{suppressed_ids, suppressed_offsets, 1};
  size_t cases = 0;
  for (size_t vocab : {size_t(6), size_t(131)}) {
    const StepModelLimits limits{4, 4, 16, 8};
    ToyStepModel read(vocab, limits, false, ToyLogits::kShift), rewritten(vocab, limits, false, ToyLogits::kRows);
    std::unique_ptr<DecodingEngine> read_engine, rewritten_engine;
    REQUIRE(DecodingEngine::create(&read, DecodingLimits{}, &read_engine).is_ok());
    REQUIRE(DecodingEngine::create(&rewritten, DecodingLimits{}, &rewritten_engine).is_ok());
    Batch b;
    for (const auto& src : kSources) b.add(src);
    const TokenBatch sources = b.view();
    for (size_t beam : {2, 4}) {
      for (size_t min_len : {0, 6}) {
        for (int controls = 0; controls < 2; ++controls) {
          INFO("vocab " << vocab << " beam " << beam << " min " << min_len << " controls " << controls);
          DecodeOptions o;
          o.beam_size = beam;
          o.n_best = beam;
          o.min_length = min_len;
          if (controls) {
            o.controls.no_repeat_ngram_size = 2;
            o.controls.suppress_sequences = &suppressed;
          }
          DecodeOutput got, want;
          REQUIRE(read_engine->decode(&sources, kSources.size(), o, nullptr, &got).is_ok());
          REQUIRE(rewritten_engine->decode(&sources, kSources.size(), o, nullptr, &want).is_ok());
          for (size_t i = 0; i < kSources.size(); ++i) {
            REQUIRE(got.count(i) == want.count(i));
            for (size_t k = 0; k < got.count(i); ++k) {
              const Hypothesis &g = got.at(i, k), &w = want.at(i, k);
              CHECK(hyp_ids(g) == hyp_ids(w));
              REQUIRE(g.num_log_probs == w.num_log_probs);
              CHECK(std::memcmp(g.token_log_probs, w.token_log_probs, g.num_log_probs * sizeof(float)) == 0);
              CHECK(std::memcmp(&g.score, &w.score, sizeof(float)) == 0);
              CHECK(std::memcmp(&g.log_prob, &w.log_prob, sizeof(float)) == 0);
            }
          }
          ++cases;
        }
      }
    }
    CHECK(read.contract_violations == 0);
    CHECK(rewritten.contract_violations == 0);
  }
  CHECK(cases == 2 * 2 * 2 * 2);
}

TEST_CASE("min_length 1 keeps beam search from finishing an empty hypothesis", "[decoding]") {
  // EOS is likely at the first step of some toy sources: with min_length 0 a beam of 2 can
  // finish the empty hypothesis; CTranslate2's translation default (min length 1) cannot.
  const size_t vocab = 6, max_len = 6;
  Fixture f(vocab, 1, 2, max_len);
  size_t empty_with_0 = 0;
  for (int32_t a = 0; a < 40; ++a) {
    const std::vector<int32_t> src = {a, a + 1};
    Batch b;
    b.add(src);
    TokenBatch tb = b.view();
    DecodeOptions o = translation_defaults();
    o.n_best = 2;
    DecodeOutput out;
    REQUIRE(f.engine->decode(&tb, 1, o, nullptr, &out).is_ok());
    for (size_t k = 0; k < out.count(0); ++k) CHECK(out.at(0, k).length >= 1);
    o.min_length = 0;
    REQUIRE(f.engine->decode(&tb, 1, o, nullptr, &out).is_ok());
    for (size_t k = 0; k < out.count(0); ++k) empty_with_0 += out.at(0, k).length == 0 ? 1 : 0;
  }
  CHECK(empty_with_0 > 0);
  const DecodeOptions d = translation_defaults();
  CHECK(d.beam_size == 2);
  CHECK(d.n_best == 1);
  CHECK(d.min_length == 1);
  CHECK(d.length_penalty == 1.0f);
  CHECK(d.patience == 1.0f);
}

TEST_CASE("max_length ends hypotheses without EOS", "[decoding]") {
  const size_t vocab = 6;
  Fixture f(vocab, 1, 4, 10);
  Batch b;
  b.add(kSources[0]);
  TokenBatch tb = b.view();
  DecodeOptions o;
  o.max_length = 1;
  o.min_length = 5;  // EOS never allowed: every hypothesis stops at max_length
  DecodeOutput out;
  REQUIRE(f.engine->decode(&tb, 1, o, nullptr, &out).is_ok());
  CHECK(out.at(0, 0).length == 1);
  CHECK_FALSE(out.at(0, 0).finished_with_eos);
  CHECK(out.at(0, 0).num_log_probs == 1);
  o.beam_size = 4;
  o.n_best = 4;
  o.max_length = 3;
  REQUIRE(f.engine->decode(&tb, 1, o, nullptr, &out).is_ok());
  REQUIRE(out.count(0) == 4);
  for (size_t k = 0; k < 4; ++k) {
    CHECK(out.at(0, k).length == 3);
    CHECK_FALSE(out.at(0, k).finished_with_eos);
  }
}

TEST_CASE("batched decoding equals decoding each sentence alone", "[decoding]") {
  const size_t vocab = 7, max_len = 9;
  // With compaction the model's rows of finished sentences are dropped (and the others move).
  const bool compacting = GENERATE(false, true);
  INFO("compacting " << compacting);
  Fixture f(vocab, 4, 4, max_len, compacting);
  Batch all, pre;
  for (const auto& s : kSources) all.add(s);
  const std::vector<std::vector<int32_t>> prefixes = {{}, {5, 5, 5}, {3}, {}};
  for (const auto& p : prefixes) pre.add(p);
  TokenBatch ta = all.view(), tp = pre.view();
  for (size_t beam : {1, 2, 4}) {
    INFO("beam " << beam);
    DecodeOptions o;
    o.beam_size = beam;
    o.n_best = beam;
    o.min_length = 1;
    // Copy the batched results: the next call reuses the storage.
    DecodeOutput out;
    REQUIRE(f.engine->decode(&ta, kSources.size(), o, &tp, &out).is_ok());
    std::vector<std::vector<std::pair<std::vector<int32_t>, float>>> batched(kSources.size());
    for (size_t i = 0; i < kSources.size(); ++i)
      for (size_t k = 0; k < out.count(i); ++k) batched[i].push_back({hyp_ids(out.at(i, k)), out.at(i, k).score});
    for (size_t i = 0; i < kSources.size(); ++i) {
      Batch one, one_pre;
      one.add(kSources[i]);
      one_pre.add(prefixes[i]);
      TokenBatch t1 = one.view(), p1 = one_pre.view();
      REQUIRE(f.engine->decode(&t1, 1, o, &p1, &out).is_ok());
      REQUIRE(out.count(0) == batched[i].size());
      for (size_t k = 0; k < out.count(0); ++k) {
        CHECK(hyp_ids(out.at(0, k)) == batched[i][k].first);
        CHECK(out.at(0, k).score == batched[i][k].second);
      }
    }
  }
  CHECK(f.model.contract_violations == 0);
  CHECK((f.model.compactions > 0) == compacting);
}

TEST_CASE("a small beam finds the greedy result or better", "[decoding]") {
  const size_t vocab = 8, max_len = 7;
  Fixture f(vocab, 1, 5, max_len);
  for (const auto& src : kSources) {
    Batch b;
    b.add(src);
    TokenBatch tb = b.view();
    DecodeOptions o;
    o.length_penalty = 0;
    DecodeOutput out;
    REQUIRE(f.engine->decode(&tb, 1, o, nullptr, &out).is_ok());
    const float greedy = out.at(0, 0).log_prob;
    o.beam_size = 5;
    o.n_best = 3;
    REQUIRE(f.engine->decode(&tb, 1, o, nullptr, &out).is_ok());
    CHECK(out.at(0, 0).log_prob >= greedy - 1e-6f);
    // Ranked best first and all distinct.
    std::set<std::vector<int32_t>> seen;
    for (size_t k = 0; k < out.count(0); ++k) {
      if (k > 0) CHECK(out.at(0, k - 1).score >= out.at(0, k).score);
      CHECK(seen.insert(hyp_ids(out.at(0, k))).second);
      // Every reported score is the model's probability of that hypothesis.
      RefRules rules;
      rules.max_length = max_len;
      std::vector<int32_t> gen;
      double lp = 0;
      const Hypothesis& h = out.at(0, k);
      for (size_t t = 0; t < h.num_log_probs; ++t) {
        auto d = toy_log_probs(toy_source_key(src.data(), src.size()), vocab, gen);
        const int32_t tok = t < h.length ? h.ids[t] : kToyEos;
        lp += d[static_cast<size_t>(tok)];
        gen.push_back(tok);
      }
      CHECK(h.log_prob == Approx(lp).margin(1e-4));
    }
  }
}

TEST_CASE("scoring returns the model's log-prob of every target token and EOS", "[decoding]") {
  const size_t vocab = 6;
  Fixture f(vocab, 3, 2, 8);
  Batch src, tgt;
  const std::vector<std::vector<int32_t>> targets = {{3, 4, 0}, {}, {5, 5, 1, 2, 3, 4, 0}};
  for (size_t i = 0; i < 3; ++i) {
    src.add(kSources[i]);
    tgt.add(targets[i]);
  }
  TokenBatch ts = src.view(), tt = tgt.view();
  ScoreOutput out;
  REQUIRE(f.engine->score(&ts, tt, &out).is_ok());
  REQUIRE(out.batch == 3);
  for (size_t i = 0; i < 3; ++i) {
    REQUIRE(out.length(i) == targets[i].size() + 1);
    std::vector<int32_t> gen;
    double total = 0;
    for (size_t t = 0; t <= targets[i].size(); ++t) {
      auto d = toy_log_probs(toy_source_key(kSources[i].data(), kSources[i].size()), vocab, gen);
      const int32_t tok = t < targets[i].size() ? targets[i][t] : kToyEos;
      CHECK(out.sentence(i)[t] == Approx(d[static_cast<size_t>(tok)]).margin(1e-5));
      total += d[static_cast<size_t>(tok)];
      gen.push_back(tok);
    }
    CHECK(out.total(i) == Approx(total).margin(1e-4));
  }
  // Scoring a translation gives back its log-prob.
  DecodeOptions o;
  o.beam_size = 2;
  o.n_best = 2;
  DecodeOutput dec;
  REQUIRE(f.engine->decode(&ts, 3, o, nullptr, &dec).is_ok());
  Batch again;
  std::vector<float> want;
  for (size_t i = 0; i < 3; ++i) {
    again.add(hyp_ids(dec.at(i, 1)));
    want.push_back(dec.at(i, 1).finished_with_eos ? dec.at(i, 1).log_prob : NAN);
  }
  TokenBatch ta = again.view();
  REQUIRE(f.engine->score(&ts, ta, &out).is_ok());
  for (size_t i = 0; i < 3; ++i) {
    if (!std::isnan(want[i])) CHECK(out.total(i) == Approx(want[i]).margin(1e-4));
  }
}

TEST_CASE("sampling: seeded, reproducible, top-k, and greedy as temperature goes to 0", "[decoding]") {
  const size_t vocab = 8, max_len = 8;
  Fixture f(vocab, 4, 1, max_len);
  Batch all;
  for (const auto& s : kSources) all.add(s);
  TokenBatch ta = all.view();
  DecodeOptions greedy;
  DecodeOutput out;
  REQUIRE(f.engine->decode(&ta, 4, greedy, nullptr, &out).is_ok());
  std::vector<std::vector<int32_t>> greedy_ids;
  for (size_t i = 0; i < 4; ++i) greedy_ids.push_back(hyp_ids(out.at(i, 0)));

  DecodeOptions cold;
  cold.sampling_top_k = 0;
  cold.sampling_temperature = 1e-4f;
  for (uint64_t seed : {1, 2, 3}) {
    cold.seed = seed;
    REQUIRE(f.engine->decode(&ta, 4, cold, nullptr, &out).is_ok());
    for (size_t i = 0; i < 4; ++i) CHECK(hyp_ids(out.at(i, 0)) == greedy_ids[i]);
  }

  DecodeOptions hot;
  hot.sampling_top_k = 0;
  hot.seed = 42;
  REQUIRE(f.engine->decode(&ta, 4, hot, nullptr, &out).is_ok());
  std::vector<std::vector<int32_t>> first;
  for (size_t i = 0; i < 4; ++i) first.push_back(hyp_ids(out.at(i, 0)));
  REQUIRE(f.engine->decode(&ta, 4, hot, nullptr, &out).is_ok());
  for (size_t i = 0; i < 4; ++i) CHECK(hyp_ids(out.at(i, 0)) == first[i]);

  // The first token's empirical distribution over many seeds follows the model (T = 1), and
  // top-k 2 only ever draws the two most likely tokens.
  Batch one;
  one.add(kSources[0]);
  TokenBatch t1 = one.view();
  const auto probs = toy_log_probs(toy_source_key(kSources[0].data(), kSources[0].size()), vocab, {});
  std::vector<int32_t> order(vocab);
  for (size_t v = 0; v < vocab; ++v) order[v] = static_cast<int32_t>(v);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return probs[a] > probs[b]; });
  const int draws = 4000;
  std::vector<int> counts(vocab, 0), counts_k2(vocab, 0);
  DecodeOptions k2 = hot;
  k2.sampling_top_k = 2;
  for (int d = 0; d < draws; ++d) {
    hot.seed = k2.seed = 1000 + static_cast<uint64_t>(d);
    hot.max_length = k2.max_length = 1;
    REQUIRE(f.engine->decode(&t1, 1, hot, nullptr, &out).is_ok());
    const int32_t tok = out.at(0, 0).finished_with_eos ? kToyEos : out.at(0, 0).ids[0];
    counts[static_cast<size_t>(tok)]++;
    REQUIRE(f.engine->decode(&t1, 1, k2, nullptr, &out).is_ok());
    counts_k2[static_cast<size_t>(out.at(0, 0).finished_with_eos ? kToyEos : out.at(0, 0).ids[0])]++;
  }
  for (size_t v = 0; v < vocab; ++v) {
    const double p = std::exp(probs[v]);
    const double sigma = std::sqrt(p * (1 - p) / draws);
    INFO("token " << v << " p " << p);
    CHECK(std::abs(counts[v] / double(draws) - p) < 5 * sigma + 1e-3);
  }
  const double p0 = std::exp(probs[order[0]]), p1 = std::exp(probs[order[1]]);
  CHECK(counts_k2[order[0]] + counts_k2[order[1]] == draws);
  const double share = counts_k2[order[0]] / double(draws), want = p0 / (p0 + p1);
  CHECK(std::abs(share - want) < 5 * std::sqrt(want * (1 - want) / draws) + 1e-3);
}

TEST_CASE("bad options and inputs are errors, not crashes", "[decoding]") {
  Fixture f(6, 2, 3, 6);
  Batch b, pre;
  b.add(kSources[0]);
  TokenBatch tb = b.view();
  DecodeOutput out;
  DecodeOptions o;
  o.beam_size = 4;  // above the session's max_beam: the same code as StepModel::start gives
  CHECK(f.engine->decode(&tb, 1, o, nullptr, &out).code() == StatusCode::kLimitExceeded);
  o.beam_size = 2;
  o.n_best = 3;
  CHECK(f.engine->decode(&tb, 1, o, nullptr, &out).code() == StatusCode::kInvalidArgument);
  o.patience = 0.5f;  // beam 2 x 0.5 = 1 finished hypothesis: n_best 3 is too many
  o.n_best = 2;
  CHECK(f.engine->decode(&tb, 1, o, nullptr, &out).code() == StatusCode::kInvalidArgument);
  o.patience = 0;
  o.n_best = 1;
  CHECK(f.engine->decode(&tb, 1, o, nullptr, &out).code() == StatusCode::kInvalidArgument);
  o.patience = NAN;
  CHECK(f.engine->decode(&tb, 1, o, nullptr, &out).code() == StatusCode::kInvalidArgument);
  o = DecodeOptions{};
  o.max_length = 7;
  CHECK(f.engine->decode(&tb, 1, o, nullptr, &out).code() == StatusCode::kLimitExceeded);
  o = DecodeOptions{};
  o.beam_size = 2;
  o.sampling_top_k = 0;
  CHECK(f.engine->decode(&tb, 1, o, nullptr, &out).code() == StatusCode::kInvalidArgument);
  o = DecodeOptions{};
  o.sampling_top_k = 5;
  o.sampling_temperature = 0;
  CHECK(f.engine->decode(&tb, 1, o, nullptr, &out).code() == StatusCode::kInvalidArgument);
  o = DecodeOptions{};
  Batch three;
  for (int i = 0; i < 3; ++i) three.add(kSources[0]);
  TokenBatch t3 = three.view();
  CHECK(f.engine->decode(&t3, 3, o, nullptr, &out).code() == StatusCode::kLimitExceeded);
  Batch long_pre;
  long_pre.add({3, 3, 3, 3, 3, 3, 3});
  TokenBatch tl = long_pre.view();
  CHECK(f.engine->decode(&tb, 1, o, &tl, &out).code() == StatusCode::kLimitExceeded);
  Batch bad_id;
  bad_id.add({9});
  TokenBatch tbad = bad_id.view();
  CHECK(f.engine->decode(&tb, 1, o, &tbad, &out).code() == StatusCode::kInvalidArgument);
  ScoreOutput so;
  CHECK(f.engine->score(&tb, tbad, &so).code() == StatusCode::kInvalidArgument);
  Batch long_tgt;
  long_tgt.add({3, 3, 3, 3, 3, 3});  // 6 tokens + EOS > 6 steps
  TokenBatch tlt = long_tgt.view();
  CHECK(f.engine->score(&tb, tlt, &so).code() == StatusCode::kLimitExceeded);
  // Nothing above reached the model.
  CHECK(f.model.starts == 0);
  std::unique_ptr<DecodingEngine> e;
  CHECK(DecodingEngine::create(nullptr, DecodingLimits{}, &e).code() == StatusCode::kInvalidArgument);
  CHECK(DecodingEngine::create(&f.model, DecodingLimits{4}, &e).code() == StatusCode::kInvalidArgument);
}
