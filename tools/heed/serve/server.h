// `heed serve`'s HTTP server: its listening socket, a thread per connection reading requests
// within the limits, and cpp-httplib's routes and answers, until SIGTERM or SIGINT, after which it
// stops accepting, closes idle and half-read connections, finishes the requests it has and returns.
#pragma once

#include "api_keys.h"
#include "model_set.h"
#include "serve_options.h"

namespace heed::cli::serve {

// Returns the command's exit code.
int run_server(const ServeOptions& options, const ModelSet& models, ApiKeys keys);

}  // namespace heed::cli::serve
