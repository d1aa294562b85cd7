// Reader of the safetensors format (Hugging Face's model.safetensors), for any converter reader:
//   [u64 little-endian N][N bytes of JSON header][data]
// The header maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets
// relative to the data start) and may hold "__metadata__" (string -> string). Every offset, size
// and shape is checked against the file before anything is read, so a corrupt file is an error
// naming the tensor, never an out-of-bounds read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "loader/model_index.h"
#include "heed/status.h"

namespace heed::convert {

struct SafetensorsTensor {
  std::string name;
  std::string dtype;            // as stored: "F32", "F16", "BF16", "F64", "I64", "I32", "I8", "U8", "BOOL", ...
  std::vector<uint64_t> shape;  // [] is a scalar
  uint64_t begin = 0;           // bytes from the data start
  uint64_t end = 0;

  uint64_t num_elements() const;
};

class SafetensorsFile {
 public:
  // Reads and checks the whole file (weights are copied into memory: converters read each once).
  static Status read(const std::string& path, SafetensorsFile* out);
  // Same checks on bytes in memory (tests); `where` names them in errors.
  static Status parse(std::vector<uint8_t> bytes, const std::string& where, SafetensorsFile* out);

  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const SafetensorsTensor* find(const std::string& name) const;  // nullptr when absent
  const std::string& where() const { return where_; }

  // Values of a floating-point tensor (F32, F16, BF16, F64) as f32.
  Status read_f32(const SafetensorsTensor& tensor, std::vector<float>* out) const;

 private:
  std::string where_;
  std::vector<uint8_t> bytes_;
  uint64_t data_start_ = 0;
  std::vector<SafetensorsTensor> tensors_;  // in header order
  std::map<std::string, size_t> by_name_;
  std::map<std::string, std::string> metadata_;
};

// A Hugging Face folder's model.safetensors (the folder must exist); sharded weights and
// pytorch_model.bin-only folders are refused with what to do about them.
Status read_hf_weights(const std::string& dir, SafetensorsFile* file);

// Bytes per element of a safetensors dtype name; 0 when unknown.
size_t safetensors_dtype_size(const std::string& dtype);

}  // namespace heed::convert
