// `heed serve`'s HTTP server (cpp-httplib): its thread pool, limits, routes, request log and
// watchdog, until SIGTERM or SIGINT, after which it stops accepting, finishes the requests it has
// and returns.
#pragma once

#include "api_keys.h"
#include "model_set.h"
#include "serve_options.h"

namespace heed::cli::serve {

// Returns the command's exit code.
int run_server(const ServeOptions& options, const ModelSet& models, ApiKeys keys);

}  // namespace heed::cli::serve
