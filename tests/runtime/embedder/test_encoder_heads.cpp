// BERT's task heads against transformers (tests/fixtures/hf-bert/classifier and mlm, heads.json
// written by scripts/fixtures/make_bert_fixture.py --part heads): BertForSequenceClassification's
// logits and BertForMaskedLM's vocabulary logits at every [MASK] within 1e-4 in float32, with the
// pipelines' answers (label scores, top-5 tokens); int8 weights keep the top label and the top-1
// token of every fixture sentence (the documented int8 tolerance, README); batches give
// what single sentences give; models without the head and bad calls are one-line errors.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "bert_fixture.h"
#include "heed/encoder_tasks.h"

namespace heed::test {
namespace {

using convert::WeightType;

std::vector<int32_t> ids_of(const nlohmann::json& j) { return j.get<std::vector<int32_t>>(); }

size_t argmax(const float* x, size_t n) {
  size_t best = 0;
  for (size_t i = 1; i < n; ++i) best = x[i] > x[best] ? i : best;
  return best;
}

TEST_CASE("BertForSequenceClassification: logits within 1e-4 of transformers, pipeline scores and labels") {
  const auto& ref = heads_reference()["classify"];
  auto c = open_task<Classifier>(bert_folder_heed("classifier", WeightType::kFloat32));
  REQUIRE(c->num_labels() == 3);
  CHECK(c->label(0) == "negative");
  CHECK(c->label(2) == "positive");
  CHECK(c->function() == ScoreFunction::kSoftmax);
  for (size_t i = 0; i < ref["ids"].size(); ++i) {
    INFO(ref["sentences"][i].get<std::string>());
    const auto ids = ids_of(ref["ids"][i]);
    std::vector<int32_t> encoded;
    REQUIRE(c->encode(ref["sentences"][i].get<std::string>(), &encoded).is_ok());
    CHECK(encoded == ids);
    const size_t offsets[] = {0, ids.size()};
    float logits[3], scores[3];
    REQUIRE(c->logits(TokenBatch{ids.data(), offsets, 1}, logits).is_ok());
    for (size_t l = 0; l < 3; ++l) CHECK(std::fabs(logits[l] - ref["logits"][i][l].get<float>()) < 1e-4);
    REQUIRE(c->classify_ids(TokenBatch{ids.data(), offsets, 1}, scores).is_ok());
    for (const auto& entry : ref["pipeline"][i]) {
      size_t l = 0;
      while (c->label(l) != entry["label"].get<std::string>()) ++l;
      CHECK(std::fabs(scores[l] - entry["score"].get<float>()) < 1e-5);
    }
  }
}

TEST_CASE("classify_text batches give what single sentences give; int8 keeps every top label") {
  const auto& ref = heads_reference()["classify"];
  const auto texts = ref["sentences"].get<std::vector<std::string>>();
  for (WeightType type : {WeightType::kFloat32, WeightType::kInt8}) {
    auto c = open_task<Classifier>(bert_folder_heed("classifier", type), 4);
    std::vector<float> scores;
    REQUIRE(c->classify_text(texts, &scores).is_ok());
    for (size_t i = 0; i < texts.size(); ++i) {
      INFO(texts[i] << " as " << convert::weight_type_name(type));
      const auto& want = ref["logits"][i];
      const size_t top = argmax(scores.data() + i * 3, 3);
      CHECK(top == argmax(want.get<std::vector<float>>().data(), 3));
      if (type == WeightType::kFloat32) CHECK(std::fabs(scores[i * 3 + top] - ref["pipeline"][i][0]["score"].get<float>()) < 1e-5);
    }
  }
}

TEST_CASE("BertForMaskedLM: the vocabulary's logits at each mask within 1e-4, the pipeline's top 5") {
  const auto& ref = heads_reference()["fill_mask"];
  auto f = open_task<MaskFiller>(bert_folder_heed("mlm", WeightType::kFloat32));
  const size_t v = f->vocab_size();
  CHECK(f->token(f->mask_id()) == "[MASK]");
  for (size_t i = 0; i < ref["ids"].size(); ++i) {
    INFO(ref["sentences"][i].get<std::string>());
    const auto ids = ids_of(ref["ids"][i]);
    const size_t offsets[] = {0, ids.size()}, masks = ref["masks"][i].size();
    std::vector<float> logits(masks * v);
    size_t found = 0;
    REQUIRE(f->mask_logits(TokenBatch{ids.data(), offsets, 1}, logits.data(), logits.size(), &found).is_ok());
    REQUIRE(found == masks);
    double worst = 0.0;
    for (size_t m = 0; m < masks; ++m) {
      const auto want = ref["logits"][i][m].get<std::vector<float>>();
      for (size_t t = 0; t < v; ++t) worst = std::max(worst, std::fabs(double(logits[m * v + t]) - want[t]));
    }
    CHECK(worst < 1e-4);
    std::vector<MaskCandidate> top(masks * 5);
    REQUIRE(f->fill_ids(TokenBatch{ids.data(), offsets, 1}, 5, top.data(), top.size(), &found).is_ok());
    const auto& pipeline = ref["pipeline"][i];
    for (size_t m = 0; m < masks; ++m) {
      const auto& want = masks == 1 ? pipeline : pipeline[m];
      for (size_t k = 0; k < 5; ++k) {
        CHECK(top[m * 5 + k].id == want[k]["token"].get<int32_t>());
        CHECK(std::fabs(top[m * 5 + k].score - want[k]["score"].get<float>()) < 1e-5);
        CHECK(f->token(top[m * 5 + k].id) == want[k]["token_str"].get<std::string>());
      }
    }
  }
}

TEST_CASE("fill_text over batches; int8 keeps the top-1 token of every mask") {
  const auto& ref = heads_reference()["fill_mask"];
  const auto texts = ref["sentences"].get<std::vector<std::string>>();
  for (WeightType type : {WeightType::kFloat32, WeightType::kInt8}) {
    auto f = open_task<MaskFiller>(bert_folder_heed("mlm", type), 2);
    std::vector<std::vector<std::vector<MaskCandidate>>> out;
    REQUIRE(f->fill_text(texts, 3, &out).is_ok());
    REQUIRE(out.size() == texts.size());
    for (size_t i = 0; i < texts.size(); ++i) {
      INFO(texts[i] << " as " << convert::weight_type_name(type));
      REQUIRE(out[i].size() == ref["masks"][i].size());
      for (size_t m = 0; m < out[i].size(); ++m) {
        const auto& want = out[i].size() == 1 ? ref["pipeline"][i] : ref["pipeline"][i][m];
        REQUIRE(out[i][m].size() == 3);
        CHECK(out[i][m][0].id == want[0]["token"].get<int32_t>());
      }
    }
  }
}

TEST_CASE("task heads: models without them, bad buffers and top_k are one-line errors") {
  EncoderTaskOptions options;
  std::unique_ptr<Classifier> c;
  Status s = Classifier::open(bert_heed(WeightType::kFloat32), options, &c);
  CHECK(s.code() == StatusCode::kUnsupportedModel);
  CHECK(s.message().find("no sequence classification head") != std::string::npos);
  CHECK(s.message().find('\n') == std::string::npos);
  std::unique_ptr<MaskFiller> f;
  s = MaskFiller::open(bert_folder_heed("classifier", WeightType::kFloat32), options, &f);
  CHECK(s.code() == StatusCode::kUnsupportedModel);
  CHECK(s.message().find("no masked-LM head") != std::string::npos);

  f = open_task<MaskFiller>(bert_folder_heed("mlm", WeightType::kFloat32));
  const auto ids = ids_of(heads_reference()["fill_mask"]["ids"][4]);  // two masks
  const size_t offsets[] = {0, ids.size()};
  std::vector<MaskCandidate> one(5);
  size_t masks = 0;
  s = f->fill_ids(TokenBatch{ids.data(), offsets, 1}, 5, one.data(), one.size(), &masks);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(masks == 2);
  CHECK(f->fill_ids(TokenBatch{ids.data(), offsets, 1}, 0, one.data(), one.size(), &masks).code() ==
        StatusCode::kInvalidArgument);
  CHECK(f->fill_ids(TokenBatch{ids.data(), offsets, 1}, f->vocab_size() + 1, one.data(), one.size(), &masks).code() ==
        StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace heed::test
