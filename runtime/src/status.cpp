// Names of status codes, for logs and the command line ("invalid_file: model.heed: ...").
#include "heed/status.h"

namespace heed {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid_argument";
    case StatusCode::kIoError: return "io_error";
    case StatusCode::kInvalidFile: return "invalid_file";
    case StatusCode::kUnsupportedVersion: return "unsupported_version";
    case StatusCode::kUnsupportedModel: return "unsupported_model";
    case StatusCode::kLimitExceeded: return "limit_exceeded";
    case StatusCode::kOutOfMemory: return "out_of_memory";
    case StatusCode::kInternal: return "internal";
  }
  return "unknown";
}

}  // namespace heed
