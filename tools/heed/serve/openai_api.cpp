#include "openai_api.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "openai_common.h"
#include "http_json.h"
#include "request_limits.h"
#include "request_log.h"

namespace heed::cli::serve {

namespace {

// OpenAI's base64 form: the little-endian float32 bytes, base64-encoded.
std::string base64_floats(const float* v, size_t n) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<unsigned char> bytes(n * 4);
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &v[i], 4);
    for (int b = 0; b < 4; ++b) bytes[i * 4 + b] = static_cast<unsigned char>(bits >> (8 * b));
  }
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const uint32_t chunk = (bytes[i] << 16) | (i + 1 < bytes.size() ? bytes[i + 1] << 8 : 0) |
                           (i + 2 < bytes.size() ? bytes[i + 2] : 0);
    for (size_t k = 0; k < 4; ++k) out += i + k <= bytes.size() ? digits[(chunk >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

// `input`: a string or a list of strings, within the limits; an error message otherwise.
std::string read_inputs(const json& body, const ServeOptions& options, std::vector<std::string>* texts) {
  const auto input = body.find("input");
  if (input != body.end() && input->is_string()) {
    texts->push_back(input->get<std::string>());
  } else if (input != body.end() && input->is_array() && !input->empty() && input->size() <= options.max_texts) {
    for (const json& item : *input) {
      if (!item.is_string()) return "'input' must be a string or a list of strings (token ids are not supported)";
      texts->push_back(item.get<std::string>());
    }
  } else {
    return "'input' must be a string or a list of 1 to " + std::to_string(options.max_texts) + " strings";
  }
  for (const std::string& t : *texts) {
    if (t.size() > options.max_text_bytes) return "an input is longer than " + std::to_string(options.max_text_bytes) + " bytes";
  }
  return "";
}

void embeddings(const ServerContext& context, const httplib::Request& req, httplib::Response& res) {
  json body;
  ServedModel* m = open_request(context, Task::kEmbedding, req, res, &body);
  if (m == nullptr) return;
  std::vector<std::string> texts;
  if (std::string error = read_inputs(body, context.options, &texts); !error.empty()) return send_openai_error(res, 400, error);
  // json::value would throw on a non-string (a 500): read it as a string or refuse it.
  const auto format_field = body.find("encoding_format");
  const bool given = format_field != body.end() && !format_field->is_null();
  const std::string format = !given ? "float" : format_field->is_string() ? format_field->get<std::string>() : "";
  if (format != "float" && format != "base64") return send_openai_error(res, 400, "'encoding_format' must be float or base64");
  if (std::string error = check_chars(texts, context.options); !error.empty()) {
    return send_openai_limit_error(res, "max-request-chars", error);
  }
  std::unique_ptr<SessionPool<Embedder>::Lease> lease;
  std::string message;
  if (int status = borrow(*m->embedders, context, &lease, &message)) return send_openai_error(res, status, message);
  Embedder& embedder = **lease;
  // `dimensions` would shorten the vectors (Matryoshka models); only the model's own is accepted.
  const auto dimensions = body.find("dimensions");
  if (dimensions != body.end() && !dimensions->is_null() && *dimensions != embedder.dimension()) {
    return send_unsupported_parameter(res, "dimensions");
  }
  // Tokens first: a request over --max-request-tokens is refused before the encoder runs.
  Status st;
  size_t tokens = 0;
  std::vector<int32_t> ids;
  for (size_t i = 0; st && i < texts.size(); ++i) {
    st = embedder.encode(texts[i], &ids);
    tokens += ids.size();
  }
  if (!st) return send_openai_error(res, 400, st.message());
  if (std::string error = check_tokens(tokens, context.options); !error.empty()) {
    return send_openai_limit_error(res, "max-request-tokens", error);
  }
  std::vector<float> vectors;
  st = embedder.embed_text(texts, embedder.default_pooling(), embedder.default_normalize(), &vectors);
  if (!st) return send_openai_error(res, 400, st.message());
  current_request().tokens = tokens;
  json data = json::array();
  const size_t dim = embedder.dimension();
  for (size_t i = 0; i < texts.size(); ++i) {
    const float* v = vectors.data() + i * dim;
    json embedding = format == "base64" ? json(base64_floats(v, dim)) : json(std::vector<float>(v, v + dim));
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", std::move(embedding)}});
  }
  send_json(res, {{"object", "list"}, {"data", std::move(data)}, {"model", m->id},
                  {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}}});
}

json model_object(const ServedModel& m) { return {{"id", m.id}, {"object", "model"}, {"created", 0}, {"owned_by", "heed"}}; }

json models_list(const ModelSet& models) {
  json data = json::array();
  for (const auto& m : models.models()) data.push_back(model_object(*m));
  return {{"object", "list"}, {"data", std::move(data)}};
}

// GET /v1/models/{id}: the model, or OpenAI's 404 for an id not served.
void retrieve_model(const ServerContext& context, const httplib::Request& req, httplib::Response& res) {
  if (!authorized(context, req)) return send_openai_error(res, 401, "Invalid API key", "authentication_error");
  const std::string id = req.matches[1];
  for (const auto& m : context.models.models()) {
    if (m->id == id) return send_json(res, model_object(*m));
  }
  send_openai_param_error(res, 404, "The model '" + id + "' does not exist", "model", "model_not_found");
}

}  // namespace

void add_openai_routes(httplib::Server& server, const ServerContext& context) {
  server.Get("/v1/models", [&context](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(context, req)) return send_openai_error(res, 401, "Invalid API key", "authentication_error");
    send_json(res, models_list(context.models));
  });
  server.Get("/v1/models/([^/]+)", [&context](const httplib::Request& req, httplib::Response& res) {
    retrieve_model(context, req, res);
  });
  server.Post("/v1/embeddings", [&context](const httplib::Request& req, httplib::Response& res) {
    embeddings(context, req, res);
  });
  add_completion_route(server, context);
}

}  // namespace heed::cli::serve
