// The same real model converted row-major and packed 16x4 (`heed convert --layout`) decodes
// identically: gemm_i8_packed computes the exact int32 sums of gemm_i8 and shares its per-row-scale
// epilogue, so tokens, every token log-prob and teacher-forced scores must be bitwise equal, on
// every ISA. Models: the aren Transformers (CTranslate2, int8 kept and quantized from float32),
// the CTranslate2 onmt-lm and llama2.c stories260K (decoder-only), and attention-zoo RNNs.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ct2/reader.h"
#include "heed/decoding.h"
#include "heed/model.h"
#include "loader/model_index.h"
#include "models/step_model_factory.h"
#include "heed_writer.h"
#include "llama2c/reader.h"
#include "pack.h"
#include "quantize.h"
#include "test_paths.h"
#include "torch_seq2seq/reader.h"

namespace heed::test {
namespace {

using Reader = std::function<Status(convert::NeutralModel*)>;

struct Converted {
  std::vector<uint8_t> bytes;
  std::unique_ptr<Model> model;
  size_t packed = 0;
};

Converted convert_with(const Reader& read, convert::WeightLayout layout) {
  convert::NeutralModel m;
  Status s = read(&m);
  INFO(s.message());
  REQUIRE(s.is_ok());
  REQUIRE(convert::quantize_model(&m, convert::QuantizeOptions{}, nullptr).is_ok());  // int8 per row
  Converted c;
  REQUIRE(convert::pack_model(&m, layout, &c.packed, nullptr).is_ok());
  s = convert::serialize_heed(m, &c.bytes);
  INFO(s.message());
  REQUIRE(s.is_ok());
  s = Model::from_bytes(c.bytes.data(), c.bytes.size(), &c.model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return c;
}

struct Batch {
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  void add(const std::vector<int32_t>& s) {
    ids.insert(ids.end(), s.begin(), s.end());
    offsets.push_back(ids.size());
  }
  TokenBatch view() const { return TokenBatch{ids.data(), offsets.data(), offsets.size() - 1}; }
};

// Deterministic ids in [lo, hi), different lengths per sentence.
Batch make_batch(size_t count, int32_t lo, int32_t hi, uint32_t seed, size_t min_len, size_t max_len) {
  Batch b;
  uint32_t s = seed;
  for (size_t i = 0; i < count; ++i) {
    s = s * 1664525u + 1013904223u;
    const size_t len = min_len + (s >> 8) % (max_len - min_len + 1);
    std::vector<int32_t> sentence;
    for (size_t t = 0; t < len; ++t) {
      s = s * 1664525u + 1013904223u;
      sentence.push_back(lo + static_cast<int32_t>((s >> 8) % static_cast<uint32_t>(hi - lo)));
    }
    b.add(sentence);
  }
  return b;
}

struct Run {
  std::vector<std::vector<int32_t>> ids;
  std::vector<std::vector<float>> log_probs;
  std::vector<float> scores;
};

std::unique_ptr<StepModel> session(const Model& model) {
  StepModelLimits limits;
  limits.max_batch = 5;
  limits.max_beam = 4;
  limits.max_source_len = 24;
  limits.max_target_len = 40;
  std::unique_ptr<StepModel> step;
  const Status s = create_step_model(model, limits, ArenaOptions(), &step);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return step;
}

// Greedy and beam 4 (n-best 4) decoding of `batch` sentences, then teacher-forced scores of the
// greedy outputs: every id and log-prob, as raw values.
Run decode_all(const Model& model, const Batch* sources, const Batch& prefixes, size_t batch) {
  std::unique_ptr<StepModel> step = session(model);
  std::unique_ptr<DecodingEngine> engine;
  const Status created = DecodingEngine::create(step.get(), DecodingLimits(), &engine);
  INFO(created.message());
  REQUIRE(created.is_ok());
  const TokenBatch src = sources ? sources->view() : TokenBatch{};
  const TokenBatch pre = prefixes.view();
  Run run;
  Batch greedy_out;
  for (size_t beam : {size_t{1}, size_t{4}}) {
    DecodeOptions o;
    o.beam_size = beam;
    o.n_best = beam;
    o.max_length = 30;  // the greedy outputs plus the end token are scored within max_target_len
    DecodeOutput out;
    const Status s = engine->decode(sources ? &src : nullptr, batch, o, &pre, &out);
    INFO(s.message());
    REQUIRE(s.is_ok());
    for (size_t i = 0; i < batch; ++i) {
      for (size_t r = 0; r < out.count(i); ++r) {
        const Hypothesis& h = out.at(i, r);
        run.ids.emplace_back(h.ids, h.ids + h.length);
        run.log_probs.emplace_back(h.token_log_probs, h.token_log_probs + h.num_log_probs);
        run.scores.push_back(h.score);
        if (beam == 1) greedy_out.add(run.ids.back());
      }
    }
  }
  ScoreOutput scored;
  const Status s = engine->score(sources ? &src : nullptr, greedy_out.view(), &scored);
  INFO(s.message());
  REQUIRE(s.is_ok());
  run.log_probs.emplace_back(scored.log_probs, scored.log_probs + scored.offsets[scored.batch]);
  return run;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

void check_identical(const Reader& read, const Batch* sources, const Batch& prefixes, size_t batch) {
  const Converted row_major = convert_with(read, convert::WeightLayout::kRowMajor);
  const Converted packed = convert_with(read, convert::WeightLayout::kAuto);
  CHECK(row_major.packed == 0);
  REQUIRE(packed.packed > 0);
  size_t packed_views = 0;
  for (const TensorView& t : file_tensors(*packed.model)) packed_views += t.layout == fb::Layout::Packed16x4;
  CHECK(packed_views == packed.packed);

  const Run a = decode_all(*row_major.model, sources, prefixes, batch);
  const Run b = decode_all(*packed.model, sources, prefixes, batch);
  REQUIRE(a.ids.size() == b.ids.size());
  size_t tokens = 0;
  for (size_t i = 0; i < a.ids.size(); ++i) {
    INFO("hypothesis " << i);
    CHECK(a.ids[i] == b.ids[i]);
    tokens += a.ids[i].size();
  }
  CHECK(tokens > batch);  // the models produced real output, not just end tokens
  REQUIRE(a.log_probs.size() == b.log_probs.size());
  for (size_t i = 0; i < a.log_probs.size(); ++i) {
    INFO("log-prob list " << i);
    CHECK(same_bits(a.log_probs[i], b.log_probs[i]));
  }
  CHECK(same_bits(a.scores, b.scores));
}

// Models without a start token (onmt-lm) cannot go through the decoding engine: feed one sequence
// step by step and compare every full log-prob row.
void check_identical_steps(const Reader& read, const std::vector<int32_t>& sequence) {
  const Converted row_major = convert_with(read, convert::WeightLayout::kRowMajor);
  const Converted packed = convert_with(read, convert::WeightLayout::kAuto);
  REQUIRE(packed.packed > 0);
  std::unique_ptr<StepModel> a = session(*row_major.model), b = session(*packed.model);
  REQUIRE(a->start(nullptr, 1, 1).is_ok());
  REQUIRE(b->start(nullptr, 1, 1).is_ok());
  std::vector<float> ra(a->vocab_size()), rb(b->vocab_size());
  for (size_t t = 0; t < sequence.size(); ++t) {
    INFO("step " << t);
    a->step(&sequence[t], 1, t, ra.data());
    b->step(&sequence[t], 1, t, rb.data());
    CHECK(same_bits(ra, rb));
  }
}

Batch empty_prefixes(size_t n) {
  Batch b;
  for (size_t i = 0; i < n; ++i) b.add({});
  return b;
}

}  // namespace

TEST_CASE("aren Transformers: row-major and packed weights decode bitwise equal", "[packed][e2e]") {
  for (const char* source : {"models/ct2/aren-transliteration-i8", "models/ct2/aren-transliteration"}) {
    INFO(source);
    // Source vocabulary ids 4..40: Arabic letters (0-3 are <blank>, <s>, </s> and the first letters).
    const Batch sources = make_batch(5, 4, 40, 7, 3, 9);
    check_identical([&](convert::NeutralModel* m) { return convert::ct2::read_model(shared_path(source), m); },
                    &sources, empty_prefixes(5), 5);
  }
}

TEST_CASE("decoder-only models: row-major and packed weights generate bitwise equal", "[packed][e2e]") {
  SECTION("llama2.c stories260K") {
    Batch prompts;
    prompts.add({});                    // from the start token alone
    prompts.add({403, 407, 261, 378});  // a few byte-BPE pieces
    prompts.add({290});
    check_identical(
        [](convert::NeutralModel* m) {
          return convert::llama2c::read_model(shared_path("models/llama2c/stories260k/stories260K.bin"), m);
        },
        nullptr, prompts, 3);
  }
  SECTION("CTranslate2 onmt-lm") {
    const Batch tokens = make_batch(1, 10, 2000, 11, 30, 30);
    check_identical_steps(
        [](convert::NeutralModel* m) { return convert::ct2::read_model(shared_path("models/ct2/onmt-lm"), m); },
        tokens.ids);
  }
}

TEST_CASE("RNN attention-zoo models: row-major and packed weights decode bitwise equal", "[packed][e2e]") {
  for (const char* variant : {"luong_general", "bahdanau_gru_additive", "bilstm_2layer_general", "luong_mlp", "luong_local_p", "luong_concat"}) {
    INFO(variant);
    // Character vocabularies: ids 4..24 are ordinary characters (0-3 are the specials).
    const Batch sources = make_batch(5, 4, 24, 3, 4, 12);
    check_identical(
        [&](convert::NeutralModel* m) {
          return convert::torch_seq2seq::read_model(source_path(std::string("tests/fixtures/rnn/") + variant), m);
        },
        &sources, empty_prefixes(5), 5);
  }
}

}  // namespace heed::test
