// convert_seed [--from FORMAT] SOURCE OUTPUT.heed TYPE [GROUP]: what `heed convert` does, for
// make_seeds.py, so the fuzz build needs only the libraries under test and not the whole command
// line. FORMAT: ct2 (default), llama2c, hf-marian, hf-gpt2, hf-bert, torch-seq2seq.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ct2/reader.h"
#include "heed_writer.h"
#include "hf_bert/reader.h"
#include "hf_causal_lm/reader.h"
#include "llama2c/reader.h"
#include "marian/reader.h"
#include "quantize.h"
#include "torch_seq2seq/reader.h"

int main(int argc, char** argv) {
  namespace convert = heed::convert;
  heed::Status (*read_model)(const std::string&, convert::NeutralModel*) = &convert::ct2::read_model;
  if (argc > 2 && std::strcmp(argv[1], "--from") == 0) {
    const std::string from = argv[2];
    if (from == "llama2c") read_model = &convert::llama2c::read_model;
    else if (from == "hf-marian") read_model = &convert::marian::read_model;
    else if (from == "hf-gpt2") read_model = &convert::hf_causal_lm::read_gpt2;
    else if (from == "hf-bert") read_model = &convert::hf_bert::read_model;
    else if (from == "torch-seq2seq") read_model = &convert::torch_seq2seq::read_model;
    else if (from != "ct2") read_model = nullptr;
    argc -= 2;
    argv += 2;
  }
  if (read_model == nullptr || argc < 4 || argc > 5) {
    std::fprintf(stderr,
                 "usage: convert_seed [--from ct2|llama2c|hf-marian|hf-gpt2|hf-bert|torch-seq2seq] SOURCE OUTPUT.heed "
                 "int8|float16|float32 [GROUP]\n");
    return 2;
  }
  convert::QuantizeOptions options;
  heed::Status s = convert::parse_weight_type(argv[3], &options.type);
  if (s.is_ok() && argc == 5) options.group_size = static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 10));
  convert::NeutralModel model;
  if (s.is_ok()) s = read_model(argv[1], &model);
  if (s.is_ok()) s = convert::quantize_model(&model, options, nullptr);
  if (s.is_ok()) s = convert::write_heed(model, argv[2]);
  if (!s.is_ok()) {
    std::fprintf(stderr, "convert_seed: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}
