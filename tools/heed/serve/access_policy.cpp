#include "access_policy.h"

#include <algorithm>
#include <cctype>

#include "http_json.h"
#include "listener.h"
#include "openai_common.h"

namespace heed::cli::serve {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool is_v1(const httplib::Request& req) { return req.path.rfind("/v1/", 0) == 0; }

bool is_libretranslate(const httplib::Request& req) {
  return req.path == "/translate" || req.path == "/languages" || req.path == "/detect";
}

const std::string& origin_for(const AccessPolicy& policy, const httplib::Request& req) {
  static const std::string none;
  return is_v1(req) ? policy.v1_origin : is_libretranslate(req) ? policy.libretranslate_origin : none;
}

void refuse(const httplib::Request& req, httplib::Response& res, int status, const std::string& message) {
  if (is_v1(req)) return send_openai_error(res, status, message);
  send_error(res, status, message);
}

bool json_content(const httplib::Request& req) {
  const std::string type = lower(req.get_header_value("Content-Type"));
  return type.rfind("application/json", 0) == 0 &&
         (type.size() == 16 || type[16] == ';' || type[16] == ' ');
}

}  // namespace

std::string host_name(const std::string& header) {
  std::string host = lower(header);
  const size_t colon = host.rfind(':');
  const size_t bracket = host.rfind(']');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) host.erase(colon);
  return host;
}

AccessPolicy make_access_policy(const ServeOptions& options) {
  AccessPolicy p;
  p.check_host = is_local_address(options.host) || !options.allowed_hosts.empty();
  const std::string bound = lower(options.host);
  p.hosts = {"localhost", bound.find(':') != std::string::npos ? "[" + bound + "]" : bound};
  if (is_local_address(options.host)) p.hosts.insert(p.hosts.end(), {"127.0.0.1", "[::1]"});
  for (const std::string& h : options.allowed_hosts) p.hosts.push_back(lower(h));
  p.libretranslate_origin = options.cors_origin;
  p.v1_origin = options.v1_cors_origin;
  return p;
}

httplib::Server::HandlerResponse check_access(const AccessPolicy& policy, const httplib::Request& req,
                                              httplib::Response& res) {
  using R = httplib::Server::HandlerResponse;
  if (policy.check_host) {
    const std::string host = host_name(req.get_header_value("Host"));
    if (std::find(policy.hosts.begin(), policy.hosts.end(), host) == policy.hosts.end()) {
      refuse(req, res, 403, "Host '" + host + "' is not served here (heed serve --allowed-host NAME adds a name)");
      return R::Handled;
    }
  }
  // Set now, before any handler runs, so every answer of the route carries it, errors too.
  add_cors_headers(policy, req, res);
  if (req.method == "OPTIONS" && !origin_for(policy, req).empty()) {
    res.status = 204;
    res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    res.set_header("Access-Control-Allow-Headers", "Content-Type, Authorization");
    res.set_header("Access-Control-Max-Age", "600");
    return R::Handled;
  }
  if (req.method == "POST" && is_v1(req) && !json_content(req)) {
    refuse(req, res, 415, "The body must be JSON (Content-Type: application/json)");
    return R::Handled;
  }
  return R::Unhandled;
}

void add_cors_headers(const AccessPolicy& policy, const httplib::Request& req, httplib::Response& res) {
  const std::string& origin = origin_for(policy, req);
  if (origin.empty()) return;
  res.set_header("Access-Control-Allow-Origin", origin);
  if (origin != "*") res.set_header("Vary", "Origin");
}

}  // namespace heed::cli::serve
