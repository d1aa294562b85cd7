// Attention you can see, RNN family: the alignment matrices the decoding engine collects
// (StepModelLimits::capture_attention) against PyTorch's attention weights for the same trained
// zoo models on morph validation words (tests/fixtures/rnn/<variant>/attention.json, written by
// scripts/attention_zoo/attention_reference.py), plus properties that hold whatever the numbers:
// rows sum to 1, hard attention is one-hot, local-m is zero outside its window, the alignment of
// these character-copying words is near-diagonal, and beam search's back-tracked matrices equal
// those of the same hypothesis decoded again as a forced prefix.
#include <cmath>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "heed/decoding.h"
#include "models/step_model_factory.h"
#include "zoo_fixture.h"

namespace heed::test {
namespace {

using json = nlohmann::json;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The fixture converted in memory, hard attention switched on when asked (same weights).
ZooModel load_variant(const std::string& variant, bool hard) {
  if (!hard) return load_zoo(variant);
  const std::string dir = source_path("tests/fixtures/rnn/" + variant);
  const std::string out = temp_dir() + "/" + variant + "_hard";
  ::mkdir(out.c_str(), 0755);
  json config = json::parse(read_text(dir + "/config.json"));
  config["hard"] = true;
  std::ofstream(out + "/config.json") << config.dump();
  std::ofstream(out + "/model.safetensors", std::ios::binary) << read_text(dir + "/model.safetensors");
  convert::NeutralModel m;
  REQUIRE(convert::torch_seq2seq::read_model(out, &m).is_ok());
  convert::QuantizeOptions q;
  q.type = convert::WeightType::kFloat32;
  REQUIRE(convert::quantize_model(&m, q, nullptr).is_ok());
  ZooModel z;
  REQUIRE(convert::serialize_heed(m, &z.bytes).is_ok());
  REQUIRE(Model::from_bytes(z.bytes.data(), z.bytes.size(), &z.model).is_ok());
  return z;
}

constexpr size_t kMaxSource = 16;
constexpr size_t kMaxTarget = 48;

struct Session {
  std::unique_ptr<StepModel> model;
  std::unique_ptr<DecodingEngine> engine;
};

Session open_capturing(const Model& model, size_t batch, size_t beam) {
  StepModelLimits limits{batch, beam, kMaxSource, kMaxTarget};
  limits.capture_attention = true;
  Session s;
  Status st = create_step_model(model, limits, {}, &s.model);
  INFO(st.message());
  REQUIRE(st.is_ok());
  REQUIRE(s.model->attention_panels() == 1);
  st = DecodingEngine::create(s.model.get(), DecodingLimits{}, &s.engine);
  REQUIRE(st.is_ok());
  return s;
}

DecodeOptions options(size_t beam) {
  DecodeOptions o;
  o.beam_size = beam;
  o.max_length = kMaxTarget;
  o.length_penalty = 0;
  return o;
}

// Row `t` of a hypothesis's matrix (one panel).
const float* attention_row(const DecodeOutput& out, const Hypothesis& h, size_t t) {
  return h.attention + t * out.attention_panels * out.attention_stride;
}

// Properties of a matrix over a source of `len` positions (alignment and hardness per variant).
void check_properties(const DecodeOutput& out, const Hypothesis& h, size_t len, bool hard, bool local_m) {
  REQUIRE(h.attention != nullptr);
  size_t monotone = 0;
  size_t previous_argmax = 0;
  for (size_t t = 0; t < h.num_log_probs; ++t) {
    const float* a = attention_row(out, h, t);
    double sum = 0;
    size_t argmax = 0;
    for (size_t s = 0; s < out.attention_stride; ++s) {
      if (s >= len) {
        REQUIRE(a[s] == 0.0f);  // beyond the source: zero
        continue;
      }
      REQUIRE(a[s] >= 0.0f);
      sum += a[s];
      if (a[s] > a[argmax]) argmax = s;
      if (hard) REQUIRE((a[s] == 0.0f || a[s] == 1.0f));
      if (local_m) {
        const size_t p = std::min(t, len - 1), D = 3;  // the fixture's window
        if (s + D < p || s > p + D) REQUIRE(a[s] == 0.0f);
      }
    }
    REQUIRE(sum == Approx(1.0).margin(1e-5));
    if (t == 0 || argmax >= previous_argmax) ++monotone;
    previous_argmax = argmax;
  }
  // Near-diagonal: these words are copied character by character (with transliteration), so the
  // most attended source position moves forward at almost every step.
  REQUIRE(monotone + 1 >= h.num_log_probs);
}

}  // namespace

TEST_CASE("RNN attention capture: greedy matrices equal PyTorch's attention weights") {
  for (const char* variant : {"luong_general", "luong_local_m", "bahdanau_gru_additive"}) {
    const json ref = json::parse(read_text(source_path(std::string("tests/fixtures/rnn/") + variant + "/attention.json")));
    for (bool hard : {false, true}) {
      std::vector<const json*> sentences;
      for (const auto& s : ref["sentences"]) {
        if (s["hard"].get<bool>() == hard) sentences.push_back(&s);
      }
      if (sentences.empty()) continue;
      INFO(variant << (hard ? " (hard)" : ""));
      const ZooModel z = load_variant(variant, hard);
      Session session = open_capturing(*z.model, sentences.size(), 1);
      std::vector<std::vector<int32_t>> src;
      for (const json* s : sentences) src.push_back((*s)["source"].get<std::vector<int32_t>>());
      const Sources sources(src);
      const TokenBatch batch = sources.batch();
      DecodeOutput out;
      REQUIRE(session.engine->decode(&batch, batch.size, options(1), nullptr, &out).is_ok());
      REQUIRE(out.attention_panels == 1);
      REQUIRE(out.attention_stride == kMaxSource);
      for (size_t i = 0; i < sentences.size(); ++i) {
        INFO("sentence " << i);
        const json& s = *sentences[i];
        const auto ids = s["ids"].get<std::vector<int32_t>>();  // EOS last
        const Hypothesis& h = out.at(i, 0);
        REQUIRE(h.num_log_probs == ids.size());
        for (size_t t = 0; t < h.length; ++t) REQUIRE(h.ids[t] == ids[t]);
        const auto& rows = s["attention"];
        for (size_t t = 0; t < h.num_log_probs; ++t) {
          const float* a = attention_row(out, h, t);
          for (size_t p = 0; p < src[i].size(); ++p) REQUIRE(a[p] == Approx(rows[t][p].get<double>()).margin(1e-4));
        }
        check_properties(out, h, src[i].size(), hard, std::string(variant) == "luong_local_m");
      }
    }
  }
}

TEST_CASE("RNN attention capture: beam search follows the back-pointers") {
  const ZooModel z = load_zoo("luong_general");
  const json ref = json::parse(read_text(source_path("tests/fixtures/rnn/luong_general/attention.json")));
  std::vector<std::vector<int32_t>> src;
  for (const auto& s : ref["sentences"]) {
    if (!s["hard"].get<bool>()) src.push_back(s["source"].get<std::vector<int32_t>>());
  }
  const Sources sources(src);
  const TokenBatch batch = sources.batch();
  const size_t beam = 5, n_best = 3;
  Session beamed = open_capturing(*z.model, src.size(), beam);
  DecodeOptions o = options(beam);
  o.n_best = n_best;
  DecodeOutput out;
  REQUIRE(beamed.engine->decode(&batch, batch.size, o, nullptr, &out).is_ok());

  // Each returned hypothesis decoded again alone, greedy with its tokens as forced prefix: the
  // model computes the same states, so the same attention at every step (the EOS row included:
  // the attention of a step does not depend on the token then chosen).
  Session single = open_capturing(*z.model, 1, 1);
  for (size_t i = 0; i < src.size(); ++i) {
    for (size_t k = 0; k < out.count(i); ++k) {
      INFO("sentence " << i << " hypothesis " << k);
      const Hypothesis& h = out.at(i, k);
      const Sources one({src[i]});
      const TokenBatch one_batch = one.batch();
      const std::vector<int32_t> prefix_ids(h.ids, h.ids + h.length);
      const Sources prefix({prefix_ids});
      const TokenBatch prefix_batch = prefix.batch();
      DecodeOptions g = options(1);
      g.max_length = h.num_log_probs;
      DecodeOutput again;
      REQUIRE(single.engine->decode(&one_batch, 1, g, &prefix_batch, &again).is_ok());
      const Hypothesis& r = again.at(0, 0);
      REQUIRE(r.num_log_probs >= h.num_log_probs);
      for (size_t t = 0; t < h.num_log_probs; ++t) {
        const float* a = attention_row(out, h, t);
        const float* b = attention_row(again, r, t);
        for (size_t p = 0; p < kMaxSource; ++p) REQUIRE(a[p] == Approx(b[p]).margin(1e-5));
      }
      check_properties(out, h, src[i].size(), false, false);
    }
  }
}

TEST_CASE("RNN attention capture: off unless asked, and the normal path is unchanged") {
  const ZooModel z = load_zoo("luong_general");
  std::unique_ptr<StepModel> plain;
  REQUIRE(create_step_model(*z.model, StepModelLimits{2, 2, kMaxSource, kMaxTarget}, {}, &plain).is_ok());
  REQUIRE(plain->attention_panels() == 0);
  REQUIRE(plain->last_attention() == nullptr);
  std::unique_ptr<DecodingEngine> engine;
  REQUIRE(DecodingEngine::create(plain.get(), DecodingLimits{}, &engine).is_ok());
  Session capturing = open_capturing(*z.model, 2, 2);
  const Sources sources({{25, 26, 27, 30, 17, 9}, {11, 12, 13}});
  const TokenBatch batch = sources.batch();
  for (size_t beam : {size_t{1}, size_t{2}}) {
    DecodeOutput a, b;
    REQUIRE(engine->decode(&batch, 2, options(beam), nullptr, &a).is_ok());
    REQUIRE(capturing.engine->decode(&batch, 2, options(beam), nullptr, &b).is_ok());
    REQUIRE(a.attention_panels == 0);
    for (size_t i = 0; i < 2; ++i) {
      REQUIRE(a.at(i, 0).attention == nullptr);
      REQUIRE(b.at(i, 0).attention != nullptr);
      REQUIRE(a.at(i, 0).length == b.at(i, 0).length);
      for (size_t t = 0; t < a.at(i, 0).length; ++t) REQUIRE(a.at(i, 0).ids[t] == b.at(i, 0).ids[t]);
      REQUIRE(a.at(i, 0).log_prob == b.at(i, 0).log_prob);
    }
  }
}

}  // namespace heed::test
