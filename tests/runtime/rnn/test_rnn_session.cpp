// The RNN StepModel's contract beyond the golden outputs: reachable through create_step_model,
// batch rows independent of each other, beam reorder equivalent to re-running the chosen history,
// empty sources, and clear errors for bad input (never a crash). Also the converter's errors.
#include <cmath>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "heed/translator.h"
#include "models/step_model_factory.h"
#include "zoo_fixture.h"

namespace heed::test {
namespace {

const StepModelLimits kLimits{4, 3, 16, 12};

std::unique_ptr<StepModel> open_session(const Model& model, StepModelLimits limits = kLimits) {
  std::unique_ptr<StepModel> session;
  const Status s = create_step_model(model, limits, {}, &session);  // through the family factory
  INFO(s.message());
  REQUIRE(s.is_ok());
  return session;
}

// Runs rows through `history[r]` tokens (bos first) and returns the last step's log-probs.
std::vector<float> run(StepModel& m, const std::vector<std::vector<int32_t>>& sources,
                       const std::vector<std::vector<int32_t>>& history) {
  const Sources src(sources);
  const TokenBatch b = src.batch();
  REQUIRE(m.start(&b, sources.size(), 1).is_ok());
  const size_t rows = sources.size(), V = m.vocab_size();
  std::vector<float> lp(rows * V);
  std::vector<int32_t> ids(rows);
  for (size_t t = 0; t < history[0].size(); ++t) {
    for (size_t r = 0; r < rows; ++r) ids[r] = history[r][t];
    m.step(ids.data(), rows, t, lp.data());
  }
  return lp;
}

const std::vector<std::vector<int32_t>> kSources = {{10, 11, 12, 13, 14}, {20, 5, 7}, {30, 31, 32, 33, 34, 35, 36, 8}};

}  // namespace

TEST_CASE("RNN sessions: rows of a batch do not influence each other") {
  for (const char* variant : {"luong_general", "bahdanau_gru_additive"}) {
    INFO(variant);
    const ZooModel z = load_zoo(variant);
    auto m = open_session(*z.model);
    const std::vector<std::vector<int32_t>> hist = {{1, 5, 6}, {1, 7, 8}, {1, 9, 4}};
    const auto together = run(*m, kSources, hist);
    const size_t V = m->vocab_size();
    for (size_t r = 0; r < kSources.size(); ++r) {
      const auto alone = run(*m, {kSources[r]}, {hist[r]});
      for (size_t v = 0; v < V; ++v) REQUIRE(together[r * V + v] == Approx(alone[v]).margin(1e-5));
    }
  }
}

TEST_CASE("RNN sessions: reorder continues from the parent's state") {
  for (const char* variant : {"luong_general", "bahdanau_gru_additive"}) {
    INFO(variant);
    const ZooModel z = load_zoo(variant);
    auto m = open_session(*z.model);
    const size_t V = m->vocab_size();
    const Sources src({kSources[0], kSources[2]});
    const TokenBatch b = src.batch();
    REQUIRE(m->start(&b, 2, 3).is_ok());
    std::vector<float> lp(6 * V);
    std::vector<int32_t> ids(6, m->bos_id());
    m->step(ids.data(), 6, 0, lp.data());
    ids = {5, 6, 7, 8, 9, 10};
    m->step(ids.data(), 6, 1, lp.data());
    const std::vector<int32_t> parents = {2, 2, 0, 4, 3, 3};
    m->reorder(parents.data(), 6);
    ids = {11, 12, 13, 14, 15, 16};
    m->step(ids.data(), 6, 2, lp.data());
    for (size_t r = 0; r < 6; ++r) {
      const size_t sentence = r / 3;
      const int32_t parent_token = 5 + parents[r];
      const auto want = run(*m, {sentence == 0 ? kSources[0] : kSources[2]}, {{1, parent_token, ids[r]}});
      for (size_t v = 0; v < V; ++v) REQUIRE(lp[r * V + v] == Approx(want[v]).margin(1e-5));
    }
  }
}

TEST_CASE("RNN sessions: an empty source decodes from zero states") {
  const ZooModel z = load_zoo("luong_general");
  auto m = open_session(*z.model);
  const auto lp = run(*m, {{}}, {{1, 5}});
  for (float v : lp) REQUIRE(std::isfinite(v));
}

TEST_CASE("RNN sessions: the location score's fixed positions are the model's source positions") {
  const ZooModel z = load_zoo("luong_location");
  REQUIRE(z.model->position_limits().source == 32);
  std::unique_ptr<StepModel> session;
  const Status s = create_step_model(*z.model, {4, 3, 33, 12}, {}, &session);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "max_source_len 33 exceeds the location attention's 32 source positions");
  // Every position filled: a source of 32 tokens decodes (finite log-probs).
  const std::vector<int32_t> longest(32, 10);
  const std::unique_ptr<StepModel> full = open_session(*z.model, {4, 3, 32, 12});
  const std::vector<float> lp = run(*full, {longest}, {{full->bos_id()}});
  for (float v : lp) REQUIRE(std::isfinite(v));
  // A Translator left at the default source length plans for the 32 positions, 31 typed tokens + EOS.
  std::unique_ptr<Translator> t;
  REQUIRE(Translator::create(*z.model, TranslatorOptions{}, &t).is_ok());
  CHECK(t->limits().max_source_len == 32);
  CHECK(t->max_source_tokens() == 31);
  std::vector<int32_t> ids;
  REQUIRE(t->source_ids({"a", "b"}, &ids).is_ok());
  CHECK(ids.size() == 3);
  CHECK(ids.back() == 2);  // </s>, appended by heed
}

