// The C API (heed/heed.h) over Model, Translator and the tokenizers. Every entry point catches
// everything: a C caller cannot receive a C++ exception, so any escaping one becomes HEED_INTERNAL
// (std::bad_alloc: HEED_OUT_OF_MEMORY). Messages live in the handles, never in globals.
#include "heed/heed.h"

#include "c_api/c_api_support.h"
#include "tokenizer/token_pieces.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "heed/model.h"
#include "heed/status.h"
#include "heed/tokenizer.h"
#include "heed/translator.h"



namespace {

using heed::c_api::copy_message;
using heed::c_api::fail;
using heed::c_api::guarded;
using heed::c_api::model_call;
using heed::c_api::record;

// The caller's translator options as the C++ Translator's; *split: whether heed_translate_text splits
// text into sentences.
heed_status translator_options(const heed_translator_options* given, heed::TranslatorOptions* t, bool* split,
                               std::string* err) {
  heed_translator_options o;
  const heed_status read =
      heed::c_api::read_options(given, heed_translator_options_init, "heed_translator_options", &o, err);
  if (read != HEED_OK) return read;
  t->limits = heed::StepModelLimits{8, 4, 0, 0};  // lengths of 0: the Translator's default for the model
  if (o.max_batch) t->limits.max_batch = o.max_batch;
  if (o.max_beam) t->limits.max_beam = o.max_beam;
  if (o.max_source_length) t->limits.max_source_len = o.max_source_length;
  if (o.max_target_length) t->limits.max_target_len = o.max_target_length;
  t->arena.buffer = o.arena;
  t->arena.size = o.arena_size;
  t->threads = o.threads;
  t->spin_microseconds = o.spin_microseconds;
  // An unknown value is passed on as is: session creation refuses it with a clear message.
  t->limits.backend = static_cast<heed::Backend>(o.backend);
  t->limits.capture_attention = o.capture_attention != 0;
  t->max_n_best = 0;  // up to max_beam hypotheses (heed_translate_hypotheses)
  *split = o.no_sentence_split == 0;
  return HEED_OK;
}

heed::DecodeOptions decode_options(const heed::Translator& t, size_t beam) {
  heed::DecodeOptions d;
  d.beam_size = beam;
  d.n_best = 1;
  d.max_length = t.limits().max_target_len;
  return d;
}

// The decoding options of a C API call, checked once by the runtime's own rule.
heed_status checked_decode_options(heed_translator* translator, size_t beam, heed::DecodeOptions* out,
                                   std::string* last_error) {
  const heed::Translator& t = *translator->translator;
  *out = decode_options(t, beam);
  out->cancel = &translator->cancelled;
  return record(heed::check_decode_options(*out, t.limits()), last_error);
}

// A heed_decode_options as the engine's options, with the ids its controls point to (filled in
// place: the options point into this object's vectors).

}  // namespace

heed_status heed::c_api::make_request(heed_translator* translator, const heed_decode_options* given,
                                      DecodeRequest* r, std::string* err) {
  const heed::Translator& t = *translator->translator;
  if (!given) return fail(HEED_INVALID_ARGUMENT, "heed_decode_options is null", err);
  heed_decode_options o;
  const heed_status read = heed::c_api::read_options(given, heed_decode_options_init, "heed_decode_options", &o, err);
  if (read != HEED_OK) return read;
  const auto target_id = [&t](const std::string& token) { return t.target_vocabulary().id(token); };
  const heed::c_api::ControlTokens tokens{o.suppress_sequences, o.num_suppress_sequences, o.end_tokens, o.num_end_tokens};
  heed_status e = r->ids.map(tokens, target_id, "heed_decode_options", err);
  if (e != HEED_OK) return e;
  heed::DecodeOptions& d = r->options;
  d = decode_options(t, o.beam_size);
  d.length_penalty = o.length_penalty;
  d.patience = o.patience;
  d.min_length = o.min_length;
  if (o.max_length) d.max_length = o.max_length;
  d.sampling_top_k = o.sampling_top_k;
  d.sampling_top_p = o.sampling_top_p;
  d.sampling_temperature = o.sampling_temperature;
  d.seed = o.seed;
  d.n_best = o.num_hypotheses;
  d.return_alternatives = o.return_alternatives != 0;
  d.use_vmap = o.use_vmap != 0;
  d.controls.disable_unk = o.disable_unk != 0;
  d.controls.repetition_penalty = o.repetition_penalty;
  d.controls.no_repeat_ngram_size = o.no_repeat_ngram_size;
  r->ids.bind(&d.controls);
  heed::c_api::set_stop(&translator->cancelled, o.timeout_ms, &d);
  r->target_prefix = o.target_prefix ? o.target_prefix : "";
  return record(heed::check_decode_options(d, t.limits()), err);
}

