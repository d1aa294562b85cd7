#include "formats.h"

#include "format_hint.h"

#include "argos/reader.h"
#include "ct2/reader.h"
#include "hf_bert/reader.h"
#include "hf_bert/mpnet.h"
#include "hf_bert/xlm_roberta.h"
#include "hf_causal_lm/reader.h"
#include "llama2c/reader.h"
#include "marian/reader.h"
#include "torch_seq2seq/reader.h"

namespace heed::convert {

const std::vector<SourceFormat>& source_formats() {
  static const std::vector<SourceFormat> formats = {
      {"ct2", "CTranslate2 model folder (model.bin + vocabularies [+ config.json])", &ct2::looks_like_model,
       &ct2::read_model},
      {"llama2c", "llama2.c checkpoint (legacy or version 1 float32) with tok<VOCAB>.bin or tokenizer.bin beside it",
       &llama2c::looks_like_model, &llama2c::read_model},
      {"hf-marian", "Hugging Face Marian (OPUS-MT) folder: config.json, model.safetensors, source/target.spm, vocab.json",
       &marian::looks_like_model, &marian::read_model},
      {"hf-bert", "Hugging Face BERT-family folder (BERT, MiniLM): config.json, model.safetensors, vocab.txt",
       &hf_bert::looks_like_model, &hf_bert::read_model},
      {"hf-xlm-roberta", "Hugging Face XLM-RoBERTa folder (XLM-R, multilingual e5): config.json (model_type "
       "xlm-roberta), model.safetensors, tokenizer.json (Unigram)", &hf_bert::looks_like_xlm_roberta, &hf_bert::read_model},
      {"hf-mpnet", "Hugging Face MPNet folder (all-mpnet-base-v2): config.json (model_type mpnet), model.safetensors, "
       "vocab.txt or tokenizer.json (WordPiece)", &hf_bert::looks_like_mpnet, &hf_bert::read_model},
      {"torch-seq2seq", "PyTorch RNN seq2seq with attention: model.safetensors (state_dict) + config.json "
       "(docs/torch-seq2seq.md)", &torch_seq2seq::looks_like_model, &torch_seq2seq::read_model},
      {"argos", "Argos Translate package (.argosmodel zip: CTranslate2 model + sentencepiece.model + metadata.json)",
       &argos::looks_like_package, &argos::read_model},
      {"hf-gpt2", "Hugging Face GPT-2 folder: config.json (model_type gpt2), model.safetensors, vocab.json, merges.txt",
       &hf_causal_lm::looks_like_gpt2, &hf_causal_lm::read_gpt2},
      {"hf-llama", "Hugging Face Llama folder: config.json (model_type llama), model.safetensors, tokenizer.model",
       &hf_causal_lm::looks_like_llama, &hf_causal_lm::read_llama},
  };
  return formats;
}

std::string format_names() {
  std::string names;
  for (const auto& f : source_formats()) names += (names.empty() ? "" : ", ") + std::string(f.name);
  return names;
}

Status find_format(const std::string& name, const SourceFormat** out) {
  for (const auto& f : source_formats()) {
    if (name == f.name) {
      *out = &f;
      return Status::success();
    }
  }
  return invalid_argument("unknown source format '" + name + "' (supported: " + format_names() + ")");
}

Status detect_format(const std::string& path, const SourceFormat** out) {
  // The last format that recognizes the path wins (the order of the table above).
  *out = nullptr;
  for (const auto& f : source_formats()) {
    if (f.detect(path)) *out = &f;
  }
  if (*out != nullptr) return Status::success();
  return invalid_argument("cannot tell the format: " + undetected_format_hint(path) + "; --from names a format (" +
                          format_names() + ")");
}

}  // namespace heed::convert
