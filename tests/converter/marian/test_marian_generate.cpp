// The converted fixture run by heed against transformers' generate() (float32 weights): the first
// decoder step's distribution, greedy token ids, text in -> text out through the tokenizers, and
// the lengths its 64 learned positions allow.
#include <cmath>

#include <catch2/catch.hpp>

#include "heed/tokenizer.h"
#include "models/step_model_factory.h"
#include "heed/translator.h"
#include "loader/model_index.h"
#include "marian_fixture.h"

using heed::test::converted_marian;
using heed::test::ints;
using heed::test::marian_reference;

namespace {

heed::TranslatorOptions translator_options() {
  heed::TranslatorOptions options;
  options.limits = {16, 4, 64, 32};  // batch, beam, source and target length (64 = max_position_embeddings)
  return options;
}

// The library's output ids without the decoder start token (it leads generate()'s output) and
// without the final </s> (heed's hypotheses end before it).
std::vector<int32_t> generated(const nlohmann::json& ids, bool* ended) {
  std::vector<int32_t> v = ints(ids);
  REQUIRE(!v.empty());
  REQUIRE(v.front() == marian_reference()["pad_id"].get<int32_t>());
  v.erase(v.begin());
  *ended = !v.empty() && v.back() == marian_reference()["eos_id"].get<int32_t>();
  if (*ended) v.pop_back();
  return v;
}

}  // namespace

