#include "server.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <memory>
#include <thread>

#include <httplib.h>

#include "command.h"
#include "connection_watchdog.h"
#include "http_json.h"
#include "libretranslate.h"
#include "openai_api.h"
#include "request_log.h"

namespace heed::cli::serve {

namespace {

json health(const ModelSet& models) {
  json list = json::array();
  for (const auto& m : models.models()) list.push_back({{"id", m->id}, {"task", task_name(m->task)}});
  return {{"status", "ok"}, {"models", list}};
}

// Limits, timeouts and the threads that read requests: enough for every session's request and
// every waiting one, and a few for /health while all of them are busy.
void configure(httplib::Server& server, const ServeOptions& options, size_t sessions) {
  const size_t threads = sessions + options.max_queue * options.model_paths.size() + 4;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_payload_max_length(options.max_request_bytes);
  const auto read_timeout = std::chrono::milliseconds(options.read_timeout_ms);
  server.set_read_timeout(read_timeout);
  server.set_write_timeout(read_timeout);
  server.set_keep_alive_timeout(std::max<time_t>(1, options.read_timeout_ms / 1000));
  // Statuses httplib answers itself (404, 413, a malformed request) get the same error body.
  server.set_error_handler(httplib::Server::Handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* reason = res.status == 413 ? "Request body too large" : res.status == 404 ? "Not found" : "Bad request";
    send_error(res, res.status, reason);
  }));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send_error(res, 500, "Internal error");
  });
}

// SIGTERM and SIGINT are taken by one thread (blocked everywhere else), which stops the server.
void stop_on_signal(httplib::Server& server) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  std::thread([set, &server] {
    int signal = 0;
    sigwait(&set, &signal);
    write_log(dump(json{{"event", "stopping"}, {"signal", signal}}));
    server.stop();
  }).detach();
}

}  // namespace

int run_server(const ServeOptions& options, const ModelSet& models, ApiKeys keys) {
  // Before any thread starts, so every thread inherits the mask and only sigwait sees the signals.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client gone mid-answer is a failed write, not the end of the server

  const ServerContext context{options, models, std::move(keys)};
  httplib::Server server;
  configure(server, options, options.sessions * models.models().size());
  std::unique_ptr<ConnectionWatchdog> watchdog;
  server.set_pre_routing_handler([&watchdog](const httplib::Request& req, httplib::Response&) {
    begin_request();
    watchdog->answering(req.remote_addr, req.remote_port);
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server.set_logger([&watchdog](const httplib::Request& req, const httplib::Response& res) {
    write_log(log_line(req, res));
    watchdog->reading(req.remote_addr, req.remote_port);
  });
  server.Get("/health", [&models](const httplib::Request&, httplib::Response& res) { send_json(res, health(models)); });
  add_libretranslate_routes(server, context);
  add_openai_routes(server, context);

  const int port = options.port == 0 ? server.bind_to_any_port(options.host)
                                     : server.bind_to_port(options.host, options.port) ? options.port : -1;
  if (port <= 0) {
    std::fprintf(stderr, "heed serve: cannot listen on %s port %d\n", options.host.c_str(), options.port);
    return kExitError;
  }
  watchdog = std::make_unique<ConnectionWatchdog>(port, std::chrono::milliseconds(options.read_timeout_ms));
  stop_on_signal(server);
  write_log(dump(json{{"event", "listening"}, {"host", options.host}, {"port", port}}));
  const bool ok = server.listen_after_bind();
  return ok ? kExitOk : kExitError;
}

}  // namespace heed::cli::serve
