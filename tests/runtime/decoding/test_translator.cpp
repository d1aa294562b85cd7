// The Translator's token layer over the toy model: vocabulary mapping, unknown tokens, source
// BOS/EOS conventions, truncation of long sources, EOS/BOS handling on output, batching beyond
// max_batch, scoring.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "heed/translator.h"
#include "toy_model.h"

using namespace heed;
using namespace heed::test;

namespace {

// The source side numbers the special tokens differently from the target side.
const std::vector<std::string> kSourceTokens = {"a", "<s>", "b", "c", "</s>", "d", "<unk>"};
const std::vector<std::string> kTargetTokens = {"<unk>", "<s>", "</s>", "x", "y", "z"};

std::unique_ptr<Translator> make(size_t max_batch, bool add_bos, bool add_eos, int32_t unk = 0) {
  TokenConventions c;
  c.unk_id = unk;
  c.bos_id = kToyBos;
  c.eos_id = kToyEos;
  c.add_source_bos = add_bos;
  c.add_source_eos = add_eos;
  auto model = std::make_unique<ToyStepModel>(kTargetTokens.size(), StepModelLimits{max_batch, 3, 8, 10});
  std::unique_ptr<Translator> t;
  REQUIRE(Translator::create(std::move(model), Vocabulary(kSourceTokens), Vocabulary(kTargetTokens), c, 0, &t).is_ok());
  return t;
}

}  // namespace

TEST_CASE("vocabulary lookups", "[translator]") {
  Vocabulary v(kSourceTokens);
  CHECK(v.size() == 7);
  CHECK(v.id("c") == 3);
  CHECK(v.id("zz") == -1);
  CHECK(v.token(5) == "d");
  Vocabulary moved = std::move(v);
  CHECK(moved.id("d") == 5);  // the lookup table survives a move
  CHECK(Translator::split_tokens("  a\tb  c \r") == std::vector<std::string>{"a", "b", "c"});
  CHECK(Translator::split_tokens("   ").empty());
}

TEST_CASE("token mapping follows the conventions", "[translator]") {
  auto t = make(2, true, true);
  std::vector<int32_t> ids;
  REQUIRE(t->source_ids({"a", "zz", "d"}, &ids).is_ok());
  CHECK(ids == std::vector<int32_t>{1, 0, 6, 5, 4});  // <s> a <unk> d </s>, source ids
  CHECK(t->max_source_tokens() == 6);
  REQUIRE(t->target_ids({"z", "x", "q"}, &ids).is_ok());
  CHECK(ids == std::vector<int32_t>{5, 3, 0});
  const int32_t out[] = {kToyBos, 3, 4, kToyEos, 5};
  CHECK(t->target_tokens(out, 5) == std::vector<std::string>{"x", "y"});

  auto strict = make(2, false, false, -1);
  CHECK(strict->source_ids({"a", "zz"}, &ids).code() == StatusCode::kInvalidArgument);
  REQUIRE(strict->source_ids({"a", "b"}, &ids).is_ok());
  CHECK(ids == std::vector<int32_t>{0, 2});
}

TEST_CASE("long sources are cut to the session, the end token kept last (CTranslate2's rule)", "[translator]") {
  using Tokens = std::vector<std::string>;
  auto t = make(2, false, false);  // max_source_len 8, nothing added: 8 tokens
  REQUIRE(t->max_source_tokens() == 8);
  Tokens s = {"a", "b", "c", "d", "a", "b", "c", "d"};
  CHECK_FALSE(t->truncate_source(&s));  // fits: unchanged
  CHECK(s.size() == 8);
  s = {"a", "b", "c", "d", "a", "b", "c", "d", "a", "b"};
  CHECK(t->truncate_source(&s));
  CHECK(s == Tokens{"a", "b", "c", "d", "a", "b", "c", "d"});
  s = {"a", "b", "c", "d", "a", "b", "c", "d", "a", "</s>"};  // the end token the caller wrote
  CHECK(t->truncate_source(&s));
  CHECK(s == Tokens{"a", "b", "c", "d", "a", "b", "c", "</s>"});
  s = {"a", "b", "c", "d", "a", "b", "c", "d", "</s>", "d"};  // end token, then a language code
  CHECK(t->truncate_source(&s));
  CHECK(s == Tokens{"a", "b", "c", "d", "a", "b", "</s>", "d"});

  // A model that adds EOS: one token less, and the added EOS ends the ids.
  auto with_eos = make(2, true, true);
  s = Tokens(20, "c");
  CHECK(with_eos->truncate_source(&s));
  CHECK(s == Tokens(6, "c"));
  std::vector<int32_t> ids;
  REQUIRE(with_eos->source_ids(s, &ids).is_ok());
  CHECK(ids == std::vector<int32_t>{1, 3, 3, 3, 3, 3, 3, 4});  // <s> c x 6 </s>: max_source_len 8
}

