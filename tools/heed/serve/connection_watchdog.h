// Bounds the time a client may take to send a request, headers and body together. httplib's read
// timeout restarts with every byte, so a client sending one byte a second would hold a connection
// thread forever; the watchdog looks at the server's connections a few times a second and shuts
// down the socket of one that has been sending its request for longer than the limit. It tells the
// phases apart by what httplib tells the handlers: a request is being answered from the moment its
// handler runs until its log line (then the connection reads its next request, keep-alive).
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace heed::cli::serve {

class ConnectionWatchdog {
 public:
  ConnectionWatchdog(int port, std::chrono::milliseconds limit);
  ~ConnectionWatchdog();

  // The connection from this peer is being answered / reads its next request from now.
  void answering(const std::string& address, int port);
  void reading(const std::string& address, int port);

 private:
  struct Connection {
    std::chrono::steady_clock::time_point since;
    bool answering = false;
    bool seen = true;
  };
  void run();
  void scan();

  int port_;
  std::chrono::milliseconds limit_;
  std::map<std::string, Connection> connections_;  // by "address port" of the peer
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace heed::cli::serve
