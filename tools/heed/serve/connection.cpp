#include "connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include "answer_stream.h"
#include "http_json.h"
#include "request_log.h"

namespace heed::cli::serve {

namespace {

constexpr size_t kMaxRequestsPerConnection = 1000;

const char* reason_phrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 417: return "Expectation Failed";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
  }
}

// Closing with unread bytes would reset the connection, and the client, still sending the body we
// refused, could lose the answer: read and drop what it still sends, for a short bounded while.
void linger_briefly(int fd) {
  shutdown(fd, SHUT_WR);
  const auto deadline = SteadyClock::now() + std::chrono::seconds(1);
  std::string scratch;
  for (size_t dropped = 0; dropped < (size_t{16} << 20); dropped += scratch.size()) {
    scratch.clear();
    if (receive_some(fd, &scratch, 65536, deadline) != Io::kOk) break;
  }
}

}  // namespace

// A request refused before httplib saw it: answered (best effort, briefly) and logged.
void refuse_connection(int fd, const RequestHead& head, const Refusal& refusal, bool linger) {
  const std::string body = dump(json{{"error", refusal.message}});
  const std::string answer = "HTTP/1.1 " + std::to_string(refusal.status) + " " + reason_phrase(refusal.status) +
                             "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                             "\r\nConnection: close\r\n\r\n" + body;
  send_all(fd, answer.data(), answer.size(), SteadyClock::now() + std::chrono::milliseconds(500));
  if (linger) linger_briefly(fd);
  const std::string endpoint = head.method.empty() ? "" : head.method + " " + head.target.substr(0, 200);
  write_log(dump(json{{"event", "refused"}, {"endpoint", endpoint}, {"status", refusal.status},
                      {"reason", refusal.message}}));
}

void serve_connection(int fd, GuardedServer& server, ConnectionTable& table, const RequestLimits& limits) {
  RequestReader reader(fd, limits);
  for (size_t served = 0; served < kMaxRequestsPerConnection; ++served) {
    if (!table.enter(fd, Phase::kIdle) || !reader.wait_for_request() || !table.enter(fd, Phase::kReading)) break;
    ReadOutcome request = reader.read();
    if (request.kind == ReadOutcome::kRefused) refuse_connection(fd, request.head, request.refusal);
    if (request.kind != ReadOutcome::kRequest || !table.enter(fd, Phase::kAnswering)) break;
    begin_request();  // a fresh log record: nothing of the previous request's carries over
    AnswerStream stream(fd, std::move(request.bytes), limits.read_timeout);
    const bool last = table.stopping() || served + 1 == kMaxRequestsPerConnection;
    if (!server.answer(stream, last)) break;
  }
  table.remove(fd);
  shutdown(fd, SHUT_RDWR);
  close(fd);
}

}  // namespace heed::cli::serve
