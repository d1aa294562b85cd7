#include "safetensors.h"

#include "source_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "heed/kernels.h"  // f16_to_f32_value
#include "quantize.h"  // bf16_to_f32
#include "loader/model_index.h"

namespace heed::convert {
namespace {

// The format caps the header at 100 MB; a bigger length is a corrupt (or hostile) file.
constexpr uint64_t kMaxHeaderSize = 100ull * 1000 * 1000;

Status read_whole_file(const std::string& path, std::vector<uint8_t>* out) {
  return read_bytes(path, out, kMaxWeightFileBytes);
}

bool to_u64(const nlohmann::json& value, uint64_t* out) {
  if (!value.is_number_unsigned()) return false;
  *out = value.get<uint64_t>();
  return true;
}

}  // namespace

size_t safetensors_dtype_size(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL" || dtype == "F8_E4M3" || dtype == "F8_E5M2") return 1;
  return 0;
}

uint64_t SafetensorsTensor::num_elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;  // checked for overflow when the file was parsed
  return n;
}

Status SafetensorsFile::read(const std::string& path, SafetensorsFile* out) {
  std::vector<uint8_t> bytes;
  HEED_RETURN_IF_ERROR(read_whole_file(path, &bytes));
  return parse(std::move(bytes), path, out);
}

namespace {

// One tensor's header entry {"dtype", "shape", "data_offsets"}, checked against the dtype's size
// and the `data_size` bytes after the header.
Status parse_tensor_entry(const std::string& where, const std::string& name, const nlohmann::json& entry,
                          uint64_t data_size, SafetensorsTensor* out) {
  auto bad = [&](const std::string& what) { return invalid_file(where + ": tensor '" + name + "': " + what); };
  if (!entry.is_object()) return bad("not a JSON object");
  const auto dtype = entry.find("dtype");
  const auto shape = entry.find("shape");
  const auto offsets = entry.find("data_offsets");
  if (dtype == entry.end() || !dtype->is_string()) return bad("no dtype string");
  if (shape == entry.end() || !shape->is_array()) return bad("no shape array");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2) return bad("no data_offsets [begin, end]");

  SafetensorsTensor& t = *out;
  t.name = name;
  t.dtype = dtype->get<std::string>();
  const size_t element_size = safetensors_dtype_size(t.dtype);
  if (element_size == 0) return bad("unknown dtype '" + t.dtype + "'");
  uint64_t elements = 1;
  for (const auto& d : *shape) {
    uint64_t dim = 0;
    if (!to_u64(d, &dim)) return bad("shape entries must be non-negative integers");
    if (dim != 0 && elements > std::numeric_limits<uint64_t>::max() / dim / element_size) return bad("shape overflows");
    elements *= dim;
    t.shape.push_back(dim);
  }
  if (!to_u64((*offsets)[0], &t.begin) || !to_u64((*offsets)[1], &t.end)) {
    return bad("data_offsets must be non-negative integers");
  }
  if (t.begin > t.end || t.end > data_size) {
    return bad("data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "] outside the " +
               std::to_string(data_size) + " data bytes (truncated file?)");
  }
  if (t.end - t.begin != elements * element_size) {
    return bad(std::to_string(t.end - t.begin) + " bytes for " + std::to_string(elements) + " " + t.dtype + " values");
  }
  return Status::success();
}

}  // namespace

Status SafetensorsFile::parse(std::vector<uint8_t> bytes, const std::string& where, SafetensorsFile* out) {
  auto corrupt = [&](const std::string& what) { return invalid_file(where + ": " + what); };
  if (bytes.size() < 8) return corrupt("too short for a safetensors file (" + std::to_string(bytes.size()) + " bytes)");
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | bytes[static_cast<size_t>(i)];
  if (header_size > kMaxHeaderSize || header_size > bytes.size() - 8) {
    return corrupt("header length " + std::to_string(header_size) + " exceeds the file (" +
                   std::to_string(bytes.size()) + " bytes): not a safetensors file or truncated");
  }
  const char* text = reinterpret_cast<const char*>(bytes.data() + 8);
  const nlohmann::json header = nlohmann::json::parse(text, text + header_size, nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) return corrupt("the header is not a JSON object");

  SafetensorsFile file;
  file.where_ = where;
  file.data_start_ = 8 + header_size;
  const uint64_t data_size = bytes.size() - file.data_start_;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& entry = it.value();
    if (name == "__metadata__") {
      if (!entry.is_object()) return corrupt("'__metadata__' is not a JSON object");
      for (auto m = entry.begin(); m != entry.end(); ++m) {
        if (!m.value().is_string()) return corrupt("metadata '" + m.key() + "' is not a string");
        file.metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    SafetensorsTensor t;
    HEED_RETURN_IF_ERROR(parse_tensor_entry(where, name, entry, data_size, &t));
    file.by_name_[name] = file.tensors_.size();
    file.tensors_.push_back(std::move(t));
  }
  file.bytes_ = std::move(bytes);
  *out = std::move(file);
  return Status::success();
}

const SafetensorsTensor* SafetensorsFile::find(const std::string& name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &tensors_[it->second];
}

Status SafetensorsFile::read_f32(const SafetensorsTensor& tensor, std::vector<float>* out) const {
  const uint8_t* p = bytes_.data() + data_start_ + tensor.begin;
  const size_t n = static_cast<size_t>(tensor.num_elements());
  out->resize(n);
  if (tensor.dtype == "F32") {
    if (n) std::memcpy(out->data(), p, n * 4);
  } else if (tensor.dtype == "F16" || tensor.dtype == "BF16") {
    const bool half = tensor.dtype == "F16";
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      (*out)[i] = half ? kernels::f16_to_f32_value(h) : bf16_to_f32(h);
    }
  } else if (tensor.dtype == "F64") {
    for (size_t i = 0; i < n; ++i) {
      double d;
      std::memcpy(&d, p + 8 * i, 8);
      (*out)[i] = static_cast<float>(d);
    }
  } else {
    return unsupported_model(where_ + ": tensor '" + tensor.name + "' is " + tensor.dtype +
                             ", expected floating-point values (F32, F16, BF16, F64)");
  }
  return Status::success();
}

Status read_hf_weights(const std::string& dir, SafetensorsFile* file) {
  const std::string weights = dir + "/model.safetensors";
  if (!is_file(weights)) {
    if (is_file(dir + "/model.safetensors.index.json")) {
      return unsupported_model(dir + ": the weights are sharded (model.safetensors.index.json); heed reads one "
                               "model.safetensors");
    }
    if (is_file(dir + "/pytorch_model.bin")) {
      return unsupported_model(dir + ": only pytorch_model.bin, which heed does not read; re-save the model with "
                               "model.save_pretrained(folder, safe_serialization=True) to get model.safetensors");
    }
    return invalid_argument(dir + ": no model.safetensors");
  }
  return SafetensorsFile::read(weights, file);
}

}  // namespace heed::convert
