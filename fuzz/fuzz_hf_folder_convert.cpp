// Fuzz target: a Hugging Face model folder through the four Hugging Face readers of `heed convert`
// (hf-bert, hf-gpt2, hf-llama, hf-marian), taken from the format registry by name so the target
// follows the readers wherever they move. The input holds the folder's files in fuzz_support.h's
// multi-part format (config.json, model.safetensors and each family's tokenizer files);
// fuzz/make_seeds.py writes seeds from tests/fixtures (hf-bert, hf-gpt2, hf-llama, marian).
// Every reader sees every input (reading is cheap, and a folder one reader refuses may be another's
// valid model); what a reader accepts goes through quantize, serialize and load (convert_and_load.h).
// (fuzz_torch_seq2seq_convert also reads Marian folders, next to the PyTorch RNN reader.)
//
// Properties: no crash, hang or undefined behaviour; every refusal is one line; whatever the
// writer produces loads with the same tensor count.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "convert_and_load.h"
#include "formats.h"
#include "fuzz_support.h"

namespace {

// Files a part may become, by its first byte modulo the count. fuzz/make_seeds.py keeps the same
// list (HF_FILE_NAMES); append only, so that saved corpora keep their meaning.
constexpr const char* kFileNames[] = {
    "config.json",           "model.safetensors",      "vocab.txt",         "tokenizer_config.json",
    "vocab.json",            "merges.txt",             "tokenizer.model",   "generation_config.json",
    "source.spm",            "target.spm",             "target_vocab.json", "special_tokens_map.json",
    "1_Pooling/config.json", "model.safetensors.index.json", "tokenizer.json"};
constexpr size_t kNumFileNames = sizeof kFileNames / sizeof kFileNames[0];

constexpr const char* kFormats[] = {"hf-bert", "hf-gpt2", "hf-llama", "hf-marian"};

std::string model_dir;
std::vector<const heed::convert::SourceFormat*> readers;

void convert(const heed::convert::SourceFormat& format, size_t size) {
  heed::convert::NeutralModel model;
  const heed::Status s = format.read(model_dir, &model);
  if (!s.is_ok()) {
    heed::fuzz::check_refusal("fuzz_hf_folder_convert", s);
    return;
  }
  heed::fuzz::convert_and_load("fuzz_hf_folder_convert", &model, size);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  model_dir = heed::fuzz::scratch_dir() + "/hf";
  ::mkdir(model_dir.c_str(), 0700);
  ::mkdir((model_dir + "/1_Pooling").c_str(), 0700);
  for (const char* name : kFormats) {
    const heed::convert::SourceFormat* format = nullptr;
    const heed::Status s = heed::convert::find_format(name, &format);
    if (!s.is_ok()) {
      std::fprintf(stderr, "fuzz_hf_folder_convert: %s\n", s.message().c_str());
      std::abort();
    }
    readers.push_back(format);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (const char* name : kFileNames) ::unlink((model_dir + "/" + name).c_str());
  for (const auto& part : heed::fuzz::split_parts(data, size)) {
    heed::fuzz::write_file(model_dir + "/" + kFileNames[part.name_index % kNumFileNames], part.content);
  }
  for (const auto* format : readers) convert(*format, size);
  return 0;
}
