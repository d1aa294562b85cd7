// heed's Status as Python exceptions: ValueError for what the caller passed (arguments, options,
// a model that cannot do what was asked, input over the limits), OSError for files the operating
// system refused, RuntimeError for corrupt files and the rest; the message is heed's one line.
#pragma once

#include "heed/status.h"

namespace heed::python {

// Raises the exception for `s` when it is not ok.
void check(const Status& s);

}  // namespace heed::python
