// `heed serve`'s listening socket, opened by heed rather than by httplib: httplib sets SO_REUSEPORT,
// which lets a second server bind the same port and take half of the connections without an error,
// and listens with a backlog of 5, which drops connections under a burst. Here SO_REUSEPORT is off
// (SO_REUSEADDR stays: it only allows a restart while old connections are in TIME_WAIT), the
// backlog is kListenBacklog, and a port in use is an error that names it.
#pragma once

#include <string>

namespace heed::cli::serve {

constexpr int kListenBacklog = 1024;

// A listening socket on host:port (port 0: a free one, stored in *bound_port); -1 and *error.
int open_listener(const std::string& host, int port, int* bound_port, std::string* error);

// Whether `host` names a loopback or link-local address (127.0.0.0/8, ::1, 169.254.0.0/16,
// fe80::/10, "localhost"): only this machine (or link) can reach it, so a browser page that
// rebinds its DNS name to it is the remaining way in, which the Host check closes.
bool is_local_address(const std::string& host);

}  // namespace heed::cli::serve
