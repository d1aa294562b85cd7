#include "openai_common.h"

#include "request_log.h"

namespace heed::cli::serve {

namespace {

bool is_null_or(const json& body, const char* key, const json& default_value) {
  const auto it = body.find(key);
  return it == body.end() || it->is_null() || *it == default_value;
}

}  // namespace

void send_openai_error(httplib::Response& res, int status, const std::string& message, const char* type) {
  send_json(res, json{{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}}, status);
}

void send_openai_param_error(httplib::Response& res, int status, const std::string& message, const std::string& param,
                             const char* code) {
  const json code_value = code != nullptr ? json(code) : json(nullptr);
  send_json(res, json{{"error", {{"message", message}, {"type", "invalid_request_error"}, {"param", param},
                                 {"code", code_value}}}}, status);
}

std::string unsupported_completion_parameter(const json& body) {
  // Each with the values that mean "not used" (OpenAI's defaults; json compares 0 and 0.0 equal).
  if (!is_null_or(body, "echo", false)) return "echo";
  if (!is_null_or(body, "logprobs", nullptr)) return "logprobs";
  if (!is_null_or(body, "best_of", 1)) return "best_of";
  if (!is_null_or(body, "suffix", "")) return "suffix";
  if (!is_null_or(body, "logit_bias", json::object())) return "logit_bias";
  if (!is_null_or(body, "presence_penalty", 0)) return "presence_penalty";
  if (!is_null_or(body, "frequency_penalty", 0)) return "frequency_penalty";
  if (!is_null_or(body, "n", 1)) return "n";
  return "";
}

void send_unsupported_parameter(httplib::Response& res, const std::string& param) {
  send_openai_param_error(res, 400, "'" + param + "' is not supported by heed serve (only its default value is accepted)",
                          param, "unsupported_parameter");
}

bool authorized(const ServerContext& context, const httplib::Request& req) {
  if (!context.keys.required()) return true;
  const std::string header = req.get_header_value("Authorization");
  const std::string bearer = "Bearer ";
  return header.rfind(bearer, 0) == 0 && context.keys.accepts(std::string_view(header).substr(bearer.size()));
}

// The JSON body of an authorized request naming a model of `task`; null after answering an error.
ServedModel* open_request(const ServerContext& context, Task task, const httplib::Request& req,
                          httplib::Response& res, json* body) {
  if (!authorized(context, req)) return send_openai_error(res, 401, "Invalid API key", "authentication_error"), nullptr;
  json parsed = json::parse(req.body, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return send_openai_error(res, 400, "The body is not a JSON object"), nullptr;
  }
  const auto model = parsed.find("model");
  if (model == parsed.end() || !model->is_string()) return send_openai_error(res, 400, "'model' is required"), nullptr;
  ServedModel* m = context.models.find(model->get<std::string>(), task);
  if (m == nullptr) {
    send_openai_error(res, 404, "No " + std::string(task_name(task)) + " model '" + model->get<std::string>() + "'");
    return nullptr;
  }
  current_request().model = m->id;
  *body = std::move(parsed);
  return m;
}

}  // namespace heed::cli::serve
