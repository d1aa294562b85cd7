// Finished sentences leave the batch (StepModel::compact_rows, used by greedy and beam search):
// on real trained models of both families that move rows (Transformer: the aren-transliteration
// model of ../shared and heed's demo model; RNN seq2seq: two attention-zoo models of
// tests/fixtures/rnn on ../shared's morphology data), float32 and int8, a batch whose sentences
// finish at different steps decodes bitwise as the same session driven without compaction (every
// token, every log-prob, every score, and the captured attention), and the model really ran
// fewer rows.
#include <catch2/catch.hpp>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "convert.h"
#include "ct2/reader.h"
#include "ct2_fixture.h"
#include "heed/decoding.h"
#include "heed/model.h"
#include "heed/translator.h"
#include "heed_writer.h"
#include "models/step_model_factory.h"
#include "quantize.h"
#include "test_paths.h"
#include "torch_seq2seq/reader.h"

using namespace heed;

namespace {

// The session behind `inner`, counting the rows it runs; with `compacting` false it refuses to
// move rows, as a model that cannot would.
class RowCounter : public StepModel {
 public:
  RowCounter(StepModel* inner, bool compacting) : inner_(inner), compacting_(compacting) {}
  size_t vocab_size() const override { return inner_->vocab_size(); }
  int32_t bos_id() const override { return inner_->bos_id(); }
  int32_t eos_id() const override { return inner_->eos_id(); }
  const StepModelLimits& limits() const override { return inner_->limits(); }
  Status start(const TokenBatch* sources, size_t batch, size_t beam) override {
    return inner_->start(sources, batch, beam);
  }
  void step(const int32_t* ids, size_t rows, size_t step, float* log_probs) override {
    rows_run += rows;
    inner_->step(ids, rows, step, log_probs);
  }
  bool compact_rows(const int32_t* keep, size_t count) override {
    return compacting_ && inner_->compact_rows(keep, count);
  }
  void reorder(const int32_t* parents, size_t rows) override { inner_->reorder(parents, rows); }
  size_t attention_panels() const override { return inner_->attention_panels(); }
  size_t attention_heads() const override { return inner_->attention_heads(); }
  const float* last_attention() const override { return inner_->last_attention(); }

  size_t rows_run = 0;