namespace {

// A target prefix belongs to one sentence: the calls that split text or take batches refuse it.
heed_status no_prefix(const char* call, std::string* err) {
  return fail(HEED_INVALID_ARGUMENT, (std::string(call) + ": target_prefix is for heed_translate_hypotheses and "
                                      "heed_translate_stream (one sentence)").c_str(), err);
}

}  // namespace

heed_status heed::c_api::source_pieces(heed_translator* translator, std::string_view text,
                                       std::vector<std::string>* pieces, std::string* err) {
  if (translator->source) return record(translator->source->encode_pieces(text, pieces), err);
  *pieces = heed::Translator::split_tokens(text);
  return HEED_OK;
}

heed_status heed::c_api::target_pieces(heed_translator* translator, std::string_view text,
                                       std::vector<std::string>* pieces, std::string* err) {
  if (translator->target) return record(translator->target->encode_pieces(text, pieces), err);
  *pieces = heed::Translator::split_tokens(text);
  return HEED_OK;
}

heed_status heed::c_api::hypothesis_text(heed_translator* translator, const heed::TranslationHypothesis& h,
                                         std::string* text, std::string* err) {
  text->clear();
  if (translator->target) return record(translator->target->decode(h.ids.data(), h.ids.size(), text), err);
  for (size_t j = 0; j < h.tokens.size(); ++j) *text += (j ? " " : "") + h.tokens[j];
  return HEED_OK;
}

extern "C" {

const char* heed_version(void) { return HEED_VERSION; }

const char* heed_status_name(heed_status status) {
  if (status == HEED_BUFFER_TOO_SMALL) return "buffer too small";
  if (status == HEED_BUSY) return "busy";
  if (status < HEED_OK || status > HEED_DEADLINE_EXCEEDED) return "unknown status";
  return heed::status_code_name(static_cast<heed::StatusCode>(status));
}

heed_status heed_model_open(const char* path, heed_model** out_model, char* error, size_t error_capacity) {
  std::string message;
  heed_status code = guarded(&message, [&]() -> heed_status {
    if (!out_model) return fail(HEED_INVALID_ARGUMENT, "heed_model_open: out_model is null", &message);
    *out_model = nullptr;
    if (!path) return fail(HEED_INVALID_ARGUMENT, "heed_model_open: path is null", &message);
    auto handle = std::make_unique<heed_model>();
    heed_status s = record(heed::Model::open(path, heed::LoadOptions{}, &handle->model), &message);
    if (s != HEED_OK) return s;
    *out_model = handle.release();
    return HEED_OK;
  });
  if (code != HEED_OK) copy_message(message, error, error_capacity);
  return code;
}

const char* heed_model_last_error(const heed_model* model) { return model ? model->last_error.c_str() : ""; }

void heed_model_free(heed_model* model) { delete model; }

void heed_translator_options_init(heed_translator_options* options) {
  if (options) *options = heed_translator_options{sizeof(heed_translator_options), 0, 0, 0, 0, nullptr, 0, 1, 0,
                                                  HEED_BACKEND_AUTO, 0,
                                                  heed::TranslatorOptions{}.spin_microseconds};
}

heed_status heed_translator_arena_size(heed_model* model, const heed_translator_options* options, size_t* out_size) {
  if (!model) return HEED_INVALID_ARGUMENT;
  return model_call(model, [&](std::string* err) -> heed_status {
    if (!out_size) return fail(HEED_INVALID_ARGUMENT, "heed_translator_arena_size: out_size is null", err);
    heed::ArenaReport report;
    heed::TranslatorOptions t;
    bool split = true;
    heed_status s = translator_options(options, &t, &split, err);
    if (s != HEED_OK) return s;
    s = record(heed::Translator::plan_arena(*model->model, t, &report), err);
    if (s != HEED_OK) return s;
    *out_size = report.arena_bytes;
    return HEED_OK;
  });
}

heed_status heed_translator_create(heed_model* model, const heed_translator_options* options,
                                   heed_translator** out_translator) {
  if (!model) return HEED_INVALID_ARGUMENT;
  return model_call(model, [&](std::string* err) -> heed_status {
    if (!out_translator) return fail(HEED_INVALID_ARGUMENT, "heed_translator_create: out_translator is null", err);
    *out_translator = nullptr;
    auto handle = std::make_unique<heed_translator>();
    heed::TranslatorOptions t;
    bool split = true;
    heed_status s = translator_options(options, &t, &split, err);
    if (s != HEED_OK) return s;
    s = record(heed::Translator::create(*model->model, t, &handle->translator), err);
    if (s != HEED_OK) return s;
    if (handle->translator->conventions().kind != heed::TokenizerKind::Whitespace) {
      s = record(heed::create_tokenizer(*model->model, heed::TokenizerSide::kSource, &handle->source), err);
      if (s != HEED_OK) return s;
      s = record(heed::create_tokenizer(*model->model, heed::TokenizerSide::kTarget, &handle->target), err);
      if (s != HEED_OK) return s;
    }
    heed::TextTranslatorOptions text_options;
    text_options.split_sentences = split;
    text_options.truncate_long = false;  // a sentence over max_source_length is HEED_LIMIT_EXCEEDED
    text_options.source_limit_name = "max_source_length";
    s = record(heed::TextTranslator::create(*model->model, *handle->translator, text_options, &handle->text_translator),
               err);
    if (s != HEED_OK) return s;
    handle->pieces = std::make_unique<heed::tokenizer::TokenPieces>();
    s = record(handle->pieces->load(*model->model), err);
    if (s != HEED_OK) return s;
    *out_translator = handle.release();
    return HEED_OK;
  });
}

heed_translator::heed_translator() = default;
heed_translator::~heed_translator() = default;

const char* heed_translator_last_error(const heed_translator* translator) {
  return translator ? translator->last_error.c_str() : "";
}

heed_status heed_translator_cancel(heed_translator* translator) {
  if (!translator) return HEED_INVALID_ARGUMENT;
  translator->cancelled.store(true);
  return HEED_OK;
}

void heed_translator_free(heed_translator* translator) { delete translator; }

}  // extern "C"

