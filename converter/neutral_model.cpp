// NeutralModel helpers: lookup by name and building f32 tensors from values.
#include "neutral_model.h"


#include <cstring>

namespace heed::convert {

size_t NeutralTensor::num_elements() const {
  size_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

NeutralTensor* NeutralModel::find(const std::string& name) {
  for (auto& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const NeutralTensor* NeutralModel::find(const std::string& name) const {
  for (const auto& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

bool NeutralModel::remove(const std::string& name) {
  const NeutralTensor* t = find(name);
  if (t == nullptr) return false;
  const std::string scales = t->scales;
  tensors.erase(tensors.begin() + (t - tensors.data()));
  if (!scales.empty()) remove(scales);
  return true;
}

NeutralTensor& NeutralModel::add_f32(std::string name, std::vector<uint32_t> shape, const float* values) {
  NeutralTensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.dtype = fb::DType::F32;
  t.bytes.resize(t.num_elements() * sizeof(float));
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), values, t.bytes.size());
  tensors.push_back(std::move(t));
  return tensors.back();
}

void NeutralModel::set_producer(const char* format, const std::string& source_name) {
  producer.name = "heed convert";
  producer.version = HEED_VERSION;
  producer.source_format = format;
  producer.source_name = source_name;
  metadata.emplace_back("source_format", format);
}

}  // namespace heed::convert
