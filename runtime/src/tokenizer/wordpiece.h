// WordPiece as BERT's tokenizer (Hugging Face BertTokenizer) splits text, over a vocab.txt.
//
// Basic tokenization, in BertTokenizer's order:
//   1. cleaning: NUL, U+FFFD and control characters (Unicode category C*, except tab, newline and
//      carriage return) are removed; whitespace (tab, newline, CR, category Zs) becomes a space;
//   2. CJK ideographs (the CJK Unified Ideographs blocks and their extensions and compatibility
//      blocks) get a space on each side, so each is a word of its own;
//   3. NFC normalization, then words split on whitespace;
//   4. uncased models (do_lower_case): each word lowercased and, unless strip_accents is false,
//      decomposed (NFD) with its nonspacing marks (category Mn) dropped; cased models strip
//      accents only when strip_accents is true;
//   5. every punctuation character (ASCII non-alphanumeric symbols, Unicode category P*) is a word
//      of its own.
// Special tokens (never_split: [CLS], [SEP], [MASK], ... as BertTokenizer's added tokens) written
// in the text are matched first, exactly (case-sensitive), and kept as one piece each; the text
// between them goes through the steps above.
// Then each word becomes pieces greedily, longest match first: the longest vocabulary entry that
// starts the word, then the longest "##"-prefixed entry that starts the rest, and so on. A word
// with no such split, or longer than max_chars_per_word characters, is the unknown token.
// Unicode tables come from utf8proc. Known difference: lowercasing is per character (Unicode's
// simple case mapping), where Python's str.lower() also applies the final-sigma rule.
// Text that is not valid UTF-8 is an error.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "heed/status.h"
#include "heed/tokenizer.h"

namespace heed::tokenizer {

struct WordPieceOptions {
  bool lowercase = true;             // do_lower_case
  bool strip_accents = true;         // BertTokenizer's default: the same as do_lower_case
  size_t max_chars_per_word = 100;
  std::string unk_token = "[UNK]";
  std::string continuation = "##";
  std::vector<std::string> never_split;  // special tokens kept whole when the text contains them
};

// `vocabulary` is vocab.txt in id order; `options.unk_token` must be in it.
Status create_wordpiece_tokenizer(std::vector<std::string> vocabulary, const WordPieceOptions& wordpiece,
                                  const TokenizerOptions& options, std::unique_ptr<Tokenizer>* out);

// The basic tokenization alone (steps 1-5): the words WordPiece then splits. For tests.
Status basic_tokenize(std::string_view text, const WordPieceOptions& options, std::vector<std::string>* words);

}  // namespace heed::tokenizer
