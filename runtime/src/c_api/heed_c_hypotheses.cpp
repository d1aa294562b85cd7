// The C API's n-best translation with scores, attention weights, and its scoring of given
// translations (heed/heed.h).
#include <algorithm>
#include <string>
#include <vector>

#include "c_api/c_api_support.h"
#include "heed/heed.h"

namespace {

using heed::c_api::fail;
using heed::c_api::record;

// One text's tokens within the translator's source limit.
heed_status sentence(heed_translator* translator, const char* text, const char* what,
                     std::vector<std::vector<std::string>>* out, std::string* err) {
  std::vector<std::string> pieces;
  const heed_status s = heed::c_api::source_pieces(translator, text, &pieces, err);
  if (s != HEED_OK) return s;
  const size_t limit = translator->translator->max_source_tokens();
  if (pieces.size() > limit) {
    *err = std::string(what) + " has " + std::to_string(pieces.size()) + " tokens, more than the translator accepts (" +
           std::to_string(limit) + ")";
    return HEED_LIMIT_EXCEEDED;
  }
  out->push_back(std::move(pieces));
  return HEED_OK;
}

// Translates `text` as one sentence with the caller's options (target_prefix included): its
// hypotheses, best first.
heed_status translate_sentence(heed_translator* translator, const char* text, const heed_decode_options* options,
                               std::vector<heed::TranslationHypothesis>* out, std::string* err) {
  heed::c_api::DecodeRequest request;
  heed_status s = heed::c_api::make_request(translator, options, &request, err);
  if (s != HEED_OK) return s;
  std::vector<std::vector<std::string>> sources;
  s = sentence(translator, text, "the text", &sources, err);
  if (s != HEED_OK) return s;
  std::vector<std::vector<std::string>> prefixes(1);  // target_prefix as target tokens
  s = heed::c_api::target_pieces(translator, request.target_prefix, &prefixes[0], err);
  if (s != HEED_OK) return s;
  std::vector<std::vector<heed::TranslationHypothesis>> hypotheses;
  s = record(translator->translator->translate_tokens(sources, request.options,
                                                      prefixes[0].empty() ? nullptr : &prefixes, &hypotheses),
             err);
  if (s != HEED_OK) return s;
  *out = std::move(hypotheses[0]);
  return HEED_OK;
}

}  // namespace

extern "C" {

heed_status heed_translate_hypotheses(heed_translator* translator, const char* text,
                                      const heed_decode_options* options, heed_hypothesis_callback on_hypothesis,
                                      void* user) {
  if (!translator) return HEED_INVALID_ARGUMENT;
  std::string* err = &translator->last_error;
  return heed::c_api::exclusive_call(translator, "heed_translate_hypotheses", [&]() -> heed_status {
    err->clear();
    if (!text || !on_hypothesis) return fail(HEED_INVALID_ARGUMENT, "heed_translate_hypotheses: a required pointer is null", err);
    std::vector<heed::TranslationHypothesis> hypotheses;
    heed_status s = translate_sentence(translator, text, options, &hypotheses, err);
    if (s != HEED_OK) return s;
    std::string line;
    for (size_t rank = 0; rank < hypotheses.size(); ++rank) {
      s = heed::c_api::hypothesis_text(translator, hypotheses[rank], &line, err);
      if (s != HEED_OK) return s;
      if (on_hypothesis(user, rank, line.c_str(), hypotheses[rank].score) != 0) break;
    }
    return HEED_OK;
  });
}

heed_status heed_translate_attention(heed_translator* translator, const char* text, const heed_decode_options* options,
                                     float* weights, size_t capacity, size_t* rows, size_t* cols) {
  if (!translator) return HEED_INVALID_ARGUMENT;
  std::string* err = &translator->last_error;
  return heed::c_api::exclusive_call(translator, "heed_translate_attention", [&]() -> heed_status {
    err->clear();
    if (!text || !rows || !cols || (!weights && capacity > 0)) {
      return fail(HEED_INVALID_ARGUMENT, "heed_translate_attention: a required pointer is null", err);
    }
    if (!translator->translator->limits().capture_attention) {
      return fail(HEED_INVALID_ARGUMENT,
                  "heed_translate_attention: the translator was created without capture_attention", err);
    }
    std::vector<heed::TranslationHypothesis> hypotheses;
    const heed_status s = translate_sentence(translator, text, options, &hypotheses, err);
    if (s != HEED_OK) return s;
    const heed::TranslationHypothesis& best = hypotheses[0];
    if (best.attention_heads == 0) return fail(HEED_UNSUPPORTED_MODEL, "this model has no cross-attention to report", err);
    const std::vector<float> attention = heed::last_layer_attention(best);
    *rows = best.tokens.size();
    *cols = best.attention_source_len;
    if (capacity < attention.size()) {
      *err = "the output buffer holds " + std::to_string(capacity) + " weights; the attention has " +
             std::to_string(attention.size());
      return HEED_BUFFER_TOO_SMALL;
    }
    std::copy(attention.begin(), attention.end(), weights);
    return HEED_OK;
  });
}

heed_status heed_score_text(heed_translator* translator, const char* source, const char* target, float* log_probs,
                            size_t capacity, size_t* count, float* total) {
  if (!translator) return HEED_INVALID_ARGUMENT;
  std::string* err = &translator->last_error;
  return heed::c_api::exclusive_call(translator, "heed_score_text", [&]() -> heed_status {
    err->clear();
    if (!source || !target || !count || !total || (!log_probs && capacity > 0)) {
      return fail(HEED_INVALID_ARGUMENT, "heed_score_text: a required pointer is null", err);
    }
    std::vector<std::vector<std::string>> sources, targets;
    heed_status s = sentence(translator, source, "the source", &sources, err);
    if (s != HEED_OK) return s;
    std::vector<std::string> pieces;
    if (translator->target) {
      s = record(translator->target->encode_pieces(target, &pieces), err);
      if (s != HEED_OK) return s;
    } else {
      pieces = heed::Translator::split_tokens(target);
    }
    targets.push_back(std::move(pieces));
    std::vector<std::vector<float>> scores;
    s = record(translator->translator->score_tokens(sources, targets, &scores), err);
    if (s != HEED_OK) return s;
    *count = scores[0].size();
    *total = 0;
    for (float v : scores[0]) *total += v;
    if (capacity < scores[0].size()) {
      *err = "the output buffer holds " + std::to_string(capacity) + " log-probs; the target needs " +
             std::to_string(scores[0].size());
      return HEED_BUFFER_TOO_SMALL;
    }
    for (size_t i = 0; i < scores[0].size(); ++i) log_probs[i] = scores[0][i];
    return HEED_OK;
  });
}

}  // extern "C"
