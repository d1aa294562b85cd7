// Fuzz target: arbitrary bytes as a CTranslate2 model.bin. ModelBin::parse must refuse them with a
// one-line status or describe variables that lie inside the bytes; every variable's bytes are read
// and every name and alias looked up.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "loader/model_index.h"
#include "ct2/model_bin.h"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_ct2_model_bin: invariant broken: %s\n", what);
  std::abort();
}

std::string upper_case(std::string s) {
  for (char& c : s) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using heed::convert::ct2::ModelBin;
  ModelBin bin;
  const heed::Status status = ModelBin::parse(std::vector<uint8_t>(data, data + size), "model.bin", &bin);
  if (!status.is_ok()) {
    if (status.message().empty() || status.message().find('\n') != std::string::npos) {
      fail("error message empty or not one line");
    }
    return 0;
  }
  unsigned sum = 0;
  for (const auto& v : bin.variables()) {
    if (v.offset > size || v.size > size - v.offset) fail("a variable's bytes leave the file");
    if (v.size != v.num_elements() * heed::convert::ct2::dtype_size(v.dtype)) fail("size does not match shape");
    const uint8_t* p = bin.data(v);
    for (size_t i = 0; i < v.size; ++i) sum += p[i];
    const auto* found = bin.find(v.name);
    if (!found) fail("a variable cannot be found by its name");
    sum += static_cast<unsigned>(bin.find(v.name + "_scale") != nullptr);
  }
  for (const auto& [alias, target] : bin.aliases()) {
    if (!bin.find(alias)) fail("an alias does not resolve");
    sum += static_cast<unsigned>(bin.alias_target(alias + "_scale").size());
  }
  // Renaming (what revision-1 files go through) must keep lookups consistent.
  bin.rename(&upper_case);
  for (const auto& v : bin.variables()) {
    if (!bin.find(v.name)) fail("a renamed variable cannot be found");
  }
  if (sum == 0xdeadbeef) std::fputc(' ', stderr);
  return 0;
}
