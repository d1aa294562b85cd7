#include "tensor_mapper.h"

namespace heed::convert {

std::string shape_string(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

TensorMapper::TensorMapper(const SafetensorsFile& file, NeutralModel* out, std::string prefix)
    : file_(file), out_(out), prefix_(std::move(prefix)) {}

bool TensorMapper::has(const std::string& name) const { return file_.find(prefix_ + name) != nullptr; }

const SafetensorsTensor* TensorMapper::find(const std::string& name) {
  const SafetensorsTensor* t = file_.find(prefix_ + name);
  if (t) used_.insert(t->name);
  return t;
}

Status TensorMapper::corrupt(const std::string& what) const { return invalid_file(file_.where() + ": " + what); }

Status TensorMapper::values(const std::string& name, const std::vector<uint64_t>& shape, std::vector<float>* out) {
  const SafetensorsTensor* t = find(name);
  if (!t) return corrupt("missing tensor '" + prefix_ + name + "'");
  if (t->shape != shape) {
    return corrupt("tensor '" + t->name + "' has shape " + shape_string(t->shape) + ", expected " + shape_string(shape));
  }
  return file_.read_f32(*t, out);
}

void TensorMapper::add(const std::string& dst, const std::vector<uint64_t>& shape, const std::vector<float>& v,
                       bool quantizable) {
  std::vector<uint32_t> s(shape.begin(), shape.end());
  out_->add_f32(dst, s, v.data()).quantizable = quantizable;
}

Status TensorMapper::take(const std::string& src, const std::string& dst, const std::vector<uint64_t>& shape,
                          bool quantizable, const std::vector<uint64_t>& dst_shape) {
  std::vector<float> v;
  HEED_RETURN_IF_ERROR(values(src, shape, &v));
  add(dst, dst_shape.empty() ? shape : dst_shape, v, quantizable);
  return Status::success();
}

Status TensorMapper::take_optional(const std::string& src, const std::string& dst, const std::vector<uint64_t>& shape) {
  if (!has(src)) return Status::success();
  return take(src, dst, shape, false);
}

Status TensorMapper::take_linear(const std::string& src, const std::string& dst, uint64_t rows, uint64_t cols) {
  HEED_RETURN_IF_ERROR(take(src + ".weight", dst + ".weight", {rows, cols}, true));
  return take(src + ".bias", dst + ".bias", {rows}, false);
}

Status TensorMapper::take_stacked(const std::vector<std::string>& srcs, const std::string& dst, uint64_t rows,
                                  uint64_t cols) {
  std::vector<float> weight, bias, v;
  for (const std::string& src : srcs) {
    HEED_RETURN_IF_ERROR(values(src + ".weight", {rows, cols}, &v));
    weight.insert(weight.end(), v.begin(), v.end());
    HEED_RETURN_IF_ERROR(values(src + ".bias", {rows}, &v));
    bias.insert(bias.end(), v.begin(), v.end());
  }
  const uint64_t n = srcs.size();
  add(dst + ".weight", {n * rows, cols}, weight, true);
  add(dst + ".bias", {n * rows}, bias, false);
  return Status::success();
}

Status TensorMapper::take_norm(const std::string& src, const std::string& dst, uint64_t d) {
  HEED_RETURN_IF_ERROR(take(src + ".weight", dst + ".gamma", {d}, false));
  return take(src + ".bias", dst + ".beta", {d}, false);
}

Status TensorMapper::check_all_used(const std::string& what,
                                    const std::function<bool(const std::string& name)>& ignored) const {
  for (const auto& t : file_.tensors()) {
    if (used_.count(t.name) || (ignored && ignored(t.name))) continue;
    return unsupported_model(file_.where() + ": tensor '" + t.name + "' is not part of " + what +
                             "; refusing to drop it");
  }
  return Status::success();
}

}  // namespace heed::convert
