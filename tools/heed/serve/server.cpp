#include "server.h"

#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "access_policy.h"
#include "command.h"
#include "connection.h"
#include "heed_httplib.h"
#include "http_json.h"
#include "libretranslate.h"
#include "listener.h"
#include "openai_api.h"
#include "request_log.h"
#include "web_page.h"

namespace heed::cli::serve {

namespace {

json health(const ModelSet& models) {
  json list = json::array();
  for (const auto& m : models.models()) list.push_back({{"id", m->id}, {"task", task_name(m->task)}});
  return {{"status", "ok"}, {"models", list}};
}

RequestLimits request_limits(const ServeOptions& options) {
  RequestLimits limits;
  limits.max_header_bytes = options.max_header_bytes;
  limits.max_header_fields = options.max_header_fields;
  limits.max_body_bytes = options.max_request_bytes;
  limits.read_timeout = std::chrono::milliseconds(options.read_timeout_ms);
  limits.keep_alive = std::chrono::milliseconds(options.keep_alive_ms);
  return limits;
}

// httplib's part: routing, answers and the statuses it gives itself. Reading requests, limits and
// timeouts are heed's (connection.h), so only the settings that shape answers matter here.
void configure(GuardedServer& server, const ServeOptions& options, const AccessPolicy& policy) {
  server.set_payload_max_length(options.max_request_bytes);
  server.set_keep_alive_timeout(std::max<time_t>(1, options.keep_alive_ms / 1000));  // its Keep-Alive header
  server.set_keep_alive_max_count(1000);
  server.set_error_handler(httplib::Server::Handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* reason = res.status == 413 ? "Request body too large" : res.status == 404 ? "Not found" : "Bad request";
    send_error(res, res.status, reason);
  }));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send_error(res, 500, "Internal error");
  });
  server.set_pre_routing_handler([&policy](const httplib::Request& req, httplib::Response& res) {
    return check_access(policy, req, res);
  });
  server.set_logger([](const httplib::Request& req, const httplib::Response& res) { write_log(log_line(req, res)); });
}

// SIGTERM and SIGINT are taken by one thread (blocked everywhere else), which sets `stop`.
void stop_on_signal(std::atomic<bool>& stop) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  std::thread([set, &stop] {
    int signal = 0;
    sigwait(&set, &signal);
    write_log(dump(json{{"event", "stopping"}, {"signal", signal}}));
    stop = true;
  }).detach();
}

// Accepts connections until `stop`, each on a thread of `pool` (one per connection the table
// holds, so a slow client holds its own thread only); then stops the table and waits for it.
void accept_loop(int listener, GuardedServer& server, const RequestLimits& limits, ConnectionTable& table,
                 httplib::ThreadPool& pool, const std::atomic<bool>& stop) {
  while (!stop) {
    pollfd p{listener, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;  // the client left, or out of descriptors: the next round tries again
    if (!table.add(fd)) {
      refuse_connection(fd, RequestHead{}, Refusal{503, "Too many connections"}, false);  // no wait here
      close(fd);
      continue;
    }
    pool.enqueue([fd, &server, &table, &limits] { serve_connection(fd, server, table, limits); });
  }
  close(listener);
  table.stop();
  table.wait_empty();
  pool.shutdown();
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
  // Request buffers (up to --max-request-bytes each) are allocated on many connection threads; with
  // glibc's adaptive threshold they end up in per-thread arenas that keep them resident after use.
  // A fixed threshold maps each large buffer separately and returns it when freed. (The compute path
  // allocates nothing once the sessions exist, so this changes nothing there.)
#ifdef M_MMAP_THRESHOLD  // glibc
  mallopt(M_MMAP_THRESHOLD, 256 << 10);
#endif

  int port = 0;
  std::string error;
  const int listener = open_listener(options.host, options.port, &port, &error);
  if (listener < 0) {
    std::fprintf(stderr, "heed serve: %s\n", error.c_str());
    return kExitError;
  }
  const ServerContext context{options, models, std::move(keys)};
  const AccessPolicy policy = make_access_policy(options);
  GuardedServer server;
  server.set_listening_socket(listener);
  configure(server, options, policy);
  server.Get("/health", [&models](const httplib::Request&, httplib::Response& res) { send_json(res, health(models)); });
  add_libretranslate_routes(server, context);
  add_openai_routes(server, context);
  if (options.web_page) add_web_page_route(server);

  const RequestLimits limits = request_limits(options);
  ConnectionTable table(options.max_connections);
  httplib::ThreadPool pool(options.max_connections + 1);
  std::atomic<bool> stop{false};
  stop_on_signal(stop);
  write_log(dump(json{{"event", "listening"}, {"host", options.host}, {"port", port}}));
  accept_loop(listener, server, limits, table, pool, stop);
  return kExitOk;
}

}  // namespace heed::cli::serve