namespace {

heed_status translate_text(heed_translator* translator, const char* text, const heed::DecodeOptions& options, char* out,
                           size_t out_capacity, size_t* out_length, std::string* err) {
  if (!text) return fail(HEED_INVALID_ARGUMENT, "heed_translate_text: text is null", err);
  if (!out_length) return fail(HEED_INVALID_ARGUMENT, "heed_translate_text: out_length is null", err);
  if (!out && out_capacity > 0) return fail(HEED_INVALID_ARGUMENT, "heed_translate_text: out is null", err);
  std::vector<heed::TextTranslation> result;
  heed_status s = record(translator->text_translator->translate({text}, options, nullptr, &result), err);
  if (s != HEED_OK) return s;
  // One status per call: the first line that failed fails the call (the C API has no partial text).
  for (const heed::TextLineIssue& e : result.front().errors) {
    return record(heed::Status(e.status.code(), "line " + std::to_string(e.line + 1) + ": " + e.status.message()), err);
  }
  translator->text = std::move(result.front().texts.front());
  return heed::c_api::copy_text_out(translator->text, out, out_capacity, out_length, err);
}

heed_status translate_ids(heed_translator* translator, const int32_t* ids, const size_t* offsets, size_t batch,
                          const heed::DecodeOptions& options, int32_t* out_ids, size_t out_capacity,
                          size_t* out_offsets, std::string* err) {
  if (!offsets || !out_offsets || (batch > 0 && !ids) || (!out_ids && out_capacity > 0)) {
    return fail(HEED_INVALID_ARGUMENT, "heed_translate_ids: a required pointer is null", err);
  }
  heed::Translator& t = *translator->translator;
  out_offsets[0] = 0;
  if (batch == 0) return HEED_OK;
  if (offsets[0] != 0) return fail(HEED_INVALID_ARGUMENT, "heed_translate_ids: offsets[0] must be 0", err);
  for (size_t i = 0; i < batch; ++i) {
    if (offsets[i + 1] < offsets[i]) return fail(HEED_INVALID_ARGUMENT, "heed_translate_ids: offsets must not decrease", err);
  }
  heed::DecodeOutput result;
  heed_status s = record(t.translate(heed::TokenBatch{ids, offsets, batch}, options, nullptr, &result), err);
  if (s != HEED_OK) return s;
  for (size_t i = 0; i < batch; ++i) out_offsets[i + 1] = out_offsets[i] + result.at(i, 0).length;
  if (out_offsets[batch] > out_capacity) {
    *err = "the output buffer holds " + std::to_string(out_capacity) + " ids; the translations need " +
           std::to_string(out_offsets[batch]);
    return HEED_BUFFER_TOO_SMALL;
  }
  for (size_t i = 0; i < batch; ++i) {
    const heed::Hypothesis& h = result.at(i, 0);
    if (h.length) std::memcpy(out_ids + out_offsets[i], h.ids, h.length * sizeof(int32_t));
  }
  return HEED_OK;
}

}  // namespace

