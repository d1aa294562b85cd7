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
