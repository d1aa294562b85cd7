#include "layers/weights.h"

#include <cstring>

#include "heed/kernels.h"
#include "heed_format/quantization.h"

namespace heed::layers {

std::string shape_string(const std::vector<uint32_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Status require_shape(const Model& model, const std::string& name, const std::vector<uint32_t>& shape,
                     const TensorView** out) {
  HEED_RETURN_IF_ERROR(require_tensor(model, name, out));
  if ((*out)->shape != shape) {
    return invalid_file("tensor '" + name + "' has shape " + shape_string((*out)->shape) +
                        ", expected " + shape_string(shape));
  }
  return Status::success();
}

Status F32Vector::load(const Model& model, const std::string& name, size_t size, bool optional) {
  mapped_ = nullptr;
  owned_.clear();
  const TensorView* t = find_tensor(model, name);
  if (t == nullptr) {
    if (optional) return Status::success();
    return require_tensor(model, name, &t);  // the loader's own "missing tensor" message
  }
  if (t->layout != fb::Layout::RowMajor) {
    return invalid_file("tensor '" + name + "' is a parameter vector but has a packed layout (it must be row-major)");
  }
  if (t->num_elements() != size) {
    return invalid_file("tensor '" + std::string(name) + "' has shape " + shape_string(t->shape) +
                        ", expected " + std::to_string(size) + " values");
  }
  switch (t->dtype) {
    case fb::DType::F32:
      mapped_ = t->as<float>();
      return Status::success();
    case fb::DType::F16: {
      owned_.resize(size);
      const uint16_t* h = t->as<uint16_t>();
      kernels::best().f16_to_f32(h, owned_.data(), size);  // exact in every variant
      return Status::success();
    }
    case fb::DType::I8: {
      if (t->scales == nullptr || t->num_scales == 0) {
        return invalid_file("tensor '" + name + "' is int8 without scales");
      }
      owned_.resize(size);
      const int8_t* q = t->as<int8_t>();
      const size_t row_size = t->row_size() == 0 ? 1 : t->row_size();
      const size_t groups = format::groups_per_row(t->quantization, row_size, t->group_size);
      for (size_t i = 0; i < size; ++i) {
        const size_t s = format::scale_index(t->quantization, i / row_size, i % row_size, groups, t->group_size);
        if (s >= t->num_scales) return invalid_file("tensor '" + name + "' has too few scales");
        owned_[i] = static_cast<float>(q[i]) * t->scales[s];
      }
      return Status::success();
    }
    default:
      return invalid_file("tensor '" + name + "' has dtype " + dtype_name(t->dtype) +
                          ", expected f32, f16 or i8");
  }
}

}  // namespace heed::layers
