// The Generator API's contract (limits, errors, sampling reproducibility) and the decoder-only
// StepModel's batch rows and beam reorder.
#include <catch2/catch.hpp>

#include "generate_fixture.h"
#include "heed/generator.h"
#include "models/step_model_factory.h"

namespace heed::test {
namespace {

std::unique_ptr<Generator> stories(size_t context = 0) {
  std::unique_ptr<Generator> g;
  GeneratorOptions options;
  options.max_context = context;
  const Status s = Generator::open(stories260k_heed(convert::WeightType::kFloat32), options, &g);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return g;
}

std::vector<int32_t> run(Generator& g, const std::vector<int32_t>& prompt, const GenerateOptions& o) {
  Generation out;
  const Status s = g.generate(prompt.data(), prompt.size(), o, nullptr, nullptr, &out);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return std::vector<int32_t>(out.ids, out.ids + out.length);
}

TEST_CASE("generator: bad prompts and options are refused with a status") {
  auto g = stories(8);
  GenerateOptions o;
  Generation out;
  const std::vector<int32_t> out_of_range = {403, 600};
  CHECK(g->generate(out_of_range.data(), 2, o, nullptr, nullptr, &out).code() == StatusCode::kInvalidArgument);
  const std::vector<int32_t> too_long(8, 403);
  CHECK(g->generate(too_long.data(), too_long.size(), o, nullptr, nullptr, &out).code() == StatusCode::kLimitExceeded);
  o.top_p = 0;
  CHECK(g->generate(nullptr, 0, o, nullptr, nullptr, &out).code() == StatusCode::kInvalidArgument);
  o.top_p = 1;
  o.temperature = -1;
  CHECK(g->generate(nullptr, 0, o, nullptr, nullptr, &out).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("generator: the token budget is clipped to the context") {
  auto g = stories(8);
  GenerateOptions o;
  o.max_new_tokens = 100;
  // BOS + 3 prompt tokens + 5 new tokens = positions 0..7.
  const std::vector<int32_t> ids = run(*g, {403, 407, 261}, o);
  CHECK(ids.size() == 5);
  CHECK(ids == std::vector<int32_t>{378, 432, 383, 286, 261});  // the reference story goes on like this
}

TEST_CASE("generator: a session sized for what the run needs generates the same tokens") {
  auto full = stories();  // stories260K's trained context: 512 positions
  std::unique_ptr<Generator> sized;
  GeneratorOptions options;
  options.positions_needed = 1 + 3 + 20;  // start token, a 3-token prompt, 20 new tokens
  REQUIRE(Generator::open(stories260k_heed(convert::WeightType::kFloat32), options, &sized).is_ok());
  CHECK(full->max_context() == 512);
  CHECK(sized->max_context() == 24);
  std::unique_ptr<Model> model;
  REQUIRE(Model::open(stories260k_heed(convert::WeightType::kFloat32), LoadOptions{}, &model).is_ok());
  ArenaReport full_report, sized_report;
  REQUIRE(plan_step_model_arena(*model, full->step_model().limits(), &full_report).is_ok());
  REQUIRE(plan_step_model_arena(*model, sized->step_model().limits(), &sized_report).is_ok());
  CHECK(sized_report.arena_bytes * 8 < full_report.arena_bytes);
  GenerateOptions o;
  o.max_new_tokens = 20;
  const std::vector<int32_t> prompt = {403, 407, 300};
  CHECK(run(*sized, prompt, o) == run(*full, prompt, o));
}

TEST_CASE("generator: sampling is reproducible per seed, top-k 1 is greedy") {
  auto g = stories();
  GenerateOptions o;
  o.max_new_tokens = 30;
  const std::vector<int32_t> greedy = run(*g, {}, o);
  o.temperature = 1.0f;
  o.seed = 7;
  const std::vector<int32_t> a = run(*g, {}, o);
  const std::vector<int32_t> b = run(*g, {}, o);
  CHECK(a == b);
  o.seed = 8;
  const std::vector<int32_t> c = run(*g, {}, o);
  CHECK(c != a);
  o.top_k = 1;
  CHECK(run(*g, {}, o) == greedy);
}

TEST_CASE("generator: streaming reports each generated token once, with its piece") {
  auto g = stories();
  GenerateOptions o;
  o.max_new_tokens = 12;
  struct Seen {
    std::vector<int32_t> ids;
    std::string text;
  } seen;
  Generation out;
  const std::vector<int32_t> prompt = {403, 407};
  REQUIRE(g->generate(prompt.data(), prompt.size(), o,
                      [](void* user, int32_t id, std::string_view piece) {
                        auto& s = *static_cast<Seen*>(user);
                        s.ids.push_back(id);
                        s.text += piece;
                        return true;
                      },
                      &seen, &out)
              .is_ok());
  CHECK(seen.ids == std::vector<int32_t>(out.ids, out.ids + out.length));
  CHECK(seen.text.rfind(" a time, there was", 0) == 0);
}

TEST_CASE("generator: a model without a start token needs a prompt") {
  std::unique_ptr<Generator> g;
  REQUIRE(Generator::open(onmt_lm_heed(), GeneratorOptions{}, &g).is_ok());
  CHECK(g->max_context() == 5000);  // its learned position table
  Generation out;
  CHECK(g->generate(nullptr, 0, GenerateOptions{}, nullptr, nullptr, &out).code() == StatusCode::kInvalidArgument);
  std::vector<int32_t> ids;
  REQUIRE(g->encode("the unknownwordxyz", &ids).is_ok());
  CHECK(ids == std::vector<int32_t>{3, 0});  // unknown tokens map to <unk>
}

TEST_CASE("decoder-only step model: rows are independent and reorder copies the cache") {
  const auto model = open_model(stories260k_heed(convert::WeightType::kFloat32));
  std::unique_ptr<StepModel> two, one;
  REQUIRE(create_step_model(*model, StepModelLimits{1, 2, 0, 8}, ArenaOptions{}, &two).is_ok());
  REQUIRE(create_step_model(*model, StepModelLimits{1, 1, 0, 8}, ArenaOptions{}, &one).is_ok());
  const size_t V = two->vocab_size();
  std::vector<float> lp2(2 * V), lp1(V);
  REQUIRE(two->start(nullptr, 1, 2).is_ok());
  REQUIRE(one->start(nullptr, 1, 1).is_ok());
  const int32_t first[2] = {1, 1};
  two->step(first, 2, 0, lp2.data());
  const int32_t second[2] = {403, 317};  // "Once", "Lily"
  two->step(second, 2, 1, lp2.data());
  const int32_t parents[2] = {1, 1};
  two->reorder(parents, 2);  // both rows now continue "Lily"
  const int32_t third[2] = {269, 269};
  two->step(third, 2, 2, lp2.data());
  // The single-row session fed BOS, "Lily", "and" must agree with both rows.
  const int32_t path[3] = {1, 317, 269};
  for (size_t t = 0; t < 3; ++t) one->step(&path[t], 1, t, lp1.data());
  for (size_t v = 0; v < V; ++v) {
    REQUIRE(lp2[v] == Approx(lp1[v]).margin(1e-5));
    REQUIRE(lp2[V + v] == Approx(lp1[v]).margin(1e-5));
  }
  // A skipped position is refused: NaN, caches untouched.
  two->step(third, 2, 5, lp2.data());
  CHECK(std::isnan(lp2[0]));
  // Sources are refused.
  TokenBatch sources;
  const size_t offsets[2] = {0, 1};
  sources.ids = third;
  sources.offsets = offsets;
  sources.size = 1;
  CHECK(two->start(&sources, 1, 1).code() == StatusCode::kInvalidArgument);
  // Limits beyond the RoPE context are refused.
  std::unique_ptr<StepModel> too_long;
  CHECK(create_step_model(*model, StepModelLimits{1, 1, 0, 513}, ArenaOptions{}, &too_long).code() ==
        StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace heed::test