TEST_CASE("RNN sessions: a model without attention refuses attention capture") {
  const ZooModel z = load_zoo("tutorial_gru_none_relu");
  StepModelLimits limits = kLimits;
  limits.capture_attention = true;
  std::unique_ptr<StepModel> session;
  const Status s = create_step_model(*z.model, limits, {}, &session);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "this model has no attention to capture (score NoAttention)");
  CHECK(open_session(*z.model)->attention_panels() == 0);
}

TEST_CASE("RNN sessions: bad input is an error or NaN, never a crash") {
  const ZooModel z = load_zoo("luong_general");
  auto m = open_session(*z.model);
  const size_t V = m->vocab_size();
  std::vector<float> lp(2 * V, 0.0f);
  const int32_t bos[2] = {1, 1};
  m->step(bos, 1, 0, lp.data());  // before start
  CHECK(std::isnan(lp[0]));

  const Sources too_long({std::vector<int32_t>(17, 5)});
  TokenBatch b = too_long.batch();
  Status s = m->start(&b, 1, 1);
  CHECK(s.code() == StatusCode::kLimitExceeded);
  CHECK(s.message().find("17 tokens") != std::string::npos);

  const Sources bad_id({{5, 71}});
  b = bad_id.batch();
  s = m->start(&b, 1, 1);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("71") != std::string::npos);

  const Sources ok({{5, 6}});
  b = ok.batch();
  CHECK(m->start(&b, 1, 4).code() == StatusCode::kLimitExceeded);  // beam above the limit
  CHECK(m->start(nullptr, 1, 1).code() == StatusCode::kInvalidArgument);
  REQUIRE(m->start(&b, 1, 1).is_ok());
  const int32_t bad_token = static_cast<int32_t>(V);
  m->step(&bad_token, 1, 0, lp.data());
  CHECK(std::isnan(lp[0]));
  m->step(bos, 2, 0, lp.data());  // more rows than started
  CHECK(std::isnan(lp[V]));
  m->step(bos, 1, 12, lp.data());  // beyond max_target_len
  CHECK(std::isnan(lp[0]));
  m->step(bos, 1, 0, lp.data());
  CHECK(std::isfinite(lp[0]));
  const int32_t parent = 5;
  m->reorder(&parent, 1);  // out of range: ignored
  m->reorder(nullptr, 1);

  StepModelLimits zero = kLimits;
  zero.max_beam = 0;
  std::unique_ptr<StepModel> none;
  CHECK(create_step_model(*z.model, zero, {}, &none).code() == StatusCode::kInvalidArgument);
  ArenaReport report;
  REQUIRE(plan_step_model_arena(*z.model, kLimits, &report).is_ok());
  CHECK(report.arena_bytes > 0);
}

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A copy of a fixture (luong_general by default) with config.json edited by `edit`.
std::string edited_copy(const std::string& name, void (*edit)(nlohmann::json&),
                        const std::string& fixture = "luong_general") {
  const std::string src = source_path("tests/fixtures/rnn/" + fixture);
  const std::string out = temp_dir() + "/" + name;
  ::mkdir(out.c_str(), 0755);
  nlohmann::json config = nlohmann::json::parse(read_text(src + "/config.json"));
  edit(config);
  std::ofstream(out + "/config.json") << config.dump();
  std::ofstream(out + "/model.safetensors", std::ios::binary) << read_text(src + "/model.safetensors");
  return out;
}

Status convert_dir(const std::string& dir) {
  convert::NeutralModel m;
  return convert::torch_seq2seq::read_model(dir, &m);
}

}  // namespace

