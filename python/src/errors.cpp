#include "errors.h"

#include <nanobind/nanobind.h>

namespace heed::python {

void check(const Status& s) {
  if (s.ok()) return;
  PyObject* type = PyExc_RuntimeError;  // corrupt or unsupported files, memory, the rest
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kUnsupportedModel:
    case StatusCode::kLimitExceeded:
      type = PyExc_ValueError;
      break;
    case StatusCode::kIoError:
      type = PyExc_OSError;
      break;
    default:
      break;
  }
  PyErr_SetString(type, s.message().c_str());
  throw nanobind::python_error();
}

}  // namespace heed::python
