// Real models converted in memory (float32 weights) and translated with heed's decoding engine,
// against CTranslate2's own beam search outputs and scores (fixtures/*_ct2_decoding.txt, written
// by fixtures/make_aren_ct2_decoding.py): the aren-transliteration model (../shared) and heed's
// demo model (demo/numbers-en-de), whose sentences exercise the beam search rules of
// docs/decoding.md (min length, early finishing, patience, length penalty 0, prefixes); and the
// decoding controls (fixtures/*_ct2_controls.txt, fixtures/make_ct2_controls.py): unknown token,
// suppressed sequences, repetition penalty, repeated n-grams and end tokens, greedy and beam, and
// return_alternatives.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "ct2/reader.h"
#include "heed/model.h"
#include "heed/translator.h"
#include "heed_writer.h"
#include "ct2_fixture.h"
#include "test_paths.h"

using namespace heed;

namespace {

using test::Expected;
using test::Fixture;
using test::read_fixture;

std::string join(const std::vector<std::string>& t) {
  std::string s;
  for (size_t i = 0; i < t.size(); ++i) s += (i ? " " : "") + t[i];
  return s;
}

// Translates the fixture's sources with every configuration and compares with CTranslate2's
// hypotheses (exactly) and scores (within `tolerance`, absolute and relative).
void check_configs(Translator& translator, const Fixture& f, double tolerance) {
  for (const Expected& e : f.configs) {
    test::ControlIds ids;
    DecodeOptions o;
    ids.bind(e.controls, [&](const std::string& t) { return translator.target_vocabulary().id(t); }, &o.controls);
    o.return_alternatives = e.controls.return_alternatives;
    o.beam_size = e.beam;
    o.n_best = e.n_best;
    o.length_penalty = e.penalty;
    o.min_length = e.min_len;
    o.max_length = e.max_len;
    o.patience = e.patience;
    if (e.use_prefix) REQUIRE(f.prefixes.size() == f.sources.size());
    std::vector<std::vector<TranslationHypothesis>> got;
    REQUIRE(translator.translate_tokens(f.sources, o, e.use_prefix ? &f.prefixes : nullptr, &got).is_ok());
    for (size_t i = 0; i < f.sources.size(); ++i) {
      INFO("beam " << e.beam << " n_best " << e.n_best << " penalty " << e.penalty << " min " << e.min_len << " max "
                   << e.max_len << " patience " << e.patience << " prefix " << e.use_prefix << " controls "
                   << e.controls.text << " source " << i);
      REQUIRE(got[i].size() == e.hyps[i].size());
      for (size_t k = 0; k < got[i].size(); ++k) {
        CHECK(join(got[i][k].tokens) == e.hyps[i][k].first);
        CHECK(got[i][k].score == Approx(e.hyps[i][k].second).margin(tolerance).epsilon(tolerance));
      }
    }
  }
}

// A CTranslate2 folder converted in memory with float32 weights, as heed convert -q float32 does.
std::unique_ptr<Model> float32_model(const std::string& dir, std::vector<uint8_t>* bytes) {
  convert::NeutralModel neutral;
  REQUIRE(convert::ct2::read_model(dir, &neutral).is_ok());
  REQUIRE(convert::serialize_heed(neutral, bytes).is_ok());
  std::unique_ptr<Model> model;
  REQUIRE(Model::from_bytes(bytes->data(), bytes->size(), &model).is_ok());
  return model;
}

}  // namespace

TEST_CASE("aren-transliteration: beam search and scores match CTranslate2", "[decoding][real]") {
  std::vector<uint8_t> bytes;
  const auto model = float32_model(test::shared_path("models/ct2/aren-transliteration"), &bytes);
  const Fixture f = read_fixture("aren_ct2_decoding.txt");
  REQUIRE(f.sources.size() == 6);  // the last one has a token outside the source vocabulary
  REQUIRE(f.configs.size() >= 5);
  TranslatorOptions options;
  options.limits = StepModelLimits{4, 5, 32, 64};  // 6 sources: two batches
  std::unique_ptr<Translator> translator;
  REQUIRE(Translator::create(*model, options, &translator).is_ok());

  check_configs(*translator, f, 2e-5);

  // Scoring CTranslate2's greedy outputs gives its per-token log-probs (EOS last).
  std::vector<std::vector<std::string>> targets;
  for (const auto& h : f.configs[0].hyps) targets.push_back(Translator::split_tokens(h.at(0).first));
  std::vector<std::vector<float>> scores;
  REQUIRE(translator->score_tokens(f.sources, targets, &scores).is_ok());
  REQUIRE(scores.size() == f.scores.size());
  for (size_t i = 0; i < scores.size(); ++i) {
    REQUIRE(scores[i].size() == f.scores[i].size());
    for (size_t t = 0; t < scores[i].size(); ++t) CHECK(scores[i][t] == Approx(f.scores[i][t]).margin(2e-5));
  }
}

