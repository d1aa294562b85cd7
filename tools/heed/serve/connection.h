// One connection of `heed serve`, on its own thread from accept to close: wait for a request
// (keep-alive), read it whole within the limits (request_reader.h), answer it through httplib
// (heed_httplib.h), and again, until the client closes, a limit is broken, the connection is
// displaced (connection_table.h) or the server stops.
#pragma once

#include "connection_table.h"
#include "heed_httplib.h"
#include "request_reader.h"

namespace heed::cli::serve {

// Answers `refusal` on `fd` (a short JSON error and Connection: close) and logs it; with `linger`,
// then reads and drops what the client still sends for up to a second, so it gets the answer.
void refuse_connection(int fd, const RequestHead& head, const Refusal& refusal, bool linger = true);

void serve_connection(int fd, GuardedServer& server, ConnectionTable& table, const RequestLimits& limits);

}  // namespace heed::cli::serve
