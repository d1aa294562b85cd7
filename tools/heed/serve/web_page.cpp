#include "web_page.h"

#include "serve_page.h"

namespace heed::cli::serve {

void add_web_page_route(httplib::Server& server) {
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    // The page is static and self-contained: it may only talk to this server, and no other site
    // may frame it (the inline script and style are the page's own text, nothing from a request).
    res.set_header("Content-Security-Policy",
                   "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                   "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Cache-Control", "no-cache");
    res.set_content(kServePage, sizeof(kServePage) - 1, "text/html; charset=utf-8");
  });
}

}  // namespace heed::cli::serve
