// Fuzz target: arbitrary bytes as a .heed file. Model::from_bytes must either refuse them with a
// one-line status or return a model whose every tensor view and scale array lies inside the
// buffer; both are read in full so AddressSanitizer sees any view that escapes it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "heed/model.h"
#include "loader/model_index.h"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_heed_loader: invariant broken: %s\n", what);
  std::abort();
}

bool inside(const void* p, uint64_t n, const uint8_t* begin, size_t size) {
  const auto* b = static_cast<const uint8_t*>(p);
  return b >= begin && n <= size && static_cast<uint64_t>(b - begin) <= size - n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Both ways the loader can hold bytes: a 64-byte aligned buffer used in place, and a misaligned
  // one it copies. Each buffer is exactly `size` bytes so a read past the end is reported.
  void* aligned = nullptr;
  if (::posix_memalign(&aligned, heed::kTensorAlignment, size ? size : 1) != 0) return 0;
  if (size) std::memcpy(aligned, data, size);
  const uint8_t* const inputs[] = {static_cast<const uint8_t*>(aligned), data};

  for (const uint8_t* bytes : inputs) {
    std::unique_ptr<heed::Model> model;
    const heed::Status status = heed::Model::from_bytes(bytes, size, &model);
    if (!status.is_ok()) {
      if (model) fail("a failed load returned a model");
      if (status.message().empty() || status.message().find('\n') != std::string::npos) {
        fail("an error message is empty or longer than one line");
      }
      continue;
    }
    const uint8_t* base = bytes;
    if (reinterpret_cast<uintptr_t>(bytes) % heed::kTensorAlignment != 0) {
      // The model copied the bytes; views point into its copy, which starts where data() - offset does.
      base = nullptr;
    }
    unsigned sum = 0;
    for (const heed::TensorView& t : file_tensors(*model)) {
      if (reinterpret_cast<uintptr_t>(t.data) % heed::kTensorAlignment != 0) fail("a tensor is not 64-byte aligned");
      if (base && !inside(t.data, t.size_bytes, base, size)) fail("a tensor view leaves the buffer");
      if (t.size_bytes != t.num_elements() * heed::dtype_size(t.dtype)) fail("a tensor size does not match its shape");
      const auto* p = static_cast<const uint8_t*>(t.data);
      for (uint64_t i = 0; i < t.size_bytes; ++i) sum += p[i];
      if (t.quantization != heed::fb::Quantization::None) {
        if (!t.scales || t.num_scales == 0) fail("a quantized tensor has no scales");
        if (base && !inside(t.scales, t.num_scales * sizeof(float), base, size)) fail("scales leave the buffer");
        for (size_t i = 0; i < t.num_scales; ++i) sum += static_cast<unsigned>(t.scales[i] != 0.0f);
      }
      if (find_tensor(*model, t.name) != &t) fail("find() does not return the tensor by its own name");
      if (t.rows() * t.row_size() != t.num_elements()) fail("rows * row_size != elements");
    }
    const heed::TensorView* missing = nullptr;
    if (!find_tensor(*model, "\x01no such tensor") && require_tensor(*model, "\x01no such tensor", &missing).is_ok()) {
      fail("require() accepted a missing tensor");
    }
    // Keep the reads observable so the compiler cannot drop them.
    if (sum == 0xdeadbeef) std::fputc(' ', stderr);
  }
  std::free(aligned);
  return 0;
}
