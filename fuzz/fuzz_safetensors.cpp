// Fuzz target: arbitrary bytes as a safetensors file (converter/safetensors.h). SafetensorsFile::parse
// must refuse them with a one-line status or describe tensors that lie inside the data, with byte
// counts matching shape x dtype size; every floating-point tensor is read with read_f32 and every
// other one refused by it with one line.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "loader/model_index.h"
#include "safetensors.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_safetensors: invariant broken: %s\n", what.c_str());
  std::abort();
}

void check_message(const heed::Status& s) {
  if (s.message().empty() || s.message().find('\n') != std::string::npos) {
    fail("error message empty or not one line: " + s.message());
  }
}

bool is_float(const std::string& dtype) { return dtype == "F32" || dtype == "F16" || dtype == "BF16" || dtype == "F64"; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using heed::convert::SafetensorsFile;
  SafetensorsFile file;
  const heed::Status status = SafetensorsFile::parse(std::vector<uint8_t>(data, data + size), "model.safetensors", &file);
  if (!status.is_ok()) {
    check_message(status);
    return 0;
  }
  if (size < 8) fail("accepted a file without its 8-byte header length");
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = header << 8 | data[i];
  if (header > size - 8) fail("accepted a header longer than the file");
  const uint64_t data_size = size - 8 - header;
  float sum = 0;
  std::vector<float> values;
  for (const auto& t : file.tensors()) {
    if (t.begin > t.end || t.end > data_size) fail("tensor '" + t.name + "' lies outside the data");
    const size_t width = heed::convert::safetensors_dtype_size(t.dtype);
    if (width == 0) fail("tensor '" + t.name + "' has an unknown dtype");
    if (t.num_elements() * width != t.end - t.begin) fail("tensor '" + t.name + "' size does not match its shape");
    if (file.find(t.name) != &t) fail("tensor '" + t.name + "' is not found by its name");
    const heed::Status read = file.read_f32(t, &values);
    if (read.is_ok() != is_float(t.dtype)) fail("read_f32 of a " + t.dtype + " tensor: " + read.message());
    if (!read.is_ok()) {
      check_message(read);
      continue;
    }
    if (values.size() != t.num_elements()) fail("read_f32 returned the wrong count");
    for (float v : values) sum += v;
  }
  for (const auto& [key, value] : file.metadata()) sum += static_cast<float>(key.size() + value.size());
  if (sum == 1234.5f) std::fputc(' ', stderr);  // keeps the reads
  return 0;
}
