// OpenAI's API over the other families: GET /v1/models, POST /v1/embeddings (encoder-only models)
// and POST /v1/completions (decoder-only models; `stream: true` answers with server-sent events).
// Errors as OpenAI gives them: {"error": {"message", "type", "code"}}; a key, when the server
// needs one, comes as "Authorization: Bearer KEY" (401 otherwise).
#pragma once

#include <httplib.h>

#include "server_context.h"

namespace heed::cli::serve {

void add_openai_routes(httplib::Server& server, const ServerContext& context);

}  // namespace heed::cli::serve
