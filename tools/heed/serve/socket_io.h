// Reading and writing a connection's socket against a deadline, without blocking past it: the
// request reader and the answer stream of `heed serve` (request_reader.*, answer_stream.*) wait in
// poll(), so a client that sends or reads one byte a second cannot hold a thread beyond the limit.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace heed::cli::serve {

using SteadyClock = std::chrono::steady_clock;

enum class Io { kOk, kClosed, kTimedOut };

// Waits until `fd` has bytes (or its end) before `deadline`; appends what is there, at most `max`.
// kClosed: the peer closed or reset the connection (or it was shut down).
Io receive_some(int fd, std::string* out, size_t max, SteadyClock::time_point deadline);
// Sends all of `data` before `deadline`.
bool send_all(int fd, const char* data, size_t size, SteadyClock::time_point deadline);
// Whether the peer's bytes (or its end) arrive before `deadline`, without reading them.
bool wait_readable(int fd, SteadyClock::time_point deadline);

}  // namespace heed::cli::serve
