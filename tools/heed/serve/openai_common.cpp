#include "openai_common.h"

#include "request_log.h"

namespace heed::cli::serve {

void send_openai_error(httplib::Response& res, int status, const std::string& message, const char* type) {
  send_json(res, json{{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}}, status);
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
