// What every endpoint of `heed serve` reads: the settings, the models and the API keys, and the
// one way a handler borrows a session (queue full: 429; no session before the deadline: 503).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "api_keys.h"
#include "model_set.h"
#include "serve_options.h"
#include "session_pool.h"

namespace heed::cli::serve {

struct ServerContext {
  const ServeOptions& options;
  const ModelSet& models;
  ApiKeys keys;

  Clock::time_point deadline() const { return Clock::now() + std::chrono::milliseconds(options.timeout_ms); }
};

// Borrows a session of `pool` for a request that arrived now. Returns 0, or the HTTP status to
// answer with and *message.
template <typename Session>
int borrow(SessionPool<Session>& pool, const ServerContext& context,
           std::unique_ptr<typename SessionPool<Session>::Lease>* lease, std::string* message) {
  switch (pool.borrow(context.deadline(), lease)) {
    case Borrow::kOk:
      return 0;
    case Borrow::kQueueFull:
      *message = "Too many requests: " + std::to_string(context.options.max_queue) + " are already waiting";
      return 429;
    case Borrow::kTimedOut:
      break;
  }
  *message = "Timed out after " + std::to_string(context.options.timeout_ms) + " ms waiting for a free session";
  return 503;
}

}  // namespace heed::cli::serve
