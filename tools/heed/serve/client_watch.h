// Notices a client that went away while its request is being answered, so that the decoding it
// asked for stops (DecodeOptions::cancel) and its session goes back to the pool within one
// decoder step, instead of translating for nobody until --timeout-ms. httplib 0.11 tells handlers
// neither the socket nor whether it closed: the socket is found among the process's files by the
// request's peer and local port, and a thread waits (poll, no busy loop) for the peer's end of it.
#pragma once

#include <atomic>
#include <thread>

#include <httplib.h>

namespace heed::cli::serve {

class ClientWatch {
 public:
  explicit ClientWatch(const httplib::Request& req);
  ~ClientWatch();
  ClientWatch(const ClientWatch&) = delete;
  ClientWatch& operator=(const ClientWatch&) = delete;

  // True once the client closed its connection (or it failed); the decoding engine reads it.
  const std::atomic<bool>* gone() const { return &gone_; }

 private:
  void run(int socket);

  std::atomic<bool> gone_{false};
  int wake_ = -1;  // eventfd: the destructor ends the wait at once
  std::thread thread_;
};

}  // namespace heed::cli::serve
