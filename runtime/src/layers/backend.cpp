#include "layers/backend.h"

#include <cstring>

namespace heed {

const char* backend_name(Backend backend) {
  switch (backend) {
    case Backend::kHeed:
      return "heed";
    case Backend::kXnnpack:
      return "xnnpack";
    default:
      return "auto";
  }
}

bool parse_backend(const char* name, Backend* out) {
  if (name == nullptr) return false;
  for (Backend b : {Backend::kAuto, Backend::kHeed, Backend::kXnnpack}) {
    if (std::strcmp(name, backend_name(b)) == 0) {
      *out = b;
      return true;
    }
  }
  return false;
}

bool built_with_xnnpack() {
#ifdef HEED_WITH_XNNPACK
  return true;
#else
  return false;
#endif
}

namespace layers {

Status xnnpack_min_rows(Backend backend, size_t* out) {
  *out = 0;
  switch (backend) {
    case Backend::kHeed:
      return Status::success();
    case Backend::kAuto:
      if (XnnpackGemm::available()) *out = kXnnpackMinRowsAuto;
      return Status::success();
    case Backend::kXnnpack:
      if (!built_with_xnnpack()) {
        return invalid_argument("backend 'xnnpack' is not available: heed was built without XNNPACK (HEED_WITH_XNNPACK=OFF)");
      }
      if (!XnnpackGemm::available()) return invalid_argument("backend 'xnnpack' is not available: XNNPACK does not support this CPU");
      *out = 1;
      return Status::success();
  }
  return invalid_argument("unknown backend " + std::to_string(static_cast<int>(backend)));
}

Status use_xnnpack(size_t min_rows, std::initializer_list<Linear*> layers) {
  if (min_rows == 0) return Status::success();
  for (Linear* l : layers) HEED_RETURN_IF_ERROR(l->use_xnnpack(min_rows));
  return Status::success();
}

}  // namespace layers
}  // namespace heed
