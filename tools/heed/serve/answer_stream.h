// The httplib::Stream a request is answered through: httplib parses the request from the bytes the
// request reader already read (request_reader.h), and writes the answer to the socket, each write
// within the write timeout (a client that stops reading its answer loses the connection).
#pragma once

#include <chrono>
#include <string>

#include "heed_httplib.h"

namespace heed::cli::serve {

class AnswerStream : public httplib::Stream {
 public:
  AnswerStream(int fd, std::string request, std::chrono::milliseconds write_timeout)
      : fd_(fd), request_(std::move(request)), write_timeout_(write_timeout) {}

  bool is_readable() const override { return read_ < request_.size(); }
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }

 private:
  int fd_;
  std::string request_;
  size_t read_ = 0;
  std::chrono::milliseconds write_timeout_;
};

}  // namespace heed::cli::serve
