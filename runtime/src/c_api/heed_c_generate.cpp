// The C API's generation (heed/heed.h) over heed::Generator: options with their size first, the
// decoding controls and stop strings, and a streaming callback that can stop the generation.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "c_api/c_api_support.h"
#include "heed/generator.h"
#include "heed/heed.h"

struct heed_generator {
  std::unique_ptr<heed::Generator> generator;
  std::string last_error;
  std::string text;  // the last continuation, reused between calls
  std::atomic<bool> busy{false};  // a call is running (exclusive_call)
  std::atomic<bool> cancelled{false};  // heed_generator_cancel; cleared when a call starts
};

namespace {

using heed::c_api::fail;
using heed::c_api::model_call;
using heed::c_api::record;

// A heed_generate_options as the Generator's options, with what they point to.
struct Request {
  heed::GenerateOptions options;
  heed::c_api::ControlIds ids;
  std::vector<std::string> stop;
};

heed_status make_request(heed_generator* generator, const heed_generate_options* given, Request* r, std::string* err) {
  const heed::Generator& g = *generator->generator;
  if (!given) return fail(HEED_INVALID_ARGUMENT, "heed_generate_options is null", err);
  heed_generate_options o;
  const heed_status read = heed::c_api::read_options(given, heed_generate_options_init, "heed_generate_options", &o, err);
  if (read != HEED_OK) return read;
  const heed::c_api::ControlTokens tokens{o.suppress_sequences, o.num_suppress_sequences, o.end_tokens,
                                          o.num_end_tokens};
  const auto to_id = [&g](const std::string& token) { return g.token_id(token); };
  const heed_status e = r->ids.map(tokens, to_id, "heed_generate_options", err);
  if (e != HEED_OK) return e;
  if (o.num_stop > 0 && !o.stop) return fail(HEED_INVALID_ARGUMENT, "heed_generate_options: stop is null", err);
  for (size_t i = 0; i < o.num_stop; ++i) {
    if (!o.stop[i]) return fail(HEED_INVALID_ARGUMENT, "heed_generate_options: a null stop string", err);
    r->stop.emplace_back(o.stop[i]);
  }
  heed::GenerateOptions& d = r->options;
  d.max_new_tokens = o.max_new_tokens;
  d.temperature = o.temperature;
  d.top_k = o.top_k;
  d.top_p = o.top_p;
  d.seed = o.seed;
  d.controls.disable_unk = o.disable_unk != 0;
  d.controls.repetition_penalty = o.repetition_penalty;
  d.controls.no_repeat_ngram_size = o.no_repeat_ngram_size;
  r->ids.bind(&d.controls);
  heed::c_api::set_stop(&generator->cancelled, o.timeout_ms, &d);
  return HEED_OK;
}

// heed::Generator's callback to the caller's, through the stop strings.
struct Stream {
  heed_token_callback callback;
  void* user;
  heed::StopStrings stop;
  std::string* text;
  std::string ready;

  // Hands the released text to the caller (id -1: the end of the generation).
  bool deliver(int32_t id) {
    text->append(ready);
    const bool go_on = callback == nullptr || callback(user, id, ready.data(), ready.size()) == 0;
    ready.clear();
    return go_on;
  }
  static bool on_token(void* self, int32_t id, std::string_view piece) {
    Stream& s = *static_cast<Stream*>(self);
    const bool stopped = s.stop.feed(piece, &s.ready);
    return s.deliver(id) && !stopped;
  }
};

heed_status generate(heed_generator* g, const int32_t* prompt, size_t prompt_length, const Request& r,
                     heed_token_callback on_token, void* user, heed::Generation* out, std::string* err) {
  Stream stream{on_token, user, heed::StopStrings(r.stop), &g->text, {}};
  g->text.clear();
  const heed_status s =
      record(g->generator->generate(prompt, prompt_length, r.options, &Stream::on_token, &stream, out), err);
  stream.stop.flush(&stream.ready);
  if (s == HEED_OK && !stream.ready.empty()) stream.deliver(-1);
  return s;
}

// heed_generate_text and heed_generate_chat: the prompt's ids from `encode`, then the text
// generated into out. `inputs_given`: the caller's input pointers are all there.
template <typename Encode>
heed_status generate_text_of(heed_generator* generator, const char* name, bool inputs_given, const Encode& encode,
                             const heed_generate_options* options, heed_token_callback on_token, void* user,
                             char* out, size_t out_capacity, size_t* out_length) {
  if (!generator) return HEED_INVALID_ARGUMENT;
  std::string* err = &generator->last_error;
  return heed::c_api::exclusive_call(generator, name, [&]() -> heed_status {
    err->clear();
    if (!inputs_given || !out_length || (!out && out_capacity > 0)) {
      return fail(HEED_INVALID_ARGUMENT, (std::string(name) + ": a required pointer is null").c_str(), err);
    }
    Request r;
    heed_status s = make_request(generator, options, &r, err);
    if (s != HEED_OK) return s;
    std::vector<int32_t> ids;
    s = record(encode(&ids), err);
    if (s != HEED_OK) return s;
    heed::Generation result;
    s = generate(generator, ids.data(), ids.size(), r, on_token, user, &result, err);
    if (s != HEED_OK) return s;
    return heed::c_api::copy_text_out(generator->text, out, out_capacity, out_length, err);
  });
}

}  // namespace