extern "C" {

void heed_decode_options_init(heed_decode_options* options) {
  if (!options) return;
  const heed::DecodeOptions d = heed::translation_defaults();
  *options = heed_decode_options{};
  options->struct_size = sizeof(heed_decode_options);
  options->beam_size = d.beam_size;
  options->length_penalty = d.length_penalty;
  options->patience = d.patience;
  options->min_length = d.min_length;
  options->max_length = d.max_length;
  options->sampling_top_k = d.sampling_top_k;
  options->sampling_top_p = d.sampling_top_p;
  options->sampling_temperature = d.sampling_temperature;
  options->seed = d.seed;
  options->repetition_penalty = d.controls.repetition_penalty;
  options->num_hypotheses = 1;
}

heed_status heed_translate_text(heed_translator* translator, const char* text, size_t beam, char* out,
                                size_t out_capacity, size_t* out_length) {
  if (!translator) return HEED_INVALID_ARGUMENT;
  std::string* err = &translator->last_error;
  return heed::c_api::exclusive_call(translator, "heed_translate_text", [&]() -> heed_status {
    err->clear();
    heed::DecodeOptions options;
    const heed_status s = checked_decode_options(translator, beam, &options, err);
    if (s != HEED_OK) return s;
    return translate_text(translator, text, options, out, out_capacity, out_length, err);
  });
}

heed_status heed_translate_text_with_options(heed_translator* translator, const char* text,
                                             const heed_decode_options* options, char* out, size_t out_capacity,
                                             size_t* out_length) {
  if (!translator) return HEED_INVALID_ARGUMENT;
  std::string* err = &translator->last_error;
  return heed::c_api::exclusive_call(translator, "heed_translate_text_with_options", [&]() -> heed_status {
    err->clear();
    heed::c_api::DecodeRequest request;
    const heed_status s = heed::c_api::make_request(translator, options, &request, err);
    if (s != HEED_OK) return s;
    if (!request.target_prefix.empty()) return no_prefix("heed_translate_text_with_options", err);
    return translate_text(translator, text, request.options, out, out_capacity, out_length, err);
  });
}

heed_status heed_translate_ids(heed_translator* translator, const int32_t* ids, const size_t* offsets, size_t batch,
                               size_t beam, int32_t* out_ids, size_t out_capacity, size_t* out_offsets) {
  if (!translator) return HEED_INVALID_ARGUMENT;
  std::string* err = &translator->last_error;
  return heed::c_api::exclusive_call(translator, "heed_translate_ids", [&]() -> heed_status {
    err->clear();
    heed::DecodeOptions options;
    const heed_status s = checked_decode_options(translator, beam, &options, err);
    if (s != HEED_OK) return s;
    return translate_ids(translator, ids, offsets, batch, options, out_ids, out_capacity, out_offsets, err);
  });
}

heed_status heed_translate_ids_with_options(heed_translator* translator, const int32_t* ids, const size_t* offsets,
                                            size_t batch, const heed_decode_options* options, int32_t* out_ids,
                                            size_t out_capacity, size_t* out_offsets) {
  if (!translator) return HEED_INVALID_ARGUMENT;
  std::string* err = &translator->last_error;
  return heed::c_api::exclusive_call(translator, "heed_translate_ids_with_options", [&]() -> heed_status {
    err->clear();
    heed::c_api::DecodeRequest request;
    const heed_status s = heed::c_api::make_request(translator, options, &request, err);
    if (s != HEED_OK) return s;
    if (!request.target_prefix.empty()) return no_prefix("heed_translate_ids_with_options", err);
    return translate_ids(translator, ids, offsets, batch, request.options, out_ids, out_capacity, out_offsets, err);
  });
}

}  // extern "C"

