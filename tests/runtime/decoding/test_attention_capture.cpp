// Attention you can see, Transformer encoder-decoder: the cross-attention the engine captures per
// decoder layer and head (StepModelLimits::capture_attention), through the Translator, against the
// independent NumPy reference (tests/fixtures/aren/aren_cross_attention.json, written by
// tests/reference/make_aren_attention_fixture.py) for the real aren model in fp32; beam search's
// back-tracked matrices against the same hypothesis decoded again as a forced prefix.
#include <catch2/catch.hpp>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ct2/reader.h"
#include "heed/model.h"
#include "heed/translator.h"
#include "heed_writer.h"
#include "test_paths.h"

using namespace heed;

namespace {

std::unique_ptr<Model> aren_fp32(std::vector<uint8_t>* bytes) {
  convert::NeutralModel neutral;
  REQUIRE(convert::ct2::read_model(test::shared_path("models/ct2/aren-transliteration"), &neutral).is_ok());
  REQUIRE(convert::serialize_heed(neutral, bytes).is_ok());
  std::unique_ptr<Model> model;
  REQUIRE(Model::from_bytes(bytes->data(), bytes->size(), &model).is_ok());
  return model;
}

std::unique_ptr<Translator> capturing_translator(const Model& model, size_t batch, size_t beam) {
  TranslatorOptions options;
  options.limits = StepModelLimits{batch, beam, 16, 32};
  options.limits.capture_attention = true;
  std::unique_ptr<Translator> t;
  const Status s = Translator::create(model, options, &t);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return t;
}

}  // namespace

TEST_CASE("Transformer attention capture: cross-attention per layer and head equals the NumPy reference",
          "[decoding][real]") {
  std::vector<uint8_t> bytes;
  const auto model = aren_fp32(&bytes);
  std::ifstream in(test::source_path("tests/fixtures/aren/aren_cross_attention.json"));
  REQUIRE(in.good());
  const nlohmann::json ref = nlohmann::json::parse(in);
  const auto& sentences = ref["sentences"];
  auto translator = capturing_translator(*model, sentences.size(), 1);
  std::vector<std::vector<std::string>> sources;
  for (const auto& s : sentences) sources.push_back(s["source"].get<std::vector<std::string>>());
  DecodeOptions o = translation_defaults();
  o.beam_size = 1;
  std::vector<std::vector<TranslationHypothesis>> got;
  REQUIRE(translator->translate_tokens(sources, o, nullptr, &got).is_ok());
  for (size_t i = 0; i < sentences.size(); ++i) {
    INFO("sentence " << i);
    const TranslationHypothesis& h = got[i][0];
    REQUIRE(h.tokens == sentences[i]["target"].get<std::vector<std::string>>());
    const auto& att = sentences[i]["attention"];  // [layer][head][step][source]
    const size_t layers = att.size(), heads = att[0].size(), steps = att[0][0].size();
    REQUIRE(h.attention_heads == heads);
    REQUIRE(h.attention_panels == layers * heads);
    REQUIRE(h.attention_source_len == sources[i].size());
    REQUIRE(h.token_log_probs.size() == steps);
    const size_t len = h.attention_source_len;
    for (size_t t = 0; t < steps; ++t) {
      for (size_t l = 0; l < layers; ++l) {
        for (size_t hd = 0; hd < heads; ++hd) {
          const float* row = h.attention.data() + (t * h.attention_panels + l * heads + hd) * len;
          double sum = 0;
          for (size_t s = 0; s < len; ++s) {
            REQUIRE(row[s] == Approx(att[l][hd][t][s].get<double>()).margin(1e-4));
            sum += row[s];
          }
          REQUIRE(sum == Approx(1.0).margin(1e-5));
        }
      }
    }
  }
}

TEST_CASE("Transformer attention capture: beam search follows the back-pointers", "[decoding][real]") {
  std::vector<uint8_t> bytes;
  const auto model = aren_fp32(&bytes);
  const std::vector<std::vector<std::string>> sources = {
      {"آ", "ت", "ز", "م", "و", "ن"}, {"آ", "ز", "ا"}, {"م", "ح", "م", "د"}, {"ي", "و", "س", "ف"}};
  auto beamed = capturing_translator(*model, 2, 4);  // two batches of two
  DecodeOptions o = translation_defaults();
  o.beam_size = 4;
  o.n_best = 3;
  std::vector<std::vector<TranslationHypothesis>> got;
  REQUIRE(beamed->translate_tokens(sources, o, nullptr, &got).is_ok());

  auto single = capturing_translator(*model, 1, 1);
  DecodeOptions g = translation_defaults();
  g.beam_size = 1;
  for (size_t i = 0; i < sources.size(); ++i) {
    REQUIRE(got[i].size() == 3);
    for (size_t k = 0; k < got[i].size(); ++k) {
      INFO("sentence " << i << " hypothesis " << k);
      const TranslationHypothesis& h = got[i][k];
      REQUIRE(!h.attention.empty());
      // The hypothesis as a forced prefix: same states, so the same attention at every step (the
      // EOS row too: a step's attention does not depend on the token then chosen).
      g.max_length = h.token_log_probs.size();
      const std::vector<std::vector<std::string>> prefix = {h.tokens};
      std::vector<std::vector<TranslationHypothesis>> again;
      REQUIRE(single->translate_tokens({sources[i]}, g, &prefix, &again).is_ok());
      const TranslationHypothesis& r = again[0][0];
      REQUIRE(r.attention_source_len == h.attention_source_len);
      const size_t n = h.attention.size();
      REQUIRE(r.attention.size() >= n);
      for (size_t j = 0; j < n; ++j) REQUIRE(h.attention[j] == Approx(r.attention[j]).margin(1e-5));
    }
  }
}

TEST_CASE("Transformer attention capture: off by default", "[decoding][real]") {
  std::vector<uint8_t> bytes;
  const auto model = aren_fp32(&bytes);
  std::unique_ptr<Translator> t;
  REQUIRE(Translator::create(*model, TranslatorOptions{}, &t).is_ok());
  std::vector<std::vector<TranslationHypothesis>> got;
  REQUIRE(t->translate_tokens({{"آ", "ز", "ا"}}, translation_defaults(), nullptr, &got).is_ok());
  REQUIRE(got[0][0].attention.empty());
  REQUIRE(got[0][0].attention_panels == 0);
}