TEST_CASE("torch-seq2seq converter: every problem is one clear error") {
  CHECK(convert::torch_seq2seq::looks_like_model(source_path("tests/fixtures/rnn/luong_general")));
  CHECK_FALSE(convert::torch_seq2seq::looks_like_model(temp_dir()));
  CHECK(convert_dir(temp_dir() + "/absent").code() == StatusCode::kIoError);

  Status s = convert_dir(edited_copy("bad_score", [](nlohmann::json& j) { j["score"] = "luong"; }));
  CHECK(s.code() == StatusCode::kUnsupportedModel);
  CHECK(s.message().find("'score' is 'luong'") != std::string::npos);

  // The weights are a "general" model's: "dot" leaves W_a unused, "additive" misses W_q.
  s = convert_dir(edited_copy("extra", [](nlohmann::json& j) { j["score"] = "dot"; }));
  CHECK(s.code() == StatusCode::kUnsupportedModel);
  CHECK(s.message().find("'attention.key.weight' is not part of the configured variant") != std::string::npos);
  s = convert_dir(edited_copy("missing", [](nlohmann::json& j) { j["score"] = "additive"; }));
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message().find("missing tensor 'attention.query.weight'") != std::string::npos);

  s = convert_dir(edited_copy("shape", [](nlohmann::json& j) { j["hidden_dim"] = 64; }));
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message().find("has shape") != std::string::npos);

  s = convert_dir(edited_copy("no_vocab", [](nlohmann::json& j) { j.erase("target_vocabulary"); }));
  CHECK(s.message().find("target_vocabulary") != std::string::npos);
  s = convert_dir(edited_copy("bad_eos", [](nlohmann::json& j) { j["eos_id"] = 1000; }));
  CHECK(s.message().find("eos_id") != std::string::npos);
  s = convert_dir(edited_copy("local_no_window", [](nlohmann::json& j) { j["alignment"] = "local_m"; }));
  CHECK(s.message().find("window") != std::string::npos);
  s = convert_dir(edited_copy("bad_layers", [](nlohmann::json& j) { j["layers"] = "two"; }));
  CHECK(s.message().find("'layers'") != std::string::npos);
}

TEST_CASE("torch-seq2seq converter: a config.json key heed does not know is an error naming it") {
  // A key heed would ignore converts a model that computes something else: never silently.
  Status s = convert_dir(edited_copy("unknown_relu", [](nlohmann::json& j) { j["relu"] = true; }));
  CHECK(s.code() == StatusCode::kUnsupportedModel);
  CHECK(s.message().find("unknown key 'relu'") != std::string::npos);
  CHECK(s.message().find('\n') == std::string::npos);
  s = convert_dir(edited_copy("unknown_dropout", [](nlohmann::json& j) { j["dropout"] = 0.1; }));
  CHECK(s.message().find("unknown key 'dropout'") != std::string::npos);
  s = convert_dir(edited_copy("not_object", [](nlohmann::json& j) { j = nlohmann::json::array({1, 2}); }));
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message().find("JSON object") != std::string::npos);
  // The keys train.py writes besides the variant's (vocabulary sizes) are known, and checked.
  s = convert_dir(edited_copy("bad_size", [](nlohmann::json& j) { j["target_vocab_size"] = 7; }));
  CHECK(s.message().find("'target_vocab_size' is 7") != std::string::npos);
}

TEST_CASE("torch-seq2seq converter: the tutorial's keys and the location score are checked") {
  const auto bad = [](const char* name, void (*edit)(nlohmann::json&), const char* expected,
                      const char* fixture = "luong_general") {
    const Status s = convert_dir(edited_copy(name, edit, fixture));
    INFO(name << ": " << s.message());
    CHECK_FALSE(s.is_ok());
    CHECK(s.message().find(expected) != std::string::npos);
  };
  bad("act", [](nlohmann::json& j) { j["decoder_input_activation"] = "tanh"; }, "'decoder_input_activation' is 'tanh'");
  bad("append", [](nlohmann::json& j) { j["append_source_eos"] = "yes"; }, "'append_source_eos' must be true or false");
  bad("src_eos", [](nlohmann::json& j) { j["source_eos_id"] = 100000; }, "below the source vocabulary size");
  bad("none_feed", [](nlohmann::json& j) { j["score"] = "none"; }, "score 'none' (no attention) takes no input_feeding");
  bad("loc_local", [](nlohmann::json& j) { j["score"] = "location"; j["alignment"] = "local_m"; j["window"] = 2; },
      "the location score takes the global alignment only");
  bad("loc_no_p", [](nlohmann::json& j) { j["score"] = "location"; }, "needs 'max_source_positions' > 0");
  bad("p_general", [](nlohmann::json& j) { j["max_source_positions"] = 8; }, "applies to the location score only");
  // luong_general's weights hold no W_a over positions.
  bad("loc_weights", [](nlohmann::json& j) { j["score"] = "location"; j["max_source_positions"] = 8; },
      "missing tensor 'attention.location.weight'");
  bad("none_weights", [](nlohmann::json& j) { j["score"] = "none"; }, "is not part of the configured variant",
      "luong_general_no_feeding");
}

}  // namespace heed::test
