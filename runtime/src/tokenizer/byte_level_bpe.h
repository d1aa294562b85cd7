// GPT-2's byte-level BPE (vocab.json + merges.txt, the Hugging Face GPT2Tokenizer):
//   1. pre-tokenization: the text is split into words by GPT-2's pattern
//        's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//      (Unicode letter/number categories from utf8proc);
//   2. each word's UTF-8 bytes become printable symbols (bytes_to_unicode: printable Latin-1 bytes
//      stand for themselves, the other 68 bytes for U+0100..U+0143), the symbols vocab.json uses;
//   3. within a word, the adjacent pair with the best (lowest) merges.txt rank is merged, all its
//      occurrences left to right, until no pair has a rank; the symbols are vocabulary pieces.
// Special tokens written in the text (<|endoftext|>: the file's special ids) are split out first and
// stay whole pieces. Decoding maps the symbols of each piece back to bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/status.h"

namespace heed {
class Tokenizer;
struct TokenizerOptions;

namespace tokenizer {

// GPT-2's split of `text` into words (step 1), as byte ranges of `text`.
std::vector<std::string_view> gpt2_pretokenize(std::string_view text);

// Llama 3's split (the Split pre-tokenizer regex of its tokenizer.json, byte_level_bpe.cpp
// llama3_word); Qwen2's is the same with max_digits 1.
std::vector<std::string_view> llama3_pretokenize(std::string_view text, size_t max_digits);

// Step 2 for a word, and its inverse for a piece; to_bytes returns false when the piece holds a
// character outside the 256 byte symbols (an added token such as "<|endoftext|>" maps fine: its
// characters are printable ASCII).
std::string bytes_to_symbols(std::string_view bytes);
bool symbols_to_bytes(std::string_view symbols, std::string* bytes);

// `merges`: "a b" lines in priority order (merges.txt without its "#version" line).
Status create_byte_level_bpe_tokenizer(std::vector<std::string> vocabulary, const std::vector<std::string>& merges,
                                       const TokenizerOptions& options, std::unique_ptr<Tokenizer>* out);

}  // namespace tokenizer
}  // namespace heed
