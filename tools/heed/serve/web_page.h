// heed serve's page at / (tools/heed/serve/web/index.html, built into the binary): a translation
// page for a person with a browser, on the server's own /languages and /translate.
#pragma once

#include <httplib.h>

namespace heed::cli::serve {

void add_web_page_route(httplib::Server& server);

}  // namespace heed::cli::serve
