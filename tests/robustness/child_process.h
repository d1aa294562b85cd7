// Runs a function in a forked child so a test can change process-wide state (resource limits,
// signal dispositions) without touching the test program itself. The child's heed::Status comes
// back through a pipe.
#pragma once

#include <functional>

#include "heed/status.h"

namespace heed::test {

// Status returned by `body` in a child process; kInternal with a message when the child died.
Status run_in_child(const std::function<Status()>& body);

}  // namespace heed::test
