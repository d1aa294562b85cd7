// Who may talk to `heed serve` from a browser, checked before routing:
// - Host: a server bound to a loopback or link-local address answers only requests whose Host is
//   that address, localhost or an --allowed-host name, else 403. A web page whose DNS name an
//   attacker rebinds to 127.0.0.1 sends its own name as Host, so it cannot use a local server
//   (DNS rebinding). With --allowed-host the check applies on any address.
// - CORS as LibreTranslate has it: its routes (/translate, /languages, /detect) carry
//   Access-Control-Allow-Origin (--cors-origin, default *) on every answer and answer preflight
//   OPTIONS requests; /v1 carries none unless --v1-cors-origin asks for it.
// - Content types: /v1's POSTs must be application/json (415 otherwise). Form and text/plain
//   bodies are what a page can send cross-origin without a preflight, so refusing them keeps a page
//   from making a browser post to /v1 at all. LibreTranslate's routes accept forms, as it does.
#pragma once

#include <string>
#include <vector>

#include "heed_httplib.h"
#include "serve_options.h"

namespace heed::cli::serve {

struct AccessPolicy {
  bool check_host = false;
  std::vector<std::string> hosts;  // accepted Host names (without port), lower case
  std::string libretranslate_origin;  // empty: no CORS headers
  std::string v1_origin;
};

// From --host (the address listened on), --allowed-host, --cors-origin and --v1-cors-origin.
AccessPolicy make_access_policy(const ServeOptions& options);

// The pre-routing check: answers (and returns Handled) a request the policy refuses or a preflight;
// otherwise adds the CORS header the route carries.
httplib::Server::HandlerResponse check_access(const AccessPolicy& policy, const httplib::Request& req,
                                              httplib::Response& res);
// Adds the CORS header the request's route carries.
void add_cors_headers(const AccessPolicy& policy, const httplib::Request& req, httplib::Response& res);

// The Host header's name without its port, lower case ("[::1]:5000" -> "[::1]").
std::string host_name(const std::string& header);

}  // namespace heed::cli::serve