extern "C" {

void heed_generator_options_init(heed_generator_options* options) {
  if (!options) return;
  *options = heed_generator_options{};
  options->struct_size = sizeof(heed_generator_options);
  options->threads = 1;
  options->backend = HEED_BACKEND_AUTO;
  options->spin_microseconds = heed::GeneratorOptions{}.spin_microseconds;
}

void heed_generate_options_init(heed_generate_options* options) {
  if (!options) return;
  const heed::GenerateOptions d;
  *options = heed_generate_options{};
  options->struct_size = sizeof(heed_generate_options);
  options->max_new_tokens = d.max_new_tokens;
  options->temperature = d.temperature;
  options->top_k = d.top_k;
  options->top_p = d.top_p;
  options->seed = d.seed;
  options->repetition_penalty = d.controls.repetition_penalty;
}

heed_status heed_generator_create(heed_model* model, const heed_generator_options* options,
                                  heed_generator** out_generator) {
  if (!model) return HEED_INVALID_ARGUMENT;
  return model_call(model, [&](std::string* err) -> heed_status {
    if (!out_generator) return fail(HEED_INVALID_ARGUMENT, "heed_generator_create: out_generator is null", err);
    *out_generator = nullptr;
    heed_generator_options o;
    const heed_status read =
        heed::c_api::read_options(options, heed_generator_options_init, "heed_generator_options", &o, err);
    if (read != HEED_OK) return read;
    heed::GeneratorOptions g;
    g.max_context = o.max_context;
    g.threads = o.threads;
    g.spin_microseconds = o.spin_microseconds;
    g.backend = static_cast<heed::Backend>(o.backend);
    auto handle = std::make_unique<heed_generator>();
    const heed_status s = record(heed::Generator::create(*model->model, g, &handle->generator), err);
    if (s != HEED_OK) return s;
    *out_generator = handle.release();
    return HEED_OK;
  });
}

const char* heed_generator_last_error(const heed_generator* generator) {
  return generator ? generator->last_error.c_str() : "";
}

heed_status heed_generator_cancel(heed_generator* generator) {
  if (!generator) return HEED_INVALID_ARGUMENT;
  generator->cancelled.store(true);
  return HEED_OK;
}

void heed_generator_free(heed_generator* generator) { delete generator; }

heed_status heed_generate_text(heed_generator* generator, const char* prompt, const heed_generate_options* options,
                               heed_token_callback on_token, void* user, char* out, size_t out_capacity,
                               size_t* out_length) {
  return generate_text_of(generator, "heed_generate_text", prompt != nullptr,
                          [&](std::vector<int32_t>* ids) { return generator->generator->encode(prompt, ids); },
                          options, on_token, user, out, out_capacity, out_length);
}

heed_status heed_generate_chat(heed_generator* generator, const heed_chat_message* messages, size_t count,
                               const heed_generate_options* options, heed_token_callback on_token, void* user,
                               char* out, size_t out_capacity, size_t* out_length) {
  bool complete = messages != nullptr || count == 0;
  for (size_t i = 0; complete && i < count; ++i) complete = messages[i].role && messages[i].content;
  return generate_text_of(generator, "heed_generate_chat", complete,
                          [&](std::vector<int32_t>* ids) {
                            std::vector<heed::ChatMessage> chat;
                            for (size_t i = 0; i < count; ++i) chat.push_back({messages[i].role, messages[i].content});
                            return generator->generator->encode_chat(chat, ids);
                          },
                          options, on_token, user, out, out_capacity, out_length);
}

heed_status heed_generate_ids(heed_generator* generator, const int32_t* prompt, size_t prompt_length,
                              const heed_generate_options* options, heed_token_callback on_token, void* user,
                              int32_t* out_ids, size_t out_capacity, size_t* out_length) {
  if (!generator) return HEED_INVALID_ARGUMENT;
  std::string* err = &generator->last_error;
  return heed::c_api::exclusive_call(generator, "heed_generate_ids", [&]() -> heed_status {
    err->clear();
    if ((!prompt && prompt_length > 0) || !out_length || (!out_ids && out_capacity > 0)) {
      return fail(HEED_INVALID_ARGUMENT, "heed_generate_ids: a required pointer is null", err);
    }
    Request r;
    heed_status s = make_request(generator, options, &r, err);
    if (s != HEED_OK) return s;
    r.stop.clear();  // text-level: heed_generate_text only
    heed::Generation result;
    s = generate(generator, prompt, prompt_length, r, on_token, user, &result, err);
    if (s != HEED_OK) return s;
    *out_length = result.length;
    if (out_capacity < result.length) {
      *err = "the output buffer holds " + std::to_string(out_capacity) + " ids; the continuation has " +
             std::to_string(result.length);
      return HEED_BUFFER_TOO_SMALL;
    }
    std::copy(result.ids, result.ids + result.length, out_ids);
    return HEED_OK;
  });
}

}  // extern "C"
