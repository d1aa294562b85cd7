// POST /v1/completions: one prompt, one choice; POST /v1/chat/completions: one chat (`messages`,
// rendered in the model's chat format, heed/chat.h), one assistant message. With `stream: true`
// each piece of text as a server-sent event ("data: {...}" lines, then "data: [DONE]") while it is
// generated.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <string>

#include "chat_messages.h"
#include "client_watch.h"
#include "completion.h"
#include "heed/decode_option_keys.h"
#include "openai_common.h"
#include "request_limits.h"
#include "request_log.h"

namespace heed::cli::serve {

namespace {

using Lease = SessionPool<Generator>::Lease;

// The prompt (or the chat's messages) into *r; an error message otherwise.
std::string read_prompt(const json& body, const ServeOptions& limits, CompletionRequest* r) {
  if (r->chat) {
    const Status st = chat_messages(body.value("messages", json()), &r->messages);
    if (!st) return "'messages': " + st.message();
    size_t bytes = 0;
    for (const ChatMessage& m : r->messages) bytes += m.content.size();
    if (bytes > limits.max_text_bytes) return "'messages' are longer than " + std::to_string(limits.max_text_bytes) + " bytes";
    return "";
  }
  const auto prompt = body.find("prompt");
  if (prompt != body.end() && prompt->is_array() && prompt->size() == 1) {
    if (!(*prompt)[0].is_string()) return "'prompt' must be a string";
    r->prompt = (*prompt)[0].get<std::string>();
  } else if (prompt != body.end() && prompt->is_string()) {
    r->prompt = prompt->get<std::string>();
  } else {
    return "'prompt' must be a string (one prompt per request)";
  }
  if (r->prompt.size() > limits.max_text_bytes) return "'prompt' is longer than " + std::to_string(limits.max_text_bytes) + " bytes";
  return "";
}

// The request's fields into *r; an error message otherwise.
std::string read_completion(const json& body, const ServeOptions& limits, CompletionRequest* r, bool* stream) {
  if (std::string error = read_prompt(body, limits, r); !error.empty()) return error;
  std::optional<long long> max_tokens, seed;
  // Above the limit is clamped to it (as vLLM and llama.cpp's server do): finish_reason says "length".
  if (!get_integer(body, "max_tokens", 1, INT64_MAX, &max_tokens)) return "'max_tokens' must be a positive whole number";
  if (!get_integer(body, "seed", 0, INT64_MAX, &seed)) return "'seed' must be a non-negative whole number";
  // temperature and top_p: the runtime's decoding options by name (heed/decode_option_keys.h: their
  // ranges), the temperature within OpenAI's 0..2 besides.
  DecodeOptions keyed;
  const json temperature = body.value("temperature", json(1.0)), top_p = body.value("top_p", json(1.0));
  if (!temperature.is_number() || !(temperature.get<double>() <= 2) ||
      !set_decode_option(&keyed, "sampling_temperature", temperature.get<double>())) {
    return "'temperature' must be a number from 0 to 2";
  }
  if (!top_p.is_number() || !set_decode_option(&keyed, "sampling_topp", top_p.get<double>())) return "'top_p' must be in (0, 1]";
  const json stop = body.value("stop", json(nullptr)), stream_field = body.value("stream", json(false));
  if (stop.is_string()) r->stop = {stop.get<std::string>()};
  if (stop.is_array() && stop.size() <= 4 && std::all_of(stop.begin(), stop.end(), [](const json& s) { return s.is_string(); })) {
    r->stop = stop.get<std::vector<std::string>>();
  } else if (!stop.is_null() && !stop.is_string()) {
    return "'stop' must be a string or a list of up to 4 strings";
  }
  if (!stream_field.is_boolean()) return "'stream' must be true or false";
  *stream = stream_field.get<bool>();
  // A chat's answer runs to its end (OpenAI's chat default), a completion's 16 tokens (its default).
  r->options.max_new_tokens = std::min(static_cast<size_t>(max_tokens.value_or(r->chat ? INT64_MAX : 16)), limits.max_tokens);
  r->options.temperature = keyed.sampling_temperature;
  r->options.top_p = keyed.sampling_top_p;
  r->options.seed = static_cast<uint64_t>(seed.value_or(0));
  return "";
}

// One answer (or, with `chunk`, one streamed event) of either endpoint.
json completion_object(const CompletionRequest& r, const std::string& id, const std::string& model,
                       const std::string& text, const json& finish, bool chunk) {
  json choice = {{"index", 0}, {"logprobs", nullptr}, {"finish_reason", finish}};
  const char* object = "text_completion";
  if (!r.chat) {
    choice["text"] = text;
  } else if (chunk) {
    object = "chat.completion.chunk";
    choice["delta"] = finish.is_null() ? json{{"role", "assistant"}, {"content", text}} : json::object();
  } else {
    object = "chat.completion";
    choice["message"] = {{"role", "assistant"}, {"content", text}};
  }
  return {{"id", id}, {"object", object}, {"created", static_cast<long long>(std::time(nullptr))},
          {"model", model}, {"choices", json::array({choice})}};
}

// Streams the generation as events; runs when httplib writes the answer, on the request's thread.
void stream_answer(const ServerContext& context, std::shared_ptr<Lease> lease, CompletionRequest r, std::string id,
                   std::string model, httplib::Response& res) {
  const auto deadline = context.deadline();
  res.set_chunked_content_provider("text/event-stream", [lease, r, id, model, deadline](size_t, httplib::DataSink& sink) {
    const auto send = [&](const json& event) {
      const std::string line = "data: " + dump(event) + "\n\n";
      return sink.is_writable() && sink.write(line.data(), line.size());
    };
    CompletionResult result;
    const Status st = run_completion(**lease, r, deadline,
                                     [&](std::string_view text) { return send(completion_object(r, id, model, std::string(text), nullptr, true)); },
                                     &result);
    current_request().tokens = result.prompt_tokens + result.completion_tokens;
    if (!st) {
      send(json{{"error", {{"message", st.message()}, {"type", "invalid_request_error"}}}});
    } else {
      send(completion_object(r, id, model, "", result.finish_reason, true));
    }
    static const std::string done = "data: [DONE]\n\n";
    if (sink.is_writable()) sink.write(done.data(), done.size());
    sink.done();
    return true;
  });
}

void completions(const ServerContext& context, const httplib::Request& req, httplib::Response& res, bool chat) {
  json body;
  ServedModel* m = open_request(context, Task::kGeneration, req, res, &body);
  if (m == nullptr) return;
  if (const std::string param = unsupported_completion_parameter(body); !param.empty()) {
    return send_unsupported_parameter(res, param);
  }
  CompletionRequest r;
  r.chat = chat;
  bool stream = false;
  if (std::string error = read_completion(body, context.options, &r, &stream); !error.empty()) {
    return send_openai_error(res, 400, error);
  }
  std::vector<std::string> texts = {r.prompt};
  for (const ChatMessage& message : r.messages) texts.push_back(message.content);
  if (context.options.log_text) current_request().text = chat ? dump(body["messages"]) : r.prompt;
  if (std::string error = check_chars(texts, context.options); !error.empty()) {
    return send_openai_limit_error(res, "max-request-chars", error);
  }
  r.max_prompt_tokens = context.options.max_request_tokens;
  std::unique_ptr<Lease> lease;
  std::string message;
  if (int status = borrow(*m->generators, context, &lease, &message)) return send_openai_error(res, status, message);
  static std::atomic<unsigned long long> counter{0};
  const std::string id = (chat ? "chatcmpl-heed-" : "cmpl-heed-") + std::to_string(++counter);
  if (stream) return stream_answer(context, std::shared_ptr<Lease>(std::move(lease)), std::move(r), id, m->id, res);
  std::string text;
  CompletionResult result;
  const ClientWatch watch(req);  // a client gone stops the generation (a stream notices failed writes)
  r.options.cancel = watch.gone();
  const Status st = run_completion(**lease, r, context.deadline(), [&](std::string_view t) { return text.append(t), true; }, &result);
  if (const std::string limit = request_limit_of(st); !limit.empty()) return send_openai_limit_error(res, limit, st.message());
  if (st.code() == StatusCode::kCancelled) return send_openai_error(res, 499, "Client closed the connection");
  if (!st) return send_openai_error(res, 400, st.message());
  current_request().tokens = result.prompt_tokens + result.completion_tokens;
  json answer = completion_object(r, id, m->id, text, result.finish_reason, false);
  answer["usage"] = {{"prompt_tokens", result.prompt_tokens}, {"completion_tokens", result.completion_tokens},
                     {"total_tokens", result.prompt_tokens + result.completion_tokens}};
  send_json(res, answer);
}

}  // namespace

void add_completion_route(httplib::Server& server, const ServerContext& context) {
  server.Post("/v1/completions", [&context](const httplib::Request& req, httplib::Response& res) {
    completions(context, req, res, false);
  });
  server.Post("/v1/chat/completions", [&context](const httplib::Request& req, httplib::Response& res) {
    completions(context, req, res, true);
  });
}

}  // namespace heed::cli::serve