 private:
  StepModel* inner_;
  bool compacting_;
};

struct Result {
  std::vector<int32_t> ids;
  std::vector<float> log_probs, attention;
  float score = 0, log_prob = 0;
  bool operator==(const Result& o) const {
    return ids == o.ids && log_probs == o.log_probs && attention == o.attention && score == o.score &&
           log_prob == o.log_prob;
  }
};

// Every hypothesis of every sentence, and the rows the model ran.
std::vector<Result> decode(StepModel* session, bool compacting, const TokenBatch& sources, const DecodeOptions& o,
                           size_t* rows_run) {
  RowCounter counter(session, compacting);
  std::unique_ptr<DecodingEngine> engine;
  REQUIRE(DecodingEngine::create(&counter, DecodingLimits{}, &engine).is_ok());
  DecodeOutput out;
  const Status s = engine->decode(&sources, sources.size, o, nullptr, &out);
  INFO(s.message());
  REQUIRE(s.is_ok());
  std::vector<Result> results;
  const size_t floats = session->attention_panels() * session->limits().max_source_len;
  for (size_t i = 0; i < sources.size; ++i) {
    for (size_t k = 0; k < out.count(i); ++k) {
      const Hypothesis& h = out.at(i, k);
      Result r;
      r.ids.assign(h.ids, h.ids + h.length);
      r.log_probs.assign(h.token_log_probs, h.token_log_probs + h.num_log_probs);
      if (h.attention != nullptr) r.attention.assign(h.attention, h.attention + h.num_log_probs * floats);
      r.score = h.score;
      r.log_prob = h.log_prob;
      results.push_back(r);
    }
  }
  *rows_run = counter.rows_run;
  return results;
}

std::unique_ptr<Model> opened(const convert::NeutralModel& neutral, std::vector<uint8_t>* bytes) {
  REQUIRE(convert::serialize_heed(neutral, bytes).is_ok());
  std::unique_ptr<Model> model;
  REQUIRE(Model::from_bytes(bytes->data(), bytes->size(), &model).is_ok());
  return model;
}

// Each source through the model's Translator conventions, then every search configuration with
// and without compaction.
void check_model(const Model& model, const std::vector<std::vector<std::string>>& tokens, const std::string& what) {
  std::unique_ptr<Translator> translator;  // for its token -> id mapping only
  REQUIRE(Translator::create(model, TranslatorOptions(), &translator).is_ok());
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  for (const auto& t : tokens) {
    std::vector<int32_t> one;
    REQUIRE(translator->source_ids(t, &one).is_ok());
    ids.insert(ids.end(), one.begin(), one.end());
    offsets.push_back(ids.size());
  }
  const TokenBatch sources{ids.data(), offsets.data(), tokens.size()};
  for (const bool capture : {false, true}) {
    StepModelLimits limits{sources.size, 4, 64, 48};
    limits.capture_attention = capture;
    std::unique_ptr<StepModel> session;
    REQUIRE(create_step_model(model, limits, ArenaOptions{}, &session).is_ok());
    for (const size_t beam : {size_t{1}, size_t{4}}) {
      INFO(what << ", beam " << beam << (capture ? ", attention" : ""));
      DecodeOptions o;
      o.beam_size = beam;
      o.n_best = beam > 1 ? 2 : 1;
      o.max_length = 48;
      size_t kept_rows = 0, dropped_rows = 0;
      const auto kept = decode(session.get(), false, sources, o, &kept_rows);
      const auto dropped = decode(session.get(), true, sources, o, &dropped_rows);
      CHECK(dropped == kept);
      CHECK(dropped_rows < kept_rows);  // the sentences finish at different steps
    }
  }
}

void check_ct2(const std::string& dir, const char* fixture) {
  const test::Fixture f = test::read_fixture(fixture);
  for (const bool int8 : {false, true}) {
    convert::NeutralModel neutral;
    REQUIRE(convert::ct2::read_model(dir, &neutral).is_ok());
    if (int8) {
      const convert::ConvertOptions options;  // int8, packed: what heed convert writes by default
      convert::ConvertSummary summary;
      REQUIRE(convert::quantize_and_pack(&neutral, options, &summary).is_ok());
    }
    std::vector<uint8_t> bytes;
    check_model(*opened(neutral, &bytes), f.sources, dir + (int8 ? " int8" : " float32"));
  }
}

void check_rnn(const std::string& variant, const std::vector<std::vector<std::string>>& sources) {
  for (const auto type : {convert::WeightType::kFloat32, convert::WeightType::kInt8}) {
    convert::NeutralModel neutral;
    REQUIRE(convert::torch_seq2seq::read_model(test::source_path("tests/fixtures/rnn/" + variant), &neutral).is_ok());
    convert::QuantizeOptions q;
    q.type = type;
    REQUIRE(convert::quantize_model(&neutral, q, nullptr).is_ok());
    std::vector<uint8_t> bytes;
    check_model(*opened(neutral, &bytes), sources, variant + (type == convert::WeightType::kInt8 ? " int8" : " float32"));
  }
}

}  // namespace

TEST_CASE("finished sentences leave the batch, and the rest decodes bitwise the same", "[decoding][real]") {
  SECTION("Transformer encoder-decoder") {
    check_ct2(test::shared_path("models/ct2/aren-transliteration"), "aren_ct2_decoding.txt");
    check_ct2(test::source_path("demo/numbers-en-de"), "numbers_ct2_decoding.txt");
  }
  SECTION("RNN seq2seq") {
    std::ifstream in(test::shared_path("data/morph/src.valid"));
    std::vector<std::vector<std::string>> sources;
    for (std::string line; sources.size() < 12 && std::getline(in, line);) sources.push_back(Translator::split_tokens(line));
    REQUIRE(sources.size() == 12);
    check_rnn("luong_general", sources);          // LSTM, input feeding
    check_rnn("bahdanau_gru_additive", sources);  // GRU, attention before the cell
  }
}
