// The C API (heed/heed.h) over Model, Translator and the tokenizers. Every entry point catches
// everything: a C caller cannot receive a C++ exception, so any escaping one becomes HEED_INTERNAL
// (std::bad_alloc: HEED_OUT_OF_MEMORY). Messages live in the handles, never in globals.
#include "heed/heed.h"

#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "heed/model.h"
#include "heed/status.h"
#include "heed/tokenizer.h"
#include "heed/transformer.h"
#include "heed/translator.h"

struct heed_model {
  std::unique_ptr<heed::Model> model;
  std::string last_error;
};

struct heed_translator {
  std::unique_ptr<heed::Translator> translator;
  std::unique_ptr<heed::Tokenizer> source, target;  // null: the model reads whitespace tokens
  std::string last_error;
  std::string text;  // the last translation, reused between calls
};

namespace {

// The values of heed_status and heed::StatusCode are the same by design.
static_assert(static_cast<int>(heed::StatusCode::kInternal) == HEED_INTERNAL, "heed_status mirrors StatusCode");
static_assert(static_cast<int>(heed::StatusCode::kLimitExceeded) == HEED_LIMIT_EXCEEDED, "heed_status mirrors StatusCode");

heed_status record(const heed::Status& s, std::string* last_error) {
  if (s.is_ok()) return HEED_OK;
  if (last_error) *last_error = s.message();
  return static_cast<heed_status>(s.code());
}

heed_status fail(heed_status code, const char* message, std::string* last_error) {
  if (last_error) *last_error = message;
  return code;
}

// Runs `body` (returning heed_status) with every exception turned into a status and message.
template <typename Body>
heed_status guarded(std::string* last_error, Body body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    try {
      if (last_error) *last_error = "out of memory";
    } catch (...) {
    }
    return HEED_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    try {
      if (last_error) *last_error = std::string("internal error: ") + e.what();
    } catch (...) {
    }
    return HEED_INTERNAL;
  } catch (...) {
    try {
      if (last_error) *last_error = "internal error";
    } catch (...) {
    }
    return HEED_INTERNAL;
  }
}

void copy_message(const std::string& message, char* out, size_t capacity) {
  if (!out || capacity == 0) return;
  const size_t n = message.size() < capacity - 1 ? message.size() : capacity - 1;
  std::memcpy(out, message.data(), n);
  out[n] = '\0';
}

heed::TranslatorOptions translator_options(const heed_translator_options* o) {
  heed::TranslatorOptions t;
  t.limits = heed::StepModelLimits{8, 4, 256, 256};
  if (o) {
    if (o->max_batch) t.limits.max_batch = o->max_batch;
    if (o->max_beam) t.limits.max_beam = o->max_beam;
    if (o->max_source_length) t.limits.max_source_len = o->max_source_length;
    if (o->max_target_length) t.limits.max_target_len = o->max_target_length;
    t.arena.buffer = o->arena;
    t.arena.size = o->arena_size;
    t.threads = o->threads;
    // An unknown value is passed on as is: session creation refuses it with a clear message.
    t.limits.backend = static_cast<heed::Backend>(o->backend);
  }
  t.max_n_best = 1;  // the C API returns the best hypothesis only
  return t;
}

heed::DecodeOptions decode_options(const heed::Translator& t, size_t beam) {
  heed::DecodeOptions d;
  d.beam_size = beam;
  d.n_best = 1;
  d.max_length = t.limits().max_target_len;
  return d;
}

heed_status check_beam(const heed::Translator& t, size_t beam, std::string* last_error) {
  if (beam == 0 || beam > t.limits().max_beam) {
    *last_error = "beam " + std::to_string(beam) + " is outside 1.." + std::to_string(t.limits().max_beam) +
                  " (the translator's max_beam)";
    return HEED_INVALID_ARGUMENT;
  }
  return HEED_OK;
}

}  // namespace

