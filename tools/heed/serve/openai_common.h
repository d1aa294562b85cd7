// What the OpenAI endpoints share: their error form, the bearer key check and the opening of a
// request (its JSON body and the model it names).
#pragma once

#include <string>

#include <httplib.h>

#include "http_json.h"
#include "server_context.h"

namespace heed::cli::serve {

// {"error": {"message", "type", "param", "code"}} with `status`.
void send_openai_error(httplib::Response& res, int status, const std::string& message,
                       const char* type = "invalid_request_error");
// The same naming the request's parameter `param` (OpenAI's form; "code" is `code`, or null).
void send_openai_param_error(httplib::Response& res, int status, const std::string& message, const std::string& param,
                             const char* code = nullptr);
// The first OpenAI parameter of a /v1/completions body that heed does not implement, given a value
// other than its default (clients send defaults, which are fine); "" when there is none.
std::string unsupported_completion_parameter(const json& body);
// Answers 400 naming `param` as a parameter heed does not implement.
void send_unsupported_parameter(httplib::Response& res, const std::string& param);
// Whether the request carries an accepted key (always, when the server needs none).
bool authorized(const ServerContext& context, const httplib::Request& req);
// The JSON body of an authorized request naming a model of `task`; null after answering an error.
ServedModel* open_request(const ServerContext& context, Task task, const httplib::Request& req,
                          httplib::Response& res, json* body);

// POST /v1/completions (openai_completions.cpp).
void add_completion_route(httplib::Server& server, const ServerContext& context);

}  // namespace heed::cli::serve
