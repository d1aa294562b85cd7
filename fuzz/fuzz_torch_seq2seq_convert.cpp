// Fuzz target: a model folder through the two safetensors-based readers of `heed convert`:
// torch_seq2seq::read_model (config.json + model.safetensors of a PyTorch RNN seq2seq) and
// marian::read_model (Hugging Face Marian: config.json, vocab.json, model.safetensors, source.spm,
// target.spm, optional generation_config.json, tokenizer_config.json, target_vocab.json); both
// readers see every input, and what either accepts goes through quantize_model, serialize_heed and
// Model::from_bytes (convert_and_load.h). The input holds the files in fuzz_support.h's multi-part
// format; fuzz/make_seeds.py writes seeds from tests/fixtures/rnn and tests/fixtures/marian.
//
// Properties: no crash or undefined behaviour; every refusal is one line; whatever the writer
// produces loads.
#include <unistd.h>

#include <cstdint>
#include <string>
#include <sys/stat.h>

#include "convert_and_load.h"
#include "fuzz_support.h"
#include "marian/reader.h"
#include "torch_seq2seq/reader.h"

namespace {

// Files a part may become, by its first byte modulo the count.
constexpr const char* kFileNames[] = {"config.json",       "model.safetensors",  "vocab.json",
                                      "source.spm",        "target.spm",         "target_vocab.json",
                                      "generation_config.json", "tokenizer_config.json"};
constexpr size_t kNumFileNames = sizeof kFileNames / sizeof kFileNames[0];

std::string model_dir;

void convert(heed::Status (*read_model)(const std::string&, heed::convert::NeutralModel*), size_t size) {
  heed::convert::NeutralModel model;
  const heed::Status s = read_model(model_dir, &model);
  if (!s.is_ok()) {
    heed::fuzz::check_refusal("fuzz_torch_seq2seq_convert", s);
    return;
  }
  heed::fuzz::convert_and_load("fuzz_torch_seq2seq_convert", &model, size);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  model_dir = heed::fuzz::scratch_dir() + "/seq2seq";
  ::mkdir(model_dir.c_str(), 0700);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (const char* name : kFileNames) ::unlink((model_dir + "/" + name).c_str());
  for (const auto& part : heed::fuzz::split_parts(data, size)) {
    heed::fuzz::write_file(model_dir + "/" + kFileNames[part.name_index % kNumFileNames], part.content);
  }
  convert(&heed::convert::torch_seq2seq::read_model, size);
  convert(&heed::convert::marian::read_model, size);
  return 0;
}
