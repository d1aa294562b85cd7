// What every file of the C API shares: the model handle, the translation of heed::Status into
// heed_status and a message, and the guard that turns any C++ exception into a status (a C caller
// cannot receive one).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "heed/heed.h"
#include "heed/model.h"
#include "heed/decoding.h"
#include "heed/status.h"
#include "heed/text_translator.h"
#include "heed/tokenizer.h"
#include "heed/translator.h"

struct heed_model {
  std::unique_ptr<heed::Model> model;
  // Several threads may create translators and embedders from one model at once (heed.h): the
  // message of a failed call is written under this lock, and only then.
  std::mutex error_mutex;
  std::string last_error;
};

namespace heed::tokenizer {
class TokenPieces;
}

struct heed_translator {
  heed_translator();
  ~heed_translator();
  std::unique_ptr<heed::Translator> translator;
  std::unique_ptr<heed::Tokenizer> source, target;  // null: the model reads whitespace tokens
  std::unique_ptr<heed::TextTranslator> text_translator;  // heed_translate_text
  std::unique_ptr<heed::tokenizer::TokenPieces> pieces;  // target tokens' streamed text (heed_translate_stream)
  std::string last_error;
  std::string text;  // the last translation, reused between calls
  std::atomic<bool> busy{false};  // a call is running (exclusive_call)
  std::atomic<bool> cancelled{false};  // heed_translator_cancel; cleared when a call starts
};

