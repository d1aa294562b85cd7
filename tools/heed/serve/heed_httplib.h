// cpp-httplib as `heed serve` uses it. Debian's libcpp-httplib is a compiled library, so its limits
// (CPPHTTPLIB_HEADER_MAX_LENGTH, the listen backlog, SO_REUSEPORT...) are fixed in it and macros set
// here would change nothing: heed reads requests itself (request_reader.h) and listens itself
// (listener.h), and uses httplib to parse a complete request, route it and write the answer
// (GuardedServer). Its protected process_request is the one entry point that allows that.
#pragma once

#include <httplib.h>

namespace heed::cli::serve {

class GuardedServer : public httplib::Server {
 public:
  // httplib ends streamed answers once its own listening socket is gone (it takes that as shutting
  // down); heed's socket stands in for it, and stays set until every answer has been written.
  void set_listening_socket(int fd) { svr_sock_ = fd; }

  // Answers one request, already read whole, through `stream`. Returns whether the connection may
  // carry another request.
  bool answer(httplib::Stream& stream, bool close_connection) {
    bool closed = false;
    const bool ok = process_request(stream, close_connection, closed, nullptr);
    return ok && !closed && !close_connection;
  }
};

}  // namespace heed::cli::serve
