// The vocabulary shortlist (heed convert --vmap, DecodeOptions::use_vmap; models/vocab_shortlist.h).
// - Linear::gather_rows: every gathered output is bitwise the full layer's output for that row, in
//   every weight format a vocabulary projection can have (float32, float16, int8 row-major per row
//   and per group, int8 packed per row, with activation blocks, with outlier channels).
// - A session: with every token a candidate, decoding is bitwise the same as without the map;
//   with a partial map, a step's candidates get the log-softmax of the full logits over the
//   candidates (computed here in double from the session's own raw logits) and every other token
//   -inf; greedy search gives the whole vocabulary's tokens when the map holds them.
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "convert.h"
#include "heed/decoding.h"
#include "layers/linear.h"
#include "outliers.h"
#include "session_helpers.h"
#include "tiny_model.h"

namespace heed::test {
namespace {

constexpr uint32_t kVocab = 70;  // more than four 16-row blocks, the last one partial

TinyOptions tiny() {
  TinyOptions o;
  o.d_model = 32;
  o.ffn_dim = 64;
  o.target_vocab = kVocab;
  o.seed = 7;
  return o;
}

// The tiny model converted as `options` say (float32 when `quantize` is false).
LoadedModel converted(convert::NeutralModel model, bool quantize, const convert::ConvertOptions& options) {
  if (quantize) {
    convert::ConvertSummary summary;
    const Status s = convert::quantize_and_pack(&model, options, &summary);
    INFO(s.message());
    REQUIRE(s.is_ok());
  }
  return load_model(model);
}

std::vector<float> project(const layers::Linear& linear, const std::vector<float>& x, size_t m) {
  const size_t in = linear.in_features(), out = linear.out_features();
  std::vector<int8_t> q(m * in);
  std::vector<float> scales(m * layers::quant_scales_per_row(in));
  const layers::QuantScratch scratch{q.data(), scales.data(), m, in};
  std::vector<float> y(m * out);
  linear.forward(kernels::best(), x.data(), m, in, y.data(), out, kernels::Activation::kNone, false, scratch);
  return y;
}

void check_gathered(const Model& model) {
  layers::Linear full;
  REQUIRE(full.load(model, "decoder.output", kVocab, 32).is_ok());
  const std::vector<int32_t> rows = {69, 0, 3, 17, 18, 33, 47, 64, 65, 2};
  std::vector<uint8_t> storage(full.gathered_bytes(kVocab) + 64);
  void* aligned = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  layers::Linear gathered;
  full.gather_rows(rows.data(), rows.size(), aligned, &gathered);
  REQUIRE(gathered.out_features() == rows.size());
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t m = 5;
  std::vector<float> x(m * 32);
  for (float& v : x) v = normal(rng);
  x[7] = 40.0f;  // an outlier on channel 7
  const std::vector<float> want = project(full, x, m), got = project(gathered, x, m);
  for (size_t r = 0; r < m; ++r) {
    for (size_t j = 0; j < rows.size(); ++j) {
      INFO("row " << r << ", output " << rows[j]);
      CHECK(got[r * rows.size() + j] == want[r * kVocab + rows[j]]);
    }
  }
}

TEST_CASE("gather_rows: each output is the full layer's, bitwise, in every weight format", "[vmap]") {
  const convert::NeutralModel f32 = make_tiny_model(tiny());
  convert::ConvertOptions options;
  SECTION("float32") { check_gathered(*converted(f32, false, options).model); }
  SECTION("float16") {
    options.quantize.type = convert::WeightType::kFloat16;
    check_gathered(*converted(f32, true, options).model);
  }
  SECTION("int8 packed, per row") { check_gathered(*converted(f32, true, options).model); }
  SECTION("int8 row-major, per row") {
    options.layout = convert::WeightLayout::kRowMajor;
    check_gathered(*converted(f32, true, options).model);
  }
  SECTION("int8 row-major, per group of 8") {
    options.layout = convert::WeightLayout::kRowMajor;
    options.quantize.group_size = 8;
    check_gathered(*converted(f32, true, options).model);
  }
  SECTION("int8 packed, activation blocks of 16") {
    options.activation_block = 16;
    check_gathered(*converted(f32, true, options).model);
  }
  SECTION("int8 packed, activation blocks, outlier channels") {
    convert::NeutralModel model = f32;
    REQUIRE(convert::split_channels(&model, "decoder.output.weight", {7, 20}).is_ok());
    options.activation_block = 16;
    const LoadedModel loaded = converted(model, true, options);
    REQUIRE(find_tensor(*loaded.model, "decoder.output.weight")->num_outlier_channels == 2);
    check_gathered(*loaded.model);
  }
}

// The int8 tiny model with a map: source token s -> targets {3s mod V, 3s+1 mod V}, bigram (5, 6)
// -> {40}, `always` as given.
LoadedModel model_with_map(const std::vector<int32_t>& always) {
  convert::NeutralModel model = make_tiny_model(tiny());
  fb::VocabMapT map;
  map.max_ngram = 2;
  map.key_offsets = {0};
  map.target_offsets = {0};
  const auto add = [&](std::vector<int32_t> key, std::vector<int32_t> targets) {
    map.key_ids.insert(map.key_ids.end(), key.begin(), key.end());
    map.key_offsets.push_back(static_cast<uint32_t>(map.key_ids.size()));
    map.target_ids.insert(map.target_ids.end(), targets.begin(), targets.end());
    map.target_offsets.push_back(static_cast<uint32_t>(map.target_ids.size()));
  };
  for (int32_t s = 3; s < 23; ++s) {
    std::set<int32_t> t = {3 * s % int32_t{kVocab}, (3 * s + 1) % int32_t{kVocab}};
    add({s}, std::vector<int32_t>(t.begin(), t.end()));
    if (s == 5) add({5, 6}, {40});
  }
  map.always = always;
  model.vocab_map = std::move(map);
  return converted(std::move(model), true, convert::ConvertOptions());
}

const std::vector<std::vector<int32_t>> kSources = {{5, 6, 9, 2}, {12, 4, 4, 7, 20, 2}, {3, 2}};

std::unique_ptr<DecodingEngine> engine_for(StepModel* session) {
  std::unique_ptr<DecodingEngine> engine;
  REQUIRE(DecodingEngine::create(session, DecodingLimits{}, &engine).is_ok());
  return engine;
}

StepModelLimits limits() {
  StepModelLimits l;
  l.max_batch = 3;
  l.max_beam = 3;
  l.max_source_len = 8;
  l.max_target_len = 12;
  return l;
}

}  // namespace

TEST_CASE("use_vmap with every token a candidate decodes as the whole vocabulary, bitwise", "[vmap]") {
  std::vector<int32_t> all(kVocab);
  for (uint32_t v = 0; v < kVocab; ++v) all[v] = static_cast<int32_t>(v);
  const LoadedModel loaded = model_with_map(all);
  auto session = make_session(*loaded.model, limits());
  REQUIRE(session->has_vocab_map());
  auto engine = engine_for(session.get());
  const BatchStorage storage = make_batch(kSources);
  const TokenBatch batch = storage.batch();
  for (size_t beam : {1, 3}) {
    DecodeOptions o;
    o.beam_size = beam;
    DecodeOutput plain, shortlisted;
    std::vector<std::vector<int32_t>> want_ids;
    std::vector<std::vector<float>> want_log_probs;
    REQUIRE(engine->decode(&batch, kSources.size(), o, nullptr, &plain).is_ok());
    for (size_t i = 0; i < kSources.size(); ++i) {
      const Hypothesis& h = plain.at(i, 0);
      want_ids.emplace_back(h.ids, h.ids + h.length);
      want_log_probs.emplace_back(h.token_log_probs, h.token_log_probs + h.num_log_probs);
    }
    o.use_vmap = true;
    REQUIRE(engine->decode(&batch, kSources.size(), o, nullptr, &shortlisted).is_ok());
    for (size_t i = 0; i < kSources.size(); ++i) {
      INFO("beam " << beam << ", sentence " << i);
      const Hypothesis& h = shortlisted.at(i, 0);
      CHECK(std::vector<int32_t>(h.ids, h.ids + h.length) == want_ids[i]);
      CHECK(std::vector<float>(h.token_log_probs, h.token_log_probs + h.num_log_probs) == want_log_probs[i]);
    }
  }
}

TEST_CASE("a restricted step: log-softmax over the candidates, -inf elsewhere", "[vmap]") {
  const LoadedModel loaded = model_with_map({11});
  auto session = make_session(*loaded.model, limits());
  const BatchStorage storage = make_batch(kSources);
  const TokenBatch batch = storage.batch();
  // Sentence 0 has tokens 5, 6, 9, 2 and the bigram (5, 6); the others add their own.
  std::set<int32_t> candidates = {11, 1, 2, 40};  // always, bos, eos (the tiny model has no unk), bigram
  for (const auto& source : kSources) {
    for (int32_t s : source) {
      if (s >= 3) candidates.insert({3 * s % int32_t{kVocab}, (3 * s + 1) % int32_t{kVocab}});
    }
  }
  // Three steps into the same buffer: the -inf written once per batch stay where they belong.
  const size_t rows = kSources.size(), steps = 3;
  const std::vector<int32_t> inputs = {1, 1, 1, 6, 40, 11, 3, 2, 6};  // step t: inputs[t * rows ..]
  std::vector<float> logits(steps * rows * kVocab), restricted(rows * kVocab);
  REQUIRE(session->start(&batch, rows, 1).is_ok());
  REQUIRE(session->set_raw_logits(true));
  for (size_t t = 0; t < steps; ++t) session->step(inputs.data() + t * rows, rows, t, logits.data() + t * rows * kVocab);
  session->set_raw_logits(false);
  REQUIRE(session->start(&batch, rows, 1).is_ok());
  REQUIRE(session->restrict_vocabulary(&batch, nullptr).is_ok());
  for (size_t t = 0; t < steps; ++t) {
    session->step(inputs.data() + t * rows, rows, t, restricted.data());
    for (size_t r = 0; r < rows; ++r) {
      const float* full = logits.data() + (t * rows + r) * kVocab;
      double max = -INFINITY, sum = 0;
      for (int32_t c : candidates) max = std::max(max, double(full[c]));
      for (int32_t c : candidates) sum += std::exp(double(full[c]) - max);
      for (uint32_t v = 0; v < kVocab; ++v) {
        INFO("step " << t << ", row " << r << ", token " << v);
        const float got = restricted[r * kVocab + v];
        if (candidates.count(static_cast<int32_t>(v)) == 0) {
          CHECK(got == -std::numeric_limits<float>::infinity());
        } else {
          CHECK(got == Approx(double(full[v]) - max - std::log(sum)).margin(1e-5));
        }
      }
    }
  }
}

TEST_CASE("greedy over a map that holds the chosen tokens gives the whole vocabulary's", "[vmap]") {
  const BatchStorage storage = make_batch(kSources);
  const TokenBatch batch = storage.batch();
  // The tokens greedy search chooses with the whole vocabulary, from a model without a map.
  std::vector<std::vector<int32_t>> want;
  std::set<int32_t> chosen;
  {
    const LoadedModel plain = converted(make_tiny_model(tiny()), true, convert::ConvertOptions());
    auto session = make_session(*plain.model, limits());
    REQUIRE_FALSE(session->has_vocab_map());
    auto engine = engine_for(session.get());
    DecodeOptions o;
    o.beam_size = 1;
    DecodeOutput out;
    REQUIRE(engine->decode(&batch, kSources.size(), o, nullptr, &out).is_ok());
    for (size_t i = 0; i < kSources.size(); ++i) {
      const Hypothesis& h = out.at(i, 0);
      want.emplace_back(h.ids, h.ids + h.length);
      chosen.insert(h.ids, h.ids + h.length);
    }
    o.use_vmap = true;
    const Status refused = engine->decode(&batch, kSources.size(), o, nullptr, &out);
    CHECK(refused.code() == StatusCode::kInvalidArgument);
    CHECK_THAT(refused.message(), Catch::Contains("no vocabulary map"));
  }
  const LoadedModel loaded = model_with_map(std::vector<int32_t>(chosen.begin(), chosen.end()));
  auto session = make_session(*loaded.model, limits());
  auto engine = engine_for(session.get());
  DecodeOptions o;
  o.beam_size = 1;
  o.use_vmap = true;
  DecodeOutput out;
  REQUIRE(engine->decode(&batch, kSources.size(), o, nullptr, &out).is_ok());
  for (size_t i = 0; i < kSources.size(); ++i) {
    const Hypothesis& h = out.at(i, 0);
    CHECK(std::vector<int32_t>(h.ids, h.ids + h.length) == want[i]);
  }
}

}  // namespace heed::test