// Sinusoidal positions bound nothing: the default lengths stay 256.
TEST_CASE("aren-transliteration: no position limit, default lengths 256", "[decoding][real]") {
  convert::NeutralModel neutral;
  REQUIRE(convert::ct2::read_model(test::shared_path("models/ct2/aren-transliteration"), &neutral).is_ok());
  std::vector<uint8_t> bytes;
  REQUIRE(convert::serialize_heed(neutral, &bytes).is_ok());
  std::unique_ptr<Model> model;
  REQUIRE(Model::from_bytes(bytes.data(), bytes.size(), &model).is_ok());
  CHECK(model->position_limits().source == 0);
  CHECK(model->position_limits().target == 0);
  std::unique_ptr<Translator> translator;
  REQUIRE(Translator::create(*model, TranslatorOptions(), &translator).is_ok());
  CHECK(translator->limits().max_source_len == Translator::kDefaultLength);
  CHECK(translator->limits().max_target_len == Translator::kDefaultLength);
}

TEST_CASE("demo numbers-en-de: beam search and scores match CTranslate2", "[decoding][real]") {
  std::vector<uint8_t> bytes;
  const auto model = float32_model(test::source_path("demo/numbers-en-de"), &bytes);
  const Fixture f = read_fixture("numbers_ct2_decoding.txt");
  REQUIRE(f.sources.size() == 7);
  REQUIRE(f.prefixes.size() == 7);
  REQUIRE(f.configs.size() >= 10);
  TranslatorOptions options;
  options.limits = StepModelLimits{4, 4, 32, 256};  // 7 sources: two batches
  std::unique_ptr<Translator> translator;
  REQUIRE(Translator::create(*model, options, &translator).is_ok());
  check_configs(*translator, f, 2e-5);

  // The fixture pins the behaviours the defaults decide: with min length 0 a beam of 2 returns an
  // empty hypothesis for sentence 0, with CTranslate2's translation defaults it translates it.
  std::vector<std::vector<TranslationHypothesis>> got;
  REQUIRE(translator->translate_tokens({f.sources[0]}, translation_defaults(), nullptr, &got).is_ok());
  CHECK(join(got[0][0].tokens) == "drei hundert sechs tausend drei hundert");
}

TEST_CASE("aren-transliteration: decoding controls match CTranslate2", "[decoding][real]") {
  std::vector<uint8_t> bytes;
  const auto model = float32_model(test::shared_path("models/ct2/aren-transliteration"), &bytes);
  const Fixture f = read_fixture("aren_ct2_controls.txt");
  REQUIRE(f.sources.size() == 5);
  REQUIRE(f.configs.size() >= 30);
  TranslatorOptions options;
  options.limits = StepModelLimits{3, 4, 32, 20};  // 5 sources: two batches
  std::unique_ptr<Translator> translator;
  REQUIRE(Translator::create(*model, options, &translator).is_ok());
  check_configs(*translator, f, 2e-5);
}

TEST_CASE("demo numbers-en-de: decoding controls with target prefixes match CTranslate2", "[decoding][real]") {
  std::vector<uint8_t> bytes;
  const auto model = float32_model(test::source_path("demo/numbers-en-de"), &bytes);
  const Fixture f = read_fixture("numbers_ct2_controls.txt");
  REQUIRE(f.sources.size() == 4);
  REQUIRE(f.prefixes.size() == 4);
  REQUIRE(f.configs.size() >= 12);
  TranslatorOptions options;
  options.limits = StepModelLimits{4, 3, 32, 32};
  std::unique_ptr<Translator> translator;
  REQUIRE(Translator::create(*model, options, &translator).is_ok());
  check_configs(*translator, f, 2e-5);
}
