#include "libretranslate.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "client_watch.h"
#include "heed/decode_option_keys.h"
#include "http_json.h"
#include "libretranslate_body.h"
#include "request_limits.h"
#include "request_log.h"

namespace heed::cli::serve {

namespace {

// A /translate request, checked.
struct TranslateRequest {
  std::vector<std::string> texts;
  bool list = false;  // `q` was a list: so is the answer
  ServedModel* model = nullptr;
  size_t alternatives = 0;
};

std::optional<std::string> string_field(const json& body, const char* key) {
  const auto it = body.find(key);
  if (it == body.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// `q`: a string or a list of strings, within the count and length limits. Empty: fine.
std::string read_texts(const json& body, const ServeOptions& options, TranslateRequest* r) {
  const auto q = body.find("q");
  if (q == body.end() || q->is_null()) return "Invalid request: missing q parameter";
  if (q->is_string()) {
    r->texts.push_back(q->get<std::string>());
  } else if (q->is_array()) {
    r->list = true;
    if (q->size() > options.max_texts) {
      return "Invalid request: " + std::to_string(q->size()) + " texts, more than the limit of " +
             std::to_string(options.max_texts);
    }
    for (const json& item : *q) {
      if (!item.is_string()) return "Invalid request: q must be a string or a list of strings";
      r->texts.push_back(item.get<std::string>());
    }
  } else {
    return "Invalid request: q must be a string or a list of strings";
  }
  for (const std::string& text : r->texts) {
    if (text.size() > options.max_text_bytes) {
      return "Invalid request: request (" + std::to_string(text.size()) + ") exceeds text limit (" +
             std::to_string(options.max_text_bytes) + ")";
    }
  }
  return "";
}

// The request's fields; an empty string, or the message of a 400.
std::string read_request(const json& body, const ServerContext& context, TranslateRequest* r) {
  if (std::string error = read_texts(body, context.options, r); !error.empty()) return error;
  const auto source = string_field(body, "source");
  const auto target = string_field(body, "target");
  if (!source) return "Invalid request: missing source parameter";
  if (!target) return "Invalid request: missing target parameter";
  const std::string format = string_field(body, "format").value_or("text");
  if (format != "text") return "Invalid request: format '" + format + "' is not supported (only text)";
  if (*source == "auto") return "Invalid request: source 'auto' needs language detection, which heed does not do";
  r->model = context.models.translation(*source, *target);
  if (r->model == nullptr) return "Invalid request: no model translates from '" + *source + "' to '" + *target + "'";
  std::optional<long long> alternatives;
  if (!get_integer(body, "alternatives", 0, static_cast<long long>(context.options.max_alternatives), &alternatives)) {
    return "Invalid request: alternatives must be a whole number from 0 to " +
           std::to_string(context.options.max_alternatives);
  }
  r->alternatives = static_cast<size_t>(alternatives.value_or(0));
  return "";
}

// LibreTranslate's answer: translatedText (and alternatives) as a string or a list, as q was.
json answer(const TranslateRequest& r, const std::vector<std::vector<std::string>>& out) {
  json texts = json::array(), alternatives = json::array();
  for (const auto& hypotheses : out) {
    texts.push_back(hypotheses.front());
    alternatives.push_back(json(std::vector<std::string>(hypotheses.begin() + 1, hypotheses.end())));
  }
  json result{{"translatedText", r.list ? texts : texts.front()}};
  if (r.alternatives > 0) result["alternatives"] = r.list ? alternatives : alternatives.front();
  return result;
}

// A failed translation: 413 for a per-request limit, 503 for --timeout-ms, 499 (nginx's "client
// closed request", for the log: nobody reads it) for a client gone, 500 for heed's own errors.
void send_translate_error(httplib::Response& res, const Status& st, const ServeOptions& options) {
  if (const std::string limit = request_limit_of(st); !limit.empty()) {
    return send_limit_error(res, limit, "Request too large: " + st.message());
  }
  if (st.code() == StatusCode::kDeadlineExceeded) {
    return send_error(res, 503, "Timed out after " + std::to_string(options.timeout_ms) + " ms (--timeout-ms)");
  }
  if (st.code() == StatusCode::kCancelled) return send_error(res, 499, "Client closed the connection");
  send_error(res, st.code() == StatusCode::kInternal ? 500 : 400, "Translation failed: " + st.message());
}

void translate(const ServerContext& context, const httplib::Request& req, httplib::Response& res,
               const httplib::ContentReader& content) {
  const std::optional<json> body = read_libretranslate_body(req, content, res);
  if (!body) return;
  if (context.keys.required() && !context.keys.accepts(string_field(*body, "api_key").value_or(""))) {
    return send_error(res, 403, "Invalid API key");
  }
  TranslateRequest r;
  if (std::string error = read_request(*body, context, &r); !error.empty()) return send_error(res, 400, error);
  if (std::string error = check_chars(r.texts, context.options); !error.empty()) {
    return send_limit_error(res, "max-request-chars", error);
  }
  RequestRecord& record = current_request();
  record.model = r.model->id;
  if (context.options.log_text) record.text = req.body;
  // `heed translate`'s defaults: beam 2 (wider for alternatives: each is one hypothesis of the beam).
  // By the runtime's option names (heed/decode_option_keys.h), as every front end sets them; the
  // values are in range (alternatives was checked against the server's limit).
  DecodeOptions decode;
  const double n_best = static_cast<double>(r.alternatives + 1);
  Status set = set_decode_option(&decode, "num_hypotheses", n_best);
  if (set.ok()) set = set_decode_option(&decode, "beam_size", std::max(2.0, n_best));
  if (set.ok()) set = set_decode_option(&decode, "min_decoding_length", 1.0);
  if (!set.ok()) return send_error(res, 400, "Invalid request: " + set.message());
  decode.use_vmap = context.options.use_vmap;
  // --timeout-ms bounds the wait for a session and the translation together; a client that
  // disconnects stops its translation (ClientWatch) and frees the session within a decoder step.
  decode.deadline = context.deadline();
  const ClientWatch watch(req);
  decode.cancel = watch.gone();
  std::unique_ptr<SessionPool<TranslationSession>::Lease> lease;
  std::string message;
  if (int status = borrow(*r.model->translators, context, &lease, &message)) return send_error(res, status, message);
  std::vector<std::vector<std::string>> out;
  const Status st = (*lease)->translate(r.texts, decode, &out, &record.tokens);
  lease.reset();  // the session is free before the answer is written
  if (!st) return send_translate_error(res, st, context.options);
  send_json(res, answer(r, out));
}

// [{"code", "name", "targets"}] per source language, from the models' languages.
json languages(const ModelSet& models) {
  json list = json::array();
  for (const auto& m : models.models()) {
    if (m->task != Task::kTranslation) continue;
    auto entry = std::find_if(list.begin(), list.end(), [&](const json& l) { return l["code"] == m->source_language; });
    if (entry == list.end()) {
      list.push_back({{"code", m->source_language}, {"name", m->source_name}, {"targets", json::array()}});
      entry = list.end() - 1;
    }
    (*entry)["targets"].push_back(m->target_language);
  }
  return list;
}

}  // namespace

void add_libretranslate_routes(httplib::Server& server, const ServerContext& context) {
  server.Post("/translate", [&context](const httplib::Request& req, httplib::Response& res,
                                       const httplib::ContentReader& content) { translate(context, req, res, content); });
  server.Get("/languages", [&context](const httplib::Request&, httplib::Response& res) {
    send_json(res, languages(context.models));
  });
  server.Post("/detect", [](const httplib::Request&, httplib::Response& res) {
    send_error(res, 501, "heed does not detect languages: give the source language");
  });
}

}  // namespace heed::cli::serve
