// Fuzz target: a llama2.c checkpoint and its tokenizer through `heed convert --from llama2c`'s code:
// llama2c::read_model (checkpoint header and layout, tokenizer.bin / tok<VOCAB>.bin), then
// quantize_model, serialize_heed and Model::from_bytes (convert_and_load.h). The input holds the
// files in fuzz_support.h's multi-part format; fuzz/make_seeds.py writes tiny synthetic checkpoints
// of both header versions with stories260K's tok512.bin and small synthetic tokenizers.
//
// Properties: no crash or undefined behaviour; every refusal is one line; whatever the writer
// produces loads.
#include <unistd.h>

#include <cstdint>
#include <string>
#include <sys/stat.h>

#include "convert_and_load.h"
#include "fuzz_support.h"
#include "llama2c/reader.h"

namespace {

// Files a part may become, by its first byte modulo the count. The reader looks for tok<VOCAB>.bin
// first, then tokenizer.bin; tok512.bin is stories260K's name.
constexpr const char* kFileNames[] = {"model.bin", "tokenizer.bin", "tok512.bin", "tok32.bin"};
constexpr size_t kNumFileNames = sizeof kFileNames / sizeof kFileNames[0];

std::string model_dir;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  model_dir = heed::fuzz::scratch_dir() + "/llama2c";
  ::mkdir(model_dir.c_str(), 0700);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (const char* name : kFileNames) ::unlink((model_dir + "/" + name).c_str());
  for (const auto& part : heed::fuzz::split_parts(data, size)) {
    heed::fuzz::write_file(model_dir + "/" + kFileNames[part.name_index % kNumFileNames], part.content);
  }
  heed::convert::NeutralModel model;
  const heed::Status s = heed::convert::llama2c::read_model(model_dir + "/model.bin", &model);
  if (!s.is_ok()) {
    heed::fuzz::check_refusal("fuzz_llama2c_convert", s);
    return 0;
  }
  heed::fuzz::convert_and_load("fuzz_llama2c_convert", &model, size);
  return 0;
}
