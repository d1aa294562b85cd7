// The real models: stories260K (llama2.c) against the independent NumPy reference and the model
// authors' expected story; the CTranslate2 onmt-lm against OpenNMT-py's expected continuation.
#include <cmath>
#include <fstream>

#include <catch2/catch.hpp>

#include "generate_fixture.h"
#include "heed/generator.h"
#include "models/step_model_factory.h"
#include "test_paths.h"

namespace heed::test {
namespace {

constexpr const char* kExpectedStory =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the park.";

std::vector<double> log_softmax(const std::vector<double>& logits) {
  double m = logits[0];
  for (double v : logits) m = std::max(m, v);
  double sum = 0;
  for (double v : logits) sum += std::exp(v - m);
  std::vector<double> out(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) out[i] = logits[i] - m - std::log(sum);
  return out;
}

TEST_CASE("stories260K fp32: log-probs of every position match the NumPy reference within 1e-4") {
  const auto model = open_model(stories260k_heed(convert::WeightType::kFloat32));
  std::unique_ptr<StepModel> session;
  REQUIRE(create_step_model(*model, StepModelLimits{1, 1, 0, 16}, ArenaOptions{}, &session).is_ok());
  const nlohmann::json& ref = llama2c_reference();
  const std::vector<int32_t> sequence = ref["sequence"].get<std::vector<int32_t>>();
  REQUIRE(sequence.size() == ref["logits"].size());
  REQUIRE(session->start(nullptr, 1, 1).is_ok());
  std::vector<float> log_probs(session->vocab_size());
  for (size_t t = 0; t < sequence.size(); ++t) {
    session->step(&sequence[t], 1, t, log_probs.data());
    const std::vector<double> expected = log_softmax(ref["logits"][t].get<std::vector<double>>());
    REQUIRE(expected.size() == log_probs.size());
    double worst = 0;
    for (size_t v = 0; v < expected.size(); ++v) worst = std::max(worst, std::abs(expected[v] - log_probs[v]));
    INFO("position " << t << ": max |heed - reference| = " << worst);
    CHECK(worst < 1e-4);
  }
}

std::vector<int32_t> greedy_ids(const std::string& path, size_t n) {
  std::unique_ptr<Generator> g;
  const Status s = Generator::open(path, GeneratorOptions{}, &g);
  INFO(s.message());
  REQUIRE(s.is_ok());
  GenerateOptions o;
  o.max_new_tokens = n;
  Generation out;
  REQUIRE(g->generate(nullptr, 0, o, nullptr, nullptr, &out).is_ok());
  return std::vector<int32_t>(out.ids, out.ids + out.length);
}

TEST_CASE("stories260K fp32: greedy from BOS tells the authors' story") {
  std::unique_ptr<Generator> g;
  REQUIRE(Generator::open(stories260k_heed(convert::WeightType::kFloat32), GeneratorOptions{}, &g).is_ok());
  CHECK(g->max_context() == 512);  // the checkpoint's seq_len
  GenerateOptions o;
  o.max_new_tokens = 40;
  std::string streamed, text;
  REQUIRE(g->generate_text("", o, [&](std::string_view piece) { streamed += piece; }, &text).is_ok());
  CHECK(text.rfind(kExpectedStory, 0) == 0);
  CHECK(streamed == text);
  CHECK(text == llama2c_reference()["greedy_text"].get<std::string>());
  const std::vector<int32_t> expected = llama2c_reference()["greedy_from_bos"].get<std::vector<int32_t>>();
  CHECK(greedy_ids(stories260k_heed(convert::WeightType::kFloat32), expected.size()) == expected);
}

// int8 weights (per-row scales) with int8 activations: measured on x86-64 (AVX-512 VNNI, AVX2 and
// scalar kernels alike), greedy decoding matches float32 for the first 61 tokens; the test asks
// for the reference's 40 (the whole first two sentences and more) on every target.
TEST_CASE("stories260K int8: greedy from BOS matches the float reference for 40 tokens") {
  const std::vector<int32_t> expected = llama2c_reference()["greedy_from_bos"].get<std::vector<int32_t>>();
  REQUIRE(expected.size() == 40);
  CHECK(greedy_ids(stories260k_heed(convert::WeightType::kInt8), expected.size()) == expected);
  std::unique_ptr<Generator> g;
  REQUIRE(Generator::open(stories260k_heed(convert::WeightType::kInt8), GeneratorOptions{}, &g).is_ok());
  GenerateOptions o;
  o.max_new_tokens = 40;
  std::string text;
  REQUIRE(g->generate_text("", o, {}, &text).is_ok());
  CHECK(text.rfind(kExpectedStory, 0) == 0);
}

TEST_CASE("stories260K: a prompt is continued after its own tokens") {
  std::unique_ptr<Generator> g;
  REQUIRE(Generator::open(stories260k_heed(convert::WeightType::kFloat32), GeneratorOptions{}, &g).is_ok());
  GenerateOptions o;
  o.max_new_tokens = 10;
  std::string text;
  REQUIRE(g->generate_text("Once upon a time", o, {}, &text).is_ok());
  // The reference's greedy story starts with the same four tokens, so the continuation is its text.
  CHECK(text == ", there was a little girl named Lily");
}

TEST_CASE("onmt-lm: greedy continuation of the first prompt is OpenNMT-py's 'you !'") {
  std::unique_ptr<Generator> g;
  const Status s = Generator::open(onmt_lm_heed(), GeneratorOptions{}, &g);
  INFO(s.message());
  REQUIRE(s.is_ok());
  CHECK(g->bos_id() == -1);  // trained without a start token: the prompt's first token starts
  std::ifstream prompts(shared_path("data/lm-prompts/src-gen.txt"));
  std::string first;
  REQUIRE(std::getline(prompts, first));
  GenerateOptions o;
  o.max_new_tokens = 50;
  std::string text;
  REQUIRE(g->generate_text(first, o, {}, &text).is_ok());
  CHECK(text == "you !");
}

}  // namespace
}  // namespace heed::test
