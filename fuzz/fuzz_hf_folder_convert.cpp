// Fuzz target: a Hugging Face model folder through the readers of `heed convert` that no other
// target covers: hf_bert::read_model (config.json, model.safetensors, vocab.txt,
// tokenizer_config.json), hf_causal_lm::read_gpt2 (config.json, model.safetensors, vocab.json,
// merges.txt) and hf_causal_lm::read_llama (config.json, model.safetensors, tokenizer.model). Every
// reader sees every input; what one accepts goes through the conversion pipeline's quantize,
// serialize_heed and Model::from_bytes (convert_and_load.h). The input holds the files in
// fuzz_support.h's multi-part format; fuzz/make_seeds.py writes seeds from tests/fixtures/hf-bert,
// hf-gpt2 and hf-llama. (hf-marian is fuzz_torch_seq2seq_convert's.)
//
// Properties: no crash or undefined behaviour; every refusal is one line; whatever the writer
// produces loads.
#include <unistd.h>

#include <cstdint>
#include <string>
#include <sys/stat.h>

#include "convert_and_load.h"
#include "fuzz_support.h"
#include "hf_bert/reader.h"
#include "hf_causal_lm/reader.h"

namespace {

// Files a part may become, by its first byte modulo the count (fuzz/make_seeds.py HF_FILE_NAMES).
constexpr const char* kFileNames[] = {"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json",
                                      "vocab.json",  "merges.txt",        "tokenizer.model"};
constexpr size_t kNumFileNames = sizeof kFileNames / sizeof kFileNames[0];

std::string model_dir;

void convert(heed::Status (*read_model)(const std::string&, heed::convert::NeutralModel*), size_t size) {
  heed::convert::NeutralModel model;
  const heed::Status s = read_model(model_dir, &model);
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
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (const char* name : kFileNames) ::unlink((model_dir + "/" + name).c_str());
  for (const auto& part : heed::fuzz::split_parts(data, size)) {
    heed::fuzz::write_file(model_dir + "/" + kFileNames[part.name_index % kNumFileNames], part.content);
  }
  convert(&heed::convert::hf_bert::read_model, size);
  convert(&heed::convert::hf_causal_lm::read_gpt2, size);
  convert(&heed::convert::hf_causal_lm::read_llama, size);
  return 0;
}
