// The decoding controls in generation, against CTranslate2's Generator (fixtures written by
// tests/runtime/decoding/fixtures/make_ct2_controls.py --lm): the OpenNMT-py language model of
// ../shared (onmt-lm) with float32 weights continues the prompts of data/lm-prompts/src-gen.txt
// with disable_unk (OpenNMT-py's own generation test runs so), repetition penalty, repeated
// n-grams, suppressed sequences and end tokens; the continuations must equal CTranslate2's and the
// scores (log-prob / generated tokens, end token included) agree within 1e-4.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "ct2/reader.h"
#include "heed/generator.h"
#include "heed/model.h"
#include "heed_writer.h"
#include "quantize.h"
#include "../decoding/ct2_fixture.h"
#include "generate_fixture.h"

using namespace heed;

namespace {

std::unique_ptr<Model> float32_lm(std::vector<uint8_t>* bytes) {
  convert::NeutralModel neutral;
  REQUIRE(convert::ct2::read_model(test::shared_path("models/ct2/onmt-lm"), &neutral).is_ok());
  convert::QuantizeOptions q;
  q.type = convert::WeightType::kFloat32;
  REQUIRE(convert::quantize_model(&neutral, q, nullptr).is_ok());
  REQUIRE(convert::serialize_heed(neutral, bytes).is_ok());
  std::unique_ptr<Model> model;
  REQUIRE(Model::from_bytes(bytes->data(), bytes->size(), &model).is_ok());
  return model;
}

std::string join_tokens(const Generator& g, const Generation& out) {
  std::string text;
  for (size_t i = 0; i < out.length; ++i) text += (i ? " " : "") + g.token(out.ids[i]);
  return text;
}

}  // namespace

TEST_CASE("onmt-lm: decoding controls in generation match CTranslate2's Generator", "[generate][real]") {
  std::vector<uint8_t> bytes;
  const auto model = float32_lm(&bytes);
  std::unique_ptr<Generator> generator;
  REQUIRE(Generator::create(*model, GeneratorOptions{}, &generator).is_ok());
  const test::Fixture f = test::read_fixture("onmt_lm_ct2_controls.txt");
  REQUIRE(f.sources.size() == 7);
  REQUIRE(f.configs.size() >= 5);
  const int32_t unk = generator->token_id("<unk>");
  REQUIRE(unk >= 0);
  for (const test::Expected& e : f.configs) {
    test::ControlIds ids;
    GenerateOptions o;
    o.max_new_tokens = e.max_len;
    ids.bind(e.controls, [&](const std::string& t) { return generator->token_id(t); }, &o.controls);
    for (size_t i = 0; i < f.sources.size(); ++i) {
      INFO("controls " << e.controls.text << " prompt " << i);
      std::vector<int32_t> prompt;
      for (const std::string& t : f.sources[i]) prompt.push_back(generator->token_id(t) >= 0 ? generator->token_id(t) : unk);
      Generation out;
      REQUIRE(generator->generate(prompt.data(), prompt.size(), o, nullptr, nullptr, &out).is_ok());
      CHECK(join_tokens(*generator, out) == e.hyps[i].at(0).first);
      const size_t steps = out.length + (out.finished_with_eos ? 1 : 0);
      CHECK(out.log_prob / static_cast<float>(steps) == Approx(e.hyps[i][0].second).margin(1e-4));
      if (e.controls.disable_unk) {
        for (size_t t = 0; t < out.length; ++t) CHECK(out.ids[t] != unk);
      }
    }
  }
}

namespace {

// Each prompt alone through generate(), then all of them through generate_batch(): greedy
// continuations must be the same tokens with the same log-probs (each row of a batch is computed
// as it is alone: no padding, every position a real token).
void check_batch_equals_alone(const std::string& path, const std::vector<std::vector<int32_t>>& prompts,
                              const GenerateOptions& o) {
  GeneratorOptions go;
  go.max_batch = prompts.size();
  std::unique_ptr<Generator> batched, alone;
  REQUIRE(Generator::open(path, go, &batched).is_ok());
  REQUIRE(Generator::open(path, GeneratorOptions{}, &alone).is_ok());
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  for (const auto& p : prompts) {
    ids.insert(ids.end(), p.begin(), p.end());
    offsets.push_back(ids.size());
  }
  std::vector<Generation> together(prompts.size());
  const Status s = batched->generate_batch(TokenBatch{ids.data(), offsets.data(), prompts.size()}, o, together.data());
  INFO(s.message());
  REQUIRE(s.is_ok());
  for (size_t i = 0; i < prompts.size(); ++i) {
    INFO("prompt " << i);
    Generation single;
    REQUIRE(alone->generate(prompts[i].data(), prompts[i].size(), o, nullptr, nullptr, &single).is_ok());
    CHECK(std::vector<int32_t>(together[i].ids, together[i].ids + together[i].length) ==
          std::vector<int32_t>(single.ids, single.ids + single.length));
    CHECK(together[i].finished_with_eos == single.finished_with_eos);
    CHECK(together[i].log_prob == Approx(single.log_prob).margin(1e-4));
  }
}

}  // namespace

TEST_CASE("generate_batch gives each prompt's own greedy continuation", "[generate][real]") {
  GenerateOptions o;
  o.max_new_tokens = 24;
  SECTION("stories260K (a start token), prompts of different lengths, one empty") {
    check_batch_equals_alone(test::stories260k_heed(convert::WeightType::kInt8),
                             {{403, 407}, {}, {403, 407, 261, 378, 432, 260}, {300, 301}}, o);
  }
  SECTION("onmt-lm (no start token: each row starts from its prompt's first token), with controls") {
    std::unique_ptr<Generator> g;
    REQUIRE(Generator::open(test::onmt_lm_heed(), GeneratorOptions{}, &g).is_ok());
    std::vector<std::vector<int32_t>> prompts;
    const test::Fixture f = test::read_fixture("onmt_lm_ct2_controls.txt");
    for (const auto& words : f.sources) {
      std::string text;
      for (const auto& w : words) text += (text.empty() ? "" : " ") + w;
      std::vector<int32_t> ids;
      REQUIRE(g->encode(text, &ids).is_ok());
      prompts.push_back(ids);
    }
    o.controls.disable_unk = true;
    o.controls.no_repeat_ngram_size = 3;
    check_batch_equals_alone(test::onmt_lm_heed(), prompts, o);
  }
  SECTION("more prompts than max_batch is a clear error") {
    std::unique_ptr<Generator> g;
    REQUIRE(Generator::open(test::stories260k_heed(convert::WeightType::kInt8), GeneratorOptions{}, &g).is_ok());
    const int32_t ids[] = {403, 407};
    const size_t offsets[] = {0, 1, 2};
    Generation out[2];
    CHECK(g->generate_batch(TokenBatch{ids, offsets, 2}, o, out).code() == StatusCode::kLimitExceeded);
  }
}
