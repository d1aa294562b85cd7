// LibreTranslate's API over the translation models: POST /translate, GET /languages, POST /detect
// (501: heed does not detect languages). Bodies as JSON or form fields, errors as
// {"error": "..."} with LibreTranslate's statuses (docs/serve.md lists them).
#pragma once

#include <httplib.h>

#include "server_context.h"

namespace heed::cli::serve {

void add_libretranslate_routes(httplib::Server& server, const ServerContext& context);

}  // namespace heed::cli::serve