// ---- sentence embeddings -----------------------------------------------------------------------

#include "heed/embedder.h"

struct heed_embedder {
  std::unique_ptr<heed::Embedder> embedder;
  std::string last_error;
};

namespace {

heed::Pooling to_pooling(const heed::Embedder& e, int p) {
  if (p == HEED_POOLING_MEAN) return heed::Pooling::kMean;
  if (p == HEED_POOLING_CLS) return heed::Pooling::kCls;
  return e.default_pooling();
}

bool known_pooling(int p) {
  return p == HEED_POOLING_DEFAULT || p == HEED_POOLING_MEAN || p == HEED_POOLING_CLS;
}

}  // namespace

extern "C" {

void heed_embedder_options_init(heed_embedder_options* options) {
  if (!options) return;
  *options = heed_embedder_options{};
  options->struct_size = sizeof(heed_embedder_options);
  options->threads = 1;
  options->spin_microseconds = heed::EmbedderOptions{}.spin_microseconds;
}

heed_status heed_embedder_create(heed_model* model, const heed_embedder_options* options,
                                 heed_embedder** out_embedder) {
  return heed::c_api::create_encoder_handle(model, options, out_embedder, "heed_embedder_create", &heed_embedder::embedder);
}

const char* heed_embedder_last_error(const heed_embedder* embedder) {
  return embedder ? embedder->last_error.c_str() : "";
}

void heed_embedder_free(heed_embedder* embedder) { delete embedder; }

size_t heed_embedder_dimension(const heed_embedder* embedder) {
  return embedder && embedder->embedder ? embedder->embedder->dimension() : 0;
}

heed_status heed_embed_text(heed_embedder* embedder, const char* text, int pooling, int normalize,
                            float* out, size_t out_capacity) {
  if (!embedder) return HEED_INVALID_ARGUMENT;
  return guarded(&embedder->last_error, [&]() -> heed_status {
    embedder->last_error.clear();
    if (!text || !out) return fail(HEED_INVALID_ARGUMENT, "heed_embed_text: text or out is null", &embedder->last_error);
    if (!known_pooling(pooling)) return fail(HEED_INVALID_ARGUMENT, "heed_embed_text: unknown pooling", &embedder->last_error);
    heed::Embedder& e = *embedder->embedder;
    if (out_capacity < e.dimension()) {
      embedder->last_error = "the output holds " + std::to_string(out_capacity) + " floats, the embedding has " +
                             std::to_string(e.dimension());
      return HEED_BUFFER_TOO_SMALL;
    }
    std::vector<int32_t> ids;
    heed_status st = record(e.encode(text, &ids), &embedder->last_error);
    if (st != HEED_OK) return st;
    const size_t offsets[] = {0, ids.size()};
    return record(e.embed_ids(heed::TokenBatch{ids.data(), offsets, 1}, to_pooling(e, pooling), normalize != 0, out),
                  &embedder->last_error);
  });
}

heed_status heed_embed_ids(heed_embedder* embedder, const int32_t* ids, const size_t* offsets, size_t batch,
                           int pooling, int normalize, float* out, size_t out_capacity) {
  if (!embedder) return HEED_INVALID_ARGUMENT;
  return guarded(&embedder->last_error, [&]() -> heed_status {
    if (!ids || !offsets || !out) {
      return fail(HEED_INVALID_ARGUMENT, "heed_embed_ids: ids, offsets or out is null", &embedder->last_error);
    }
    if (!known_pooling(pooling)) return fail(HEED_INVALID_ARGUMENT, "heed_embed_ids: unknown pooling", &embedder->last_error);
    embedder->last_error.clear();
    heed::Embedder& e = *embedder->embedder;
    // A batch above max_batch is the session's error (kLimitExceeded); check the room otherwise.
    if (batch <= e.max_batch() && out_capacity / e.dimension() < batch) {
      return fail(HEED_BUFFER_TOO_SMALL, "heed_embed_ids: out holds fewer than batch x dimension floats",
                  &embedder->last_error);
    }
    return record(e.embed_ids(heed::TokenBatch{ids, offsets, batch}, to_pooling(e, pooling), normalize != 0, out),
                  &embedder->last_error);
  });
}

}  // extern "C"