TEST_CASE("token-level translation equals the id-level engine, across batches", "[translator]") {
  auto t = make(2, false, true);
  const std::vector<std::vector<std::string>> sources = {{"a", "b"}, {"c"}, {"d", "d", "a"}, {"b"}, {"q"}};
  const std::vector<std::vector<std::string>> prefixes = {{}, {"y"}, {}, {"z", "z"}, {}};
  DecodeOptions o;
  o.beam_size = 3;
  o.n_best = 2;
  std::vector<std::vector<TranslationHypothesis>> results;
  REQUIRE(t->translate_tokens(sources, o, &prefixes, &results).is_ok());
  REQUIRE(results.size() == sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    INFO("sentence " << i);
    std::vector<int32_t> src, pre;
    REQUIRE(t->source_ids(sources[i], &src).is_ok());
    REQUIRE(t->target_ids(prefixes[i], &pre).is_ok());
    const size_t so[] = {0, src.size()}, po[] = {0, pre.size()};
    TokenBatch sb{src.data(), so, 1}, pb{pre.data(), po, 1};
    DecodeOutput out;
    REQUIRE(t->translate(sb, o, &pb, &out).is_ok());
    REQUIRE(results[i].size() == out.count(0));
    for (size_t k = 0; k < out.count(0); ++k) {
      const Hypothesis& h = out.at(0, k);
      CHECK(results[i][k].ids == std::vector<int32_t>(h.ids, h.ids + h.length));
      CHECK(results[i][k].tokens == t->target_tokens(h.ids, h.length));
      CHECK(results[i][k].score == h.score);
      CHECK(results[i][k].token_log_probs.size() == h.num_log_probs);
    }
    REQUIRE(results[i][0].tokens.size() >= prefixes[i].size());
    CHECK(std::vector<std::string>(results[i][0].tokens.begin(), results[i][0].tokens.begin() + prefixes[i].size()) ==
          prefixes[i]);
  }
}

TEST_CASE("token-level scoring is the toy model's probability of each target token", "[translator]") {
  auto t = make(2, false, false);
  const std::vector<std::vector<std::string>> sources = {{"a"}, {"b", "c"}, {"d"}};
  const std::vector<std::vector<std::string>> targets = {{"x", "y"}, {}, {"z", "z", "x"}};
  std::vector<std::vector<float>> scores;
  REQUIRE(t->score_tokens(sources, targets, &scores).is_ok());
  for (size_t i = 0; i < 3; ++i) {
    std::vector<int32_t> src, tgt;
    REQUIRE(t->source_ids(sources[i], &src).is_ok());
    REQUIRE(t->target_ids(targets[i], &tgt).is_ok());
    REQUIRE(scores[i].size() == tgt.size() + 1);
    std::vector<int32_t> gen;
    for (size_t k = 0; k <= tgt.size(); ++k) {
      const auto d = toy_log_probs(toy_source_key(src.data(), src.size()), kTargetTokens.size(), gen);
      const int32_t tok = k < tgt.size() ? tgt[k] : kToyEos;
      CHECK(scores[i][k] == Approx(d[static_cast<size_t>(tok)]).margin(1e-5));
      gen.push_back(tok);
    }
  }
  CHECK(t->score_tokens(sources, {{"x"}}, &scores).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("a target vocabulary that does not match the model is refused", "[translator]") {
  auto model = std::make_unique<ToyStepModel>(4, StepModelLimits{1, 1, 4, 4});
  std::unique_ptr<Translator> t;
  CHECK(Translator::create(std::move(model), Vocabulary(kSourceTokens), Vocabulary(kTargetTokens), TokenConventions{}, 0, &t)
            .code() == StatusCode::kInvalidArgument);
}
