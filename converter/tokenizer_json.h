// Hugging Face tokenizer.json (the `tokenizers` library's format), read for the tokenizers heed's
// runtime runs: BPE with GPT-2's byte-level pre-tokenization, WordPiece with BERT's normalizer
// and pre-tokenizer, and Unigram with the normalizers and pre-tokenizers SentencePiece exports use
// (tokenizer_json_unigram.*). Every component the file names is checked against those; anything
// else (Llama 3's split pattern, a normalizer heed does not apply) is refused with the component
// and its value, so a model never converts into one that tokenizes differently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heed/status.h"
#include "heed_generated.h"

namespace heed::convert {

struct TokenizerJson {
  enum class Kind { kByteLevelBpe, kWordPiece, kUnigram } kind = Kind::kByteLevelBpe;
  std::vector<std::string> tokens;  // by id: the model's vocabulary and the added tokens
  std::vector<std::string> merges;  // BPE: "a b", best first
  bool split_digits = false;        // BPE: a Digits pre-tokenizer (individual digits) before ByteLevel
  fb::SplitPattern split_pattern = fb::SplitPattern::Gpt2;  // BPE: Llama 3's or Qwen2's Split regex
  std::vector<int32_t> added_ids;   // the added tokens: pieces of their own wherever the text has them
  int32_t start_id = -1;            // the token the post-processor puts first (TemplateProcessing), or -1
  int32_t end_id = -1;              // Unigram: the token the post-processor puts last, or -1
  std::vector<double> scores;       // Unigram: each token's score (0 for added tokens outside the model)
  int32_t unk_id = -1;              // Unigram: model.unk_id
  std::unique_ptr<fb::UnigramTextT> unigram;  // Unigram: the text steps before the model
  // WordPiece: BertNormalizer's settings (strip_accents unset: as lowercase, BERT's rule).
  bool lowercase = false;
  std::optional<bool> strip_accents;
};

// Reads `path`; `vocab_size` (config.json's) is the number of ids the tokens must fill.
Status read_tokenizer_json(const std::string& path, uint32_t vocab_size, TokenizerJson* out);

// A Unigram tokenizer.json as the file's tokenizer section: kind Unigram, the vocabulary with its
// scores, unk/bos/eos ids, `pad_token` (when the vocabulary has it) as pad_id, the added tokens as
// special_ids and the text steps.
void unigram_tokenizer_section(TokenizerJson t, const std::string& pad_token, fb::TokenizerT* out);

}  // namespace heed::convert