namespace heed::c_api {

// The values of heed_status and heed::StatusCode are the same by design.
static_assert(static_cast<int>(heed::StatusCode::kInternal) == HEED_INTERNAL, "heed_status mirrors StatusCode");
static_assert(static_cast<int>(heed::StatusCode::kDeadlineExceeded) == HEED_DEADLINE_EXCEEDED, "heed_status mirrors StatusCode");
static_assert(static_cast<int>(heed::StatusCode::kLimitExceeded) == HEED_LIMIT_EXCEEDED, "heed_status mirrors StatusCode");

inline heed_status record(const heed::Status& s, std::string* last_error) {
  if (s.is_ok()) return HEED_OK;
  if (last_error) *last_error = s.message();
  return static_cast<heed_status>(s.code());
}

inline heed_status fail(heed_status code, const char* message, std::string* last_error) {
  if (last_error) *last_error = message;
  return code;
}

// Reads a caller's options struct that starts with struct_size (every options struct of heed.h
// does): a newer heed reads an older caller's shorter struct, and the fields that struct lacks keep
// the defaults `init` sets. A struct_size of 0 means the caller never called the init function.
// `given` may be null (all defaults) unless the call requires options.
template <typename Options>
heed_status read_options(const Options* given, void (*init)(Options*), const char* name, Options* out,
                         std::string* last_error) {
  init(out);
  if (!given) return HEED_OK;
  if (given->struct_size < sizeof(given->struct_size)) {
    if (last_error) *last_error = std::string(name) + ": struct_size is not set (call " + name + "_init)";
    return HEED_INVALID_ARGUMENT;
  }
  std::memcpy(out, given, std::min(given->struct_size, sizeof(Options)));
  out->struct_size = sizeof(Options);
  return HEED_OK;
}

// Writes `text` NUL-terminated to the caller's buffer; *length is its size without the NUL, also
// when the buffer is too small (HEED_BUFFER_TOO_SMALL, with a message naming both sizes).
inline heed_status copy_text_out(const std::string& text, char* out, size_t capacity, size_t* length,
                                 std::string* last_error) {
  *length = text.size();
  if (capacity < text.size() + 1) {
    if (last_error) {
      *last_error = "the output buffer holds " + std::to_string(capacity) + " bytes; the text needs " +
                    std::to_string(text.size() + 1) + " (NUL included)";
    }
    return HEED_BUFFER_TOO_SMALL;
  }
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return HEED_OK;
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

// Runs `body` as guarded() does, unless another call on `handle` (a heed_translator or
// heed_generator) is running: then HEED_BUSY. A callback that calls the object that called it
// would otherwise reuse the session and buffers the running call is in the middle of; a call from
// another thread at the same time (which heed.h forbids) is refused the same way.
template <typename Handle, typename Body>
heed_status exclusive_call(Handle* handle, const char* what, Body body) noexcept {
  if (handle->busy.exchange(true)) {
    return guarded(&handle->last_error, [&]() -> heed_status {
      return fail(HEED_BUSY, (std::string(what) + ": another call on this object is running (a callback cannot "
                              "call the object that called it; use a second one)").c_str(), &handle->last_error);
    });
  }
  handle->cancelled.store(false);
  const heed_status s = guarded(&handle->last_error, body);
  handle->busy.store(false);
  return s;
}

// A call on a model handle: its message goes to a local string and, when the call fails, to the
// model (under its lock), so that calls from several threads do not race on the model's state.
template <typename Body>
heed_status model_call(heed_model* model, Body body) noexcept {
  std::string err;
  const heed_status s = guarded(&err, [&]() -> heed_status { return body(&err); });
  if (s != HEED_OK) {
    try {
      const std::lock_guard<std::mutex> lock(model->error_mutex);
      model->last_error = err;
    } catch (...) {
    }
  }
  return s;
}

// heed_X_create for the encoder-only handles (heed_embedder, heed_classifier, heed_mask_filler):
// heed_embedder_options as the C++ options of T, T::create over the model into (*out)->*member.
template <typename H, typename T>
heed_status create_encoder_handle(heed_model* model, const heed_embedder_options* options, H** out, const char* what,
                                  std::unique_ptr<T> H::*member) {
  if (!model) return HEED_INVALID_ARGUMENT;
  return model_call(model, [&](std::string* err) -> heed_status {
    if (!out) return fail(HEED_INVALID_ARGUMENT, (std::string(what) + ": the output handle is null").c_str(), err);
    *out = nullptr;
    heed_embedder_options given;
    const heed_status read = read_options(options, heed_embedder_options_init, "heed_embedder_options", &given, err);
    if (read != HEED_OK) return read;
    typename T::Options o;
    if (given.max_batch) o.max_batch = given.max_batch;
    o.max_length = given.max_length;
    o.arena.buffer = given.arena;
    o.arena.size = given.arena_size;
    o.threads = given.threads;
    o.spin_microseconds = given.spin_microseconds;
    std::unique_ptr<H> h(new H());
    const heed_status st = record(T::create(*model->model, o, &(h.get()->*member)), err);
    if (st != HEED_OK) return st;
    *out = h.release();
    return HEED_OK;
  });
}

inline void copy_message(const std::string& message, char* out, size_t capacity) {
  if (!out || capacity == 0) return;
  const size_t n = message.size() < capacity - 1 ? message.size() : capacity - 1;
  std::memcpy(out, message.data(), n);
  out[n] = '\0';
}

// The token strings of a C options struct's decoding controls.
struct ControlTokens {
  const char* const* suppress_sequences;  // each: space-separated tokens
  size_t num_suppress_sequences;
  const char* const* end_tokens;
  size_t num_end_tokens;
};

// Those controls as ids (ControlTokenIds, heed/decoding.h), kept here while the engine's
// DecodeControls points to them.
struct ControlIds {
  ControlTokenIds ids;

  // `to_id`: the model's id of a token, -1 when it has none (HEED_INVALID_ARGUMENT naming it).
  template <typename ToId>
  heed_status map(const ControlTokens& t, ToId to_id, const char* what, std::string* err) {
    if ((t.num_suppress_sequences > 0 && !t.suppress_sequences) || (t.num_end_tokens > 0 && !t.end_tokens)) {
      return fail(HEED_INVALID_ARGUMENT, (std::string(what) + ": a count is set but its array is null").c_str(), err);
    }
    std::vector<std::vector<std::string>> suppress;
    std::vector<std::string> end_tokens;
    for (size_t s = 0; s < t.num_suppress_sequences; ++s) {
      if (!t.suppress_sequences[s]) return fail(HEED_INVALID_ARGUMENT, "a null suppressed sequence", err);
      suppress.push_back(Translator::split_tokens(t.suppress_sequences[s]));
    }
    for (size_t i = 0; i < t.num_end_tokens; ++i) {
      if (!t.end_tokens[i]) return fail(HEED_INVALID_ARGUMENT, "a null end token", err);
      end_tokens.emplace_back(t.end_tokens[i]);
    }
    return record(ids.map(suppress, end_tokens, to_id, "suppress_sequences", "end_tokens"), err);
  }
  void bind(DecodeControls* c) { ids.bind(c); }
};

// A heed_decode_options as the engine's options, with the ids its controls point to (filled in
// place: the options point into this object).
struct DecodeRequest {
  DecodeOptions options;
  ControlIds ids;
  std::string target_prefix;  // heed_decode_options.target_prefix ("" when none)
};
heed_status make_request(heed_translator* translator, const heed_decode_options* given, DecodeRequest* r,
                         std::string* err);

// The stopping conditions of a call: the handle's cancel flag and `timeout_ms` from now (0: none).
template <typename Options>
void set_stop(const std::atomic<bool>* cancelled, uint64_t timeout_ms, Options* options) {
  options->cancel = cancelled;
  if (timeout_ms > 0) options->deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
}

// One text's source tokens (the model's tokenizer, or whitespace tokens).
heed_status source_pieces(heed_translator* translator, std::string_view text, std::vector<std::string>* pieces,
                          std::string* err);
// A target text's tokens (the model's target tokenizer, or whitespace tokens): target prefixes.
heed_status target_pieces(heed_translator* translator, std::string_view text, std::vector<std::string>* pieces,
                          std::string* err);
// A hypothesis as text (detokenized, or its tokens joined with spaces).
heed_status hypothesis_text(heed_translator* translator, const TranslationHypothesis& h, std::string* text,
                            std::string* err);

}  // namespace heed::c_api