TEST_CASE("marian generate: first decoder step equals transformers' logits (log-softmax, <pad> suppressed)") {
  const auto& model = *converted_marian(heed::convert::WeightType::kFloat32).model;
  std::unique_ptr<heed::StepModel> step_model;
  heed::Status s = heed::create_step_model(model, {1, 1, 64, 32}, heed::ArenaOptions(), &step_model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  const int32_t pad = marian_reference()["pad_id"].get<int32_t>();
  CHECK(step_model->bos_id() == pad);
  const size_t v = step_model->vocab_size();
  std::vector<float> log_probs(v);
  for (const auto& c : marian_reference()["sentences"]) {
    const std::vector<int32_t> ids = ints(c["ids"]);
    const size_t offsets[2] = {0, ids.size()};
    const heed::TokenBatch batch{ids.data(), offsets, 1};
    REQUIRE(step_model->start(&batch, 1, 1).is_ok());
    step_model->step(&pad, 1, 0, log_probs.data());
    // Reference: log-softmax of the library's logits over every token but <pad> (generate() sets
    // its logit to -inf through bad_words_ids).
    const auto& logits = c["first_step_logits"];
    REQUIRE(logits.size() == v);
    double max = -1e30;
    for (size_t i = 0; i < v; ++i) if (static_cast<int32_t>(i) != pad) max = std::max(max, logits[i].get<double>());
    double sum = 0;
    for (size_t i = 0; i < v; ++i) if (static_cast<int32_t>(i) != pad) sum += std::exp(logits[i].get<double>() - max);
    const double lse = max + std::log(sum);
    double worst = 0;
    for (size_t i = 0; i < v; ++i) {
      if (static_cast<int32_t>(i) == pad) continue;
      worst = std::max(worst, std::fabs(log_probs[i] - (logits[i].get<double>() - lse)));
    }
    INFO("'" << c["text"].get<std::string>() << "': max |heed - transformers| = " << worst);
    CHECK(worst < 1e-4);
    CHECK(log_probs[static_cast<size_t>(pad)] < -1e8f);
  }
}

TEST_CASE("marian generate: greedy ids equal generate(num_beams=1)") {
  const auto& model = *converted_marian(heed::convert::WeightType::kFloat32).model;
  std::unique_ptr<heed::Translator> translator;
  heed::Status s = heed::Translator::create(model, translator_options(), &translator);
  INFO(s.message());
  REQUIRE(s.is_ok());
  const auto& sentences = marian_reference()["sentences"];
  std::vector<int32_t> ids;
  std::vector<size_t> offsets = {0};
  for (const auto& c : sentences) {
    for (int32_t id : ints(c["ids"])) ids.push_back(id);
    offsets.push_back(ids.size());
  }
  const heed::TokenBatch batch{ids.data(), offsets.data(), sentences.size()};
  heed::DecodeOptions options;
  options.max_length = marian_reference()["max_new_tokens"].get<size_t>();
  heed::DecodeOutput out;
  s = translator->translate(batch, options, nullptr, &out);
  INFO(s.message());
  REQUIRE(s.is_ok());
  for (size_t i = 0; i < sentences.size(); ++i) {
    bool ended = false;
    const std::vector<int32_t> expected = generated(sentences[i]["greedy"], &ended);
    const heed::Hypothesis& h = out.at(i, 0);
    INFO("'" << sentences[i]["text"].get<std::string>() << "'");
    CHECK(std::vector<int32_t>(h.ids, h.ids + h.length) == expected);
    CHECK(h.finished_with_eos == ended);
  }
}

TEST_CASE("marian generate: text in, text out, through the embedded SentencePiece models") {
  const auto& model = *converted_marian(heed::convert::WeightType::kFloat32).model;
  std::unique_ptr<heed::Tokenizer> source, target;
  REQUIRE(heed::create_tokenizer(model, heed::TokenizerSide::kSource, &source).is_ok());
  REQUIRE(heed::create_tokenizer(model, heed::TokenizerSide::kTarget, &target).is_ok());
  std::unique_ptr<heed::Translator> translator;
  REQUIRE(heed::Translator::create(model, translator_options(), &translator).is_ok());
  heed::DecodeOptions options;
  options.max_length = marian_reference()["max_new_tokens"].get<size_t>();
  for (const auto& c : marian_reference()["sentences"]) {
    std::vector<int32_t> ids;
    REQUIRE(source->encode(c["text"].get<std::string>(), &ids).is_ok());
    ids.push_back(file_index(model).tokenizer()->eos_id());
    const size_t offsets[2] = {0, ids.size()};
    heed::DecodeOutput out;
    REQUIRE(translator->translate(heed::TokenBatch{ids.data(), offsets, 1}, options, nullptr, &out).is_ok());
    std::string text;
    REQUIRE(target->decode(out.at(0, 0).ids, out.at(0, 0).length, &text).is_ok());
    INFO("'" << c["text"].get<std::string>() << "'");
    CHECK(text == c["greedy_text"].get<std::string>());
  }
}

// heed's beam search stops once `beam` hypotheses have finished: generate()'s early_stopping=True.
// (Its default, False, keeps going while a running beam could still win; reference "beam4_heuristic".)
TEST_CASE("marian generate: 4-beam search equals generate(num_beams=4, early_stopping=True)") {
  const auto& model = *converted_marian(heed::convert::WeightType::kFloat32).model;
  std::unique_ptr<heed::Translator> translator;
  REQUIRE(heed::Translator::create(model, translator_options(), &translator).is_ok());
  heed::DecodeOptions options;
  options.beam_size = 4;
  options.length_penalty = 1.0f;
  options.max_length = marian_reference()["max_new_tokens"].get<size_t>();
  for (const auto& c : marian_reference()["sentences"]) {
    const std::vector<int32_t> ids = ints(c["ids"]);
    const size_t offsets[2] = {0, ids.size()};
    heed::DecodeOutput out;
    REQUIRE(translator->translate(heed::TokenBatch{ids.data(), offsets, 1}, options, nullptr, &out).is_ok());
    bool ended = false;
    const std::vector<int32_t> expected = generated(c["beam4"], &ended);
    const heed::Hypothesis& h = out.at(0, 0);
    INFO("'" << c["text"].get<std::string>() << "'");
    CHECK(std::vector<int32_t>(h.ids, h.ids + h.length) == expected);
  }
}

// int8 (the converter's default: per-row weight scales, activations quantized per row at run
// time) against the same float32 reference. The tolerance (tests/fixtures/marian/README.md) was
// measured on this random-weight model (d_model 32: every activation row has only 32 values to
// share one scale): max |error| 0.77, mean 0.092, first token equal on 10 of 11 sentences.
TEST_CASE("marian generate: int8 first step stays within the documented error of transformers' float32") {
  const auto& model = *converted_marian(heed::convert::WeightType::kInt8).model;
  std::unique_ptr<heed::StepModel> step_model;
  REQUIRE(heed::create_step_model(model, {1, 1, 64, 32}, heed::ArenaOptions(), &step_model).is_ok());
  const int32_t pad = marian_reference()["pad_id"].get<int32_t>();
  const size_t v = step_model->vocab_size();
  std::vector<float> log_probs(v);
  double worst_all = 0, sum_error = 0;
  size_t same_argmax = 0, n = 0, entries = 0;
  for (const auto& c : marian_reference()["sentences"]) {
    const std::vector<int32_t> ids = ints(c["ids"]);
    const size_t offsets[2] = {0, ids.size()};
    const heed::TokenBatch batch{ids.data(), offsets, 1};
    REQUIRE(step_model->start(&batch, 1, 1).is_ok());
    step_model->step(&pad, 1, 0, log_probs.data());
    const auto& logits = c["first_step_logits"];
    double max = -1e30;
    size_t best = 0;
    for (size_t i = 0; i < v; ++i) {
      if (static_cast<int32_t>(i) != pad && logits[i].get<double>() > max) {
        max = logits[i].get<double>();
        best = i;
      }
    }
    double sum = 0;
    for (size_t i = 0; i < v; ++i) if (static_cast<int32_t>(i) != pad) sum += std::exp(logits[i].get<double>() - max);
    const double lse = max + std::log(sum);
    double worst = 0;
    size_t heed_best = 0;
    for (size_t i = 0; i < v; ++i) {
      if (static_cast<int32_t>(i) == pad) continue;
      const double e = std::fabs(log_probs[i] - (logits[i].get<double>() - lse));
      worst = std::max(worst, e);
      sum_error += e;
      ++entries;
      if (log_probs[i] > log_probs[heed_best]) heed_best = i;
    }
    worst_all = std::max(worst_all, worst);
    same_argmax += heed_best == best ? 1 : 0;
    ++n;
  }
  const double mean = sum_error / static_cast<double>(entries);
  INFO("int8: max |log-prob error| " << worst_all << ", mean " << mean << ", first token equal on " << same_argmax
                                     << " of " << n);
  CHECK(worst_all < 1.0);
  CHECK(mean < 0.15);
  CHECK(same_argmax + 2 >= n);
}

// 64 learned positions: the Translator's default lengths are the model's, not 256 (which the
// session would refuse), and a source cut to them still ends with the </s> the model reads.
TEST_CASE("marian: default lengths come from the model's positions; a cut source ends with </s>") {
  const auto& model = *converted_marian(heed::convert::WeightType::kFloat32).model;
  CHECK(model.position_limits().source == 64);
  CHECK(model.position_limits().target == 64);
  std::unique_ptr<heed::Translator> translator;
  REQUIRE(heed::Translator::create(model, heed::TranslatorOptions(), &translator).is_ok());
  CHECK(translator->limits().max_source_len == 64);
  CHECK(translator->limits().max_target_len == 64);
  heed::TranslatorOptions given;
  given.limits.max_source_len = 32;
  CHECK(heed::Translator::session_limits(model, given.limits).max_source_len == 32);
  CHECK(heed::Translator::session_limits(model, given.limits).max_target_len == 64);

  std::unique_ptr<heed::Tokenizer> source;
  REQUIRE(heed::create_tokenizer(model, heed::TokenizerSide::kSource, &source).is_ok());
  std::string text;
  for (int i = 0; i < 30; ++i) text += "Today, the parliament dismissed the motion. ";
  std::vector<std::string> pieces;
  REQUIRE(source->encode_pieces(text, &pieces).is_ok());
  REQUIRE(pieces.size() > 64);
  CHECK(translator->truncate_source(&pieces));
  CHECK(pieces.size() == 63);
  std::vector<int32_t> ids;
  REQUIRE(translator->source_ids(pieces, &ids).is_ok());
  CHECK(ids.size() == 64);
  CHECK(ids.back() == file_index(model).tokenizer()->eos_id());
  heed::DecodeOptions options;
  options.beam_size = 1;
  std::vector<std::vector<heed::TranslationHypothesis>> out;
  CHECK(translator->translate_tokens({pieces}, options, nullptr, &out).is_ok());
}
