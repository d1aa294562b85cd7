// Text <-> token ids for one side (source or target) of a model, from the .heed tokenizer section.
//
// Two kinds:
// - Whitespace: tokens are space/tab-separated vocabulary entries; decoding joins them with spaces.
// - SentencePiece: the model bytes embedded in the file (source_model / target_model) split text
//   into pieces; the pieces become ids through the file's vocabulary (which may number them
//   differently from the SentencePiece model, as OPUS-MT's vocab.json does). Decoding turns ids
//   back into pieces and lets SentencePiece detokenize them.
//
// encode() adds no special tokens (the Translator adds BOS/EOS per the model's conventions);
// decode() leaves special ids (unk, bos, eos, pad, decoder start) out, like the Hugging Face
// tokenizers' skip_special_tokens. Tokenizers allocate: they are for the text layer, outside the
// allocation-free session.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heed/model.h"
#include "heed/status.h"

namespace heed {

enum class TokenizerSide { kSource, kTarget };

// How a model's text becomes tokens (the file's tokenizer section; the values are the file's).
enum class TokenizerKind : uint8_t {
  Whitespace = 0,     // space-separated vocabulary entries
  Characters = 1,     // one token per Unicode character
  SentencePiece = 2,  // a SentencePiece model embedded in the file
  ByteBPE = 3,        // byte-fallback BPE (llama2.c's tokenizer.bin)
  WordPiece = 4,      // BERT's WordPiece
  ByteLevelBPE = 5,   // GPT-2's byte-level BPE
  Unigram = 6,        // Hugging Face tokenizers' Unigram (XLM-RoBERTa, e5, T5-style tokenizer.json)
};
// "Whitespace", "SentencePiece", ... (static storage); "unknown" for other values.
const char* tokenizer_kind_name(TokenizerKind kind);

struct TokenizerOptions {
  int32_t unk_id = -1;                // pieces missing from the vocabulary map here; -1: an error
  std::vector<int32_t> special_ids;   // left out by decode()
  // SentencePiece only: a leading ">>xx<<" (OPUS-MT's target-language tag) is kept as one piece and
  // every ">>...<<" is removed from the text before SentencePiece sees it (MarianTokenizer's rule).
  bool language_code_prefix = false;
  // Byte-level BPE only: every digit is a word of its own before GPT-2's split (tokenizer.json's
  // Digits pre-tokenizer with individual_digits, as SmolLM's tokenizers have it).
  bool split_digits = false;
  // Byte-level BPE only: the split into words (tokenizer.json's Split pre-tokenizer regex): GPT-2's
  // pattern, Llama 3's (numbers in runs of at most 3) or Qwen2's (one number per word, NFC text).
  enum class SplitPattern { kGpt2, kLlama3, kQwen2 };
  SplitPattern split_pattern = SplitPattern::kGpt2;
};

class Tokenizer {
 public:
  virtual ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // The side's vocabulary entries for `text`, before the mapping to ids.
  virtual Status encode_pieces(std::string_view text, std::vector<std::string>* pieces) const = 0;
  // Vocabulary entries back to text.
  virtual Status decode_pieces(const std::vector<std::string>& pieces, std::string* text) const = 0;

  // text -> ids; pieces missing from the vocabulary become unk_id (an error when there is none).
  Status encode(std::string_view text, std::vector<int32_t>* ids) const;
  // The same ids with the pieces they come from (pieces[i] gives ids[i]; a piece the vocabulary
  // lacks is kept as the tokenizer made it, beside unk_id), for tools that show how text was split.
  Status encode_with_pieces(std::string_view text, std::vector<std::string>* pieces, std::vector<int32_t>* ids) const;
  // ids -> text; special ids are skipped; an id outside the vocabulary is an error.
  Status decode(const int32_t* ids, size_t n, std::string* text) const;

  size_t vocabulary_size() const { return tokens_.size(); }
  const std::string& token(int32_t id) const { return tokens_[static_cast<size_t>(id)]; }
  int32_t id(std::string_view token) const;  // -1 when absent

 protected:
  Tokenizer(std::vector<std::string> tokens, TokenizerOptions options);

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;  // token -> its first id
  TokenizerOptions options_;
};

// The tokenizer of `side` of `model` (which may be destroyed afterwards: everything is copied).
// Special ids and the language-code rule come from the file's tokenizer section and metadata.
Status create_tokenizer(const Model& model, TokenizerSide side, std::unique_ptr<Tokenizer>* out);

// Whether `model` has a source side: translation models (a source vocabulary of their own, or one
// shared with the target). Models with one vocabulary (language models, BERT encoders) keep it as
// their target side, the one to ask create_tokenizer for.
bool has_source_side(const Model& model);
// The entries of `side`'s vocabulary in id order (the tokens create_tokenizer maps ids with),
// without building a tokenizer.
Status tokenizer_vocabulary(const Model& model, TokenizerSide side, std::vector<std::string>* tokens);

// Building blocks, for tests and other front ends.
Status create_whitespace_tokenizer(std::vector<std::string> vocabulary, const TokenizerOptions& options,
                                   std::unique_ptr<Tokenizer>* out);
// Checks a serialized SentencePiece model the way create_sentencepiece_tokenizer loads it (its
// normalization tables first, then the library itself): one line, kInvalidFile, when unusable.
// Converters check every model they embed with it.
Status check_sentencepiece_model(const void* model_bytes, size_t size);
// `model_bytes` is a serialized SentencePiece model (a .spm / .model file's contents).
Status create_sentencepiece_tokenizer(const void* model_bytes, size_t size, std::vector<std::string> vocabulary,
                                      const TokenizerOptions& options, std::unique_ptr<Tokenizer>* out);

}  // namespace heed