extern "C" {

const char* heed_version(void) { return HEED_VERSION; }

const char* heed_status_name(heed_status status) {
  if (status == HEED_BUFFER_TOO_SMALL) return "buffer too small";
  if (status < HEED_OK || status > HEED_INTERNAL) return "unknown status";
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
  if (options) *options = heed_translator_options{0, 0, 0, 0, nullptr, 0, 1, HEED_BACKEND_AUTO};
}

heed_status heed_translator_arena_size(heed_model* model, const heed_translator_options* options, size_t* out_size) {
  if (!model) return HEED_INVALID_ARGUMENT;
  return guarded(&model->last_error, [&]() -> heed_status {
    model->last_error.clear();
    if (!out_size) return fail(HEED_INVALID_ARGUMENT, "heed_translator_arena_size: out_size is null", &model->last_error);
    heed::ArenaReport report;
    heed_status s =
        record(heed::plan_step_model_arena(*model->model, translator_options(options).limits, &report,
                                               translator_options(options).threads), &model->last_error);
    if (s != HEED_OK) return s;
    *out_size = report.arena_bytes;
    return HEED_OK;
  });
}

heed_status heed_translator_create(heed_model* model, const heed_translator_options* options,
                                   heed_translator** out_translator) {
  if (!model) return HEED_INVALID_ARGUMENT;
  return guarded(&model->last_error, [&]() -> heed_status {
    model->last_error.clear();
    if (!out_translator) return fail(HEED_INVALID_ARGUMENT, "heed_translator_create: out_translator is null", &model->last_error);
    *out_translator = nullptr;
    auto handle = std::make_unique<heed_translator>();
    heed_status s = record(heed::Translator::create(*model->model, translator_options(options), &handle->translator),
                           &model->last_error);
    if (s != HEED_OK) return s;
    if (handle->translator->conventions().kind != heed::fb::TokenizerKind::Whitespace) {
      s = record(heed::create_tokenizer(*model->model, heed::TokenizerSide::kSource, &handle->source), &model->last_error);
      if (s != HEED_OK) return s;
      s = record(heed::create_tokenizer(*model->model, heed::TokenizerSide::kTarget, &handle->target), &model->last_error);
      if (s != HEED_OK) return s;
    }
    *out_translator = handle.release();
    return HEED_OK;
  });
}

const char* heed_translator_last_error(const heed_translator* translator) {
  return translator ? translator->last_error.c_str() : "";
}

void heed_translator_free(heed_translator* translator) { delete translator; }

heed_status heed_translate_text(heed_translator* translator, const char* text, size_t beam, char* out,
                                size_t out_capacity, size_t* out_length) {
  if (!translator) return HEED_INVALID_ARGUMENT;
  std::string* err = &translator->last_error;
  return guarded(err, [&]() -> heed_status {
    err->clear();
    if (!text) return fail(HEED_INVALID_ARGUMENT, "heed_translate_text: text is null", err);
    if (!out_length) return fail(HEED_INVALID_ARGUMENT, "heed_translate_text: out_length is null", err);
    if (!out && out_capacity > 0) return fail(HEED_INVALID_ARGUMENT, "heed_translate_text: out is null", err);
    heed::Translator& t = *translator->translator;
    heed_status s = check_beam(t, beam, err);
    if (s != HEED_OK) return s;
    std::vector<std::string> pieces;
    if (translator->source) {
      s = record(translator->source->encode_pieces(text, &pieces), err);
      if (s != HEED_OK) return s;
    } else {
      pieces = heed::Translator::split_tokens(text);
    }
    std::string& result = translator->text;
    result.clear();
    if (!pieces.empty()) {  // an empty sentence translates to empty text, as the CLI does
      if (pieces.size() > t.max_source_tokens()) {
        *err = "the text has " + std::to_string(pieces.size()) + " tokens, more than the translator accepts (" +
               std::to_string(t.max_source_tokens()) + ")";
        return HEED_LIMIT_EXCEEDED;
      }
      std::vector<std::vector<heed::TranslationHypothesis>> hypotheses;
      s = record(t.translate_tokens({pieces}, decode_options(t, beam), nullptr, &hypotheses), err);
      if (s != HEED_OK) return s;
      const heed::TranslationHypothesis& best = hypotheses.at(0).at(0);
      if (translator->target) {
        s = record(translator->target->decode(best.ids.data(), best.ids.size(), &result), err);
        if (s != HEED_OK) return s;
      } else {
        for (size_t i = 0; i < best.tokens.size(); ++i) result += (i ? " " : "") + best.tokens[i];
      }
    }
    *out_length = result.size();
    if (out_capacity < result.size() + 1) {
      *err = "the output buffer holds " + std::to_string(out_capacity) + " bytes; the translation needs " +
             std::to_string(result.size() + 1) + " (NUL included)";
      return HEED_BUFFER_TOO_SMALL;
    }
    std::memcpy(out, result.data(), result.size());
    out[result.size()] = '\0';
    return HEED_OK;
  });
}

heed_status heed_translate_ids(heed_translator* translator, const int32_t* ids, const size_t* offsets, size_t batch,
                               size_t beam, int32_t* out_ids, size_t out_capacity, size_t* out_offsets) {
  if (!translator) return HEED_INVALID_ARGUMENT;
  std::string* err = &translator->last_error;
  return guarded(err, [&]() -> heed_status {
    err->clear();
    if (!offsets || !out_offsets || (batch > 0 && !ids) || (!out_ids && out_capacity > 0)) {
      return fail(HEED_INVALID_ARGUMENT, "heed_translate_ids: a required pointer is null", err);
    }
    heed::Translator& t = *translator->translator;
    heed_status s = check_beam(t, beam, err);
    if (s != HEED_OK) return s;
    out_offsets[0] = 0;
    if (batch == 0) return HEED_OK;
    if (offsets[0] != 0) return fail(HEED_INVALID_ARGUMENT, "heed_translate_ids: offsets[0] must be 0", err);
    for (size_t i = 0; i < batch; ++i) {
      if (offsets[i + 1] < offsets[i]) {
        return fail(HEED_INVALID_ARGUMENT, "heed_translate_ids: offsets must not decrease", err);
      }
    }
    heed::DecodeOutput result;
    s = record(t.translate(heed::TokenBatch{ids, offsets, batch}, decode_options(t, beam), nullptr, &result), err);
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
  });
}

}  // extern "C"
