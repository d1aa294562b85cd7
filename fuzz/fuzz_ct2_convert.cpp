// Fuzz target: a whole CTranslate2 model folder through `heed convert`'s code: read_model, then
// quantize_model, serialize_heed and Model::from_bytes on the result. The input holds several
// files (fuzz_support.h: split_parts); fuzz/make_seeds.py writes seeds from real and tiny models.
//
// Properties: no crash or undefined behaviour; every refusal is a one-line status; whatever the
// writer produces loads. With HEED_FUZZ_STRICT=1 in the environment, a model the reader accepts but
// the writer's final consistency check refuses also aborts (the reader should have named the
// problem itself). HEED_FUZZ_VERBOSE=1 prints how far each input got (for replaying inputs).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "convert.h"
#include "ct2/reader.h"
#include "fuzz_support.h"
#include "heed/model.h"
#include "heed_writer.h"
#include "loader/model_index.h"

namespace {

// Files a part may become, by its first byte modulo the count.
constexpr const char* kFileNames[] = {
    "model.bin",           "config.json",           "vocabulary.json",        "vocabulary.txt",
    "shared_vocabulary.json", "shared_vocabulary.txt", "source_vocabulary.json", "source_vocabulary.txt",
    "target_vocabulary.json", "target_vocabulary.txt"};
constexpr size_t kNumFileNames = sizeof kFileNames / sizeof kFileNames[0];

bool strict = false;
bool verbose = false;
std::string model_dir;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_ct2_convert: invariant broken: %s\n", what.c_str());
  std::abort();
}

void check_message(const heed::Status& s) {
  if (verbose) std::fprintf(stderr, "fuzz_ct2_convert: refused: %s\n", s.message().c_str());
  if (s.message().empty() || s.message().find('\n') != std::string::npos) {
    fail("error message empty or not one line: " + s.message());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* s = std::getenv("HEED_FUZZ_STRICT");
  strict = s && *s == '1';
  const char* v = std::getenv("HEED_FUZZ_VERBOSE");
  verbose = v && *v == '1';
  model_dir = heed::fuzz::scratch_dir() + "/model";
  ::mkdir(model_dir.c_str(), 0700);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace convert = heed::convert;
  for (const char* name : kFileNames) ::unlink((model_dir + "/" + name).c_str());
  for (const auto& part : heed::fuzz::split_parts(data, size)) {
    const std::string path = model_dir + "/" + kFileNames[part.name_index % kNumFileNames];
    heed::fuzz::write_file(path, part.content);
  }

  convert::NeutralModel model;
  heed::Status s = convert::ct2::read_model(model_dir, &model);
  if (!s.is_ok()) {
    check_message(s);
    return 0;
  }
  // The weight type and grouping follow from the input so each input replays the same way.
  convert::ConvertOptions options;
  const convert::WeightType types[] = {convert::WeightType::kInt8, convert::WeightType::kFloat16,
                                       convert::WeightType::kFloat32};
  options.quantize.type = types[size % 3];
  options.quantize.group_size = options.quantize.type == convert::WeightType::kInt8 && (size / 3) % 2 ? 8 : 0;
  options.layout = convert::WeightLayout::kRowMajor;  // as this target always ran
  convert::ConvertSummary summary;
  s = convert::quantize_and_pack(&model, options, &summary);
  if (!s.is_ok()) {
    check_message(s);
    return 0;
  }
  std::vector<uint8_t> bytes;
  s = convert::serialize_heed(model, &bytes);
  if (!s.is_ok()) {
    check_message(s);
    if (strict) fail("the reader accepted a model the writer refuses: " + s.message());
    return 0;
  }
  std::unique_ptr<heed::Model> loaded;
  s = heed::Model::from_bytes(bytes.data(), bytes.size(), &loaded);
  if (!s.is_ok()) fail("the writer produced a file the loader refuses: " + s.message());
  if (file_tensors(*loaded).size() != model.tensors.size()) fail("tensor count changed between writer and loader");
  if (verbose) std::fprintf(stderr, "fuzz_ct2_convert: converted: %zu tensors, %zu bytes\n", model.tensors.size(), bytes.size());
  return 0;
}
