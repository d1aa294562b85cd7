// The Transformer encoder-decoder StepModel against reference.h's plain-loop forward pass.
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "loader/model_index.h"
#include "reference.h"
#include "session_helpers.h"
#include "tiny_model.h"

namespace heed::test {
namespace {

std::vector<int32_t> random_ids(std::mt19937& rng, size_t n, int32_t vocab, int32_t first = -1) {
  std::uniform_int_distribution<int32_t> dist(0, vocab - 1);
  std::vector<int32_t> ids(n);
  for (auto& id : ids) id = dist(rng);
  if (first >= 0 && n > 0) ids[0] = first;
  return ids;
}

// Runs a batch of sources of different lengths through the runtime and compares every step of
// every row with the reference.
void check_against_reference(const TinyOptions& options, double tolerance) {
  const convert::NeutralModel neutral = make_tiny_model(options);
  const LoadedModel loaded = load_model(neutral);
  StepModelLimits limits;
  limits.max_batch = 3;
  limits.max_beam = 2;
  limits.max_source_len = 9;
  limits.max_target_len = 7;
  auto session = make_session(*loaded.model, limits);
  REQUIRE(session->vocab_size() == options.target_vocab);
  REQUIRE(session->bos_id() == 1);
  REQUIRE(session->eos_id() == 2);

  std::mt19937 rng(options.seed + 100);
  const int32_t src_vocab = static_cast<int32_t>(options.shared_embeddings ? options.target_vocab : options.source_vocab);
  const std::vector<std::vector<int32_t>> sources = {random_ids(rng, 5, src_vocab), random_ids(rng, 9, src_vocab),
                                                     random_ids(rng, 1, src_vocab)};
  std::vector<std::vector<int32_t>> targets;
  for (size_t r = 0; r < sources.size(); ++r) targets.push_back(random_ids(rng, 7, options.target_vocab, 1));
  const auto got = run_prefixes(*session, sources, targets);
  for (size_t r = 0; r < sources.size(); ++r) {
    const std::vector<float> expected = reference_log_probs(neutral, sources[r], targets[r]);
    INFO("row " << r);
    CHECK(max_abs_diff(got[r], expected) <= tolerance);
  }
}

TEST_CASE("f32 pre-norm encoder-decoder matches the reference, every step of every row") {
  TinyOptions o;
  check_against_reference(o, 1e-4);
}

TEST_CASE("post-norm without final norm matches the reference") {
  TinyOptions o;
  o.seed = 2;
  o.pre_norm = false;
  o.final_norm = false;
  o.embedding_scale = 1.0f;
  check_against_reference(o, 1e-4);
}

TEST_CASE("gated SiLU FFN, grouped-query self-attention, learned positions, embedding norm, tied and shared embeddings") {
  TinyOptions o;
  o.seed = 3;
  o.activation = fb::Activation::SiLU;
  o.gated_ffn = true;
  o.num_kv_heads = 2;
  o.positions = fb::PositionEncoding::Learned;
  o.max_positions = 12;
  o.embedding_norm = true;
  o.tied_output = true;
  o.shared_embeddings = true;
  o.norm_epsilon = 1e-5f;
  check_against_reference(o, 1e-4);
}

TEST_CASE("int8 per-row weights match the reference with the same activation quantization") {
  TinyOptions o;
  o.seed = 4;
  o.quantize = true;
  o.quantize_options.type = convert::WeightType::kInt8;
  check_against_reference(o, 2e-4);
}

TEST_CASE("int8 per-group weights (and int8 embeddings) match the reference") {
  TinyOptions o;
  o.seed = 5;
  o.quantize = true;
  o.quantize_options.type = convert::WeightType::kInt8;
  o.quantize_options.group_size = 8;
  o.tied_output = true;
  check_against_reference(o, 2e-4);
}

TEST_CASE("float16 weights match the reference on the widened weights") {
  TinyOptions o;
  o.seed = 6;
  o.quantize = true;
  o.quantize_options.type = convert::WeightType::kFloat16;
  check_against_reference(o, 1e-4);
}

TEST_CASE("a sentence gets the same log-probs alone and padded in a batch with longer and shorter ones") {
  for (bool quantize : {false, true}) {
    TinyOptions o;
    o.seed = 7;
    o.quantize = quantize;
    const convert::NeutralModel neutral = make_tiny_model(o);
    const LoadedModel loaded = load_model(neutral);
    StepModelLimits limits{3, 1, 12, 6};
    auto session = make_session(*loaded.model, limits);
    std::mt19937 rng(11);
    const auto sentence = random_ids(rng, 6, 23);
    const auto target = random_ids(rng, 6, 19, 1);
    const auto alone = run_prefixes(*session, {sentence}, {target});
    const auto batched = run_prefixes(*session, {random_ids(rng, 12, 23), sentence, random_ids(rng, 2, 23)},
                                      {random_ids(rng, 6, 19, 1), target, random_ids(rng, 6, 19, 1)});
    INFO("quantized " << quantize);
    CHECK(max_abs_diff(alone[0], batched[1]) <= 1e-5);
  }
}

TEST_CASE("reorder() makes each row continue from its parent's cache (beam search)") {
  TinyOptions o;
  o.seed = 8;
  const convert::NeutralModel neutral = make_tiny_model(o);
  const LoadedModel loaded = load_model(neutral);
  StepModelLimits limits{2, 3, 8, 6};
  auto session = make_session(*loaded.model, limits);

  std::mt19937 rng(5);
  const std::vector<std::vector<int32_t>> sources = {random_ids(rng, 4, 23), random_ids(rng, 7, 23)};
  const BatchStorage storage = make_batch(sources);
  const TokenBatch batch = storage.batch();
  const size_t beam = 3, rows = 6, V = 19;
  REQUIRE(session->start(&batch, 2, beam).is_ok());

  std::vector<std::vector<int32_t>> history(rows, std::vector<int32_t>{1});
  std::vector<float> log_probs(rows * V);
  std::vector<int32_t> ids(rows, 1);
  session->step(ids.data(), rows, 0, log_probs.data());
  // Parents stay inside each sentence's beam: rows 0-2 are sentence 0, rows 3-5 sentence 1.
  const std::vector<std::vector<int32_t>> parent_sets = {{2, 0, 2, 4, 4, 3}, {1, 1, 0, 5, 3, 4}, {0, 1, 2, 3, 4, 5}};
  for (size_t t = 1; t <= parent_sets.size() + 1; ++t) {
    ids = random_ids(rng, rows, 19);
    for (size_t r = 0; r < rows; ++r) history[r].push_back(ids[r]);
    session->step(ids.data(), rows, t, log_probs.data());
    for (size_t r = 0; r < rows; ++r) {
      const std::vector<float> expected = reference_log_probs(neutral, sources[r / beam], history[r]);
      const std::vector<float> last(expected.end() - V, expected.end());
      const std::vector<float> got(log_probs.begin() + r * V, log_probs.begin() + (r + 1) * V);
      INFO("step " << t << " row " << r);
      CHECK(max_abs_diff(got, last) <= 1e-4);
    }
    if (t - 1 < parent_sets.size()) {
      const auto& parents = parent_sets[t - 1];
      session->reorder(parents.data(), rows);
      std::vector<std::vector<int32_t>> reordered(rows);
      for (size_t r = 0; r < rows; ++r) reordered[r] = history[parents[r]];
      history = reordered;
    }
  }
}

TEST_CASE("start() resets the batch: a second batch gives the same results as a fresh session") {
  TinyOptions o;
  o.seed = 9;
  const convert::NeutralModel neutral = make_tiny_model(o);
  const LoadedModel loaded = load_model(neutral);
  StepModelLimits limits{2, 1, 8, 5};
  auto used = make_session(*loaded.model, limits);
  auto fresh = make_session(*loaded.model, limits);
  std::mt19937 rng(3);
  run_prefixes(*used, {random_ids(rng, 8, 23), random_ids(rng, 3, 23)},
               {random_ids(rng, 5, 19, 1), random_ids(rng, 5, 19, 1)});
  const auto src = random_ids(rng, 5, 23);
  const auto tgt = random_ids(rng, 4, 19, 1);
  const auto a = run_prefixes(*used, {src}, {tgt});
  const auto b = run_prefixes(*fresh, {src}, {tgt});
  CHECK(max_abs_diff(a[0], b[0]) == 0.0);
}

TEST_CASE("the planned arena shares memory between phases") {
  TinyOptions o;
  const convert::NeutralModel neutral = make_tiny_model(o);
  const LoadedModel loaded = load_model(neutral);
  ArenaReport report;
  REQUIRE(plan_step_model_arena(*loaded.model, StepModelLimits{4, 4, 32, 32}, &report).is_ok());
  CHECK(report.arena_bytes % kArenaAlignment == 0);
  CHECK(report.arena_bytes < report.unshared_bytes);
  CHECK(report.buffers > 20);
}

}  // namespace
}  // namespace heed::test
