// Element types and the size arithmetic of TensorView.
#include "heed/model.h"
#include "loader/model_index.h"

namespace heed {

const char* dtype_name(fb::DType dtype) {
  const char* name = fb::EnumNameDType(dtype);
  return *name ? name : "unknown";
}

size_t dtype_size(fb::DType dtype) {
  switch (dtype) {
    case fb::DType::F32: return 4;
    case fb::DType::F16: return 2;
    case fb::DType::I8: return 1;
    case fb::DType::I32: return 4;
  }
  return 1;  // unknown values are rejected by the loader before any size is used
}

size_t TensorView::row_size() const {
  size_t n = 1;
  for (size_t i = 1; i < shape.size(); ++i) n *= shape[i];
  return n;
}

size_t TensorView::num_elements() const {
  size_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

}  // namespace heed
