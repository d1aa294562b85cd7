// The Unigram model of a tokenizer.json, as the `tokenizers` library encodes a word: the split of
// highest total score (Viterbi over every vocabulary piece that matches, scores summed in double
// precision), a character no piece starts with scored as the unknown token (the lowest piece
// score minus 10), consecutive unknown characters fused into one unknown piece, and with byte
// fallback an unknown piece the vocabulary lacks spelled as its <0xXX> byte pieces when the
// vocabulary has them all. Written here rather than taken from SentencePiece, whose lattice
// differs where it matters for equal ids: it never matches control or byte pieces, takes the
// lowest score over normal pieces only, and sums scores in single precision.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "heed/status.h"
#include "heed/tokenizer.h"

namespace heed::tokenizer {

class UnigramModel {
 public:
  // The pieces are `vocabulary`'s tokens (which must outlive the model); `scores` by id.
  static Status create(const Tokenizer* vocabulary, std::vector<double> scores, int32_t unk_id, bool byte_fallback,
                       UnigramModel* out);

  // Appends the pieces of `word` (valid UTF-8) to *out; a piece the vocabulary lacks stands for
  // the unknown token.
  void encode(std::string_view word, std::vector<std::string>* out) const;

 private:
  struct Best {
    double score = 0.0;
    size_t start = SIZE_MAX;  // SIZE_MAX: no path ends here yet
    int32_t id = -1;
  };
  // Calls found(id, length) for every piece that starts text[at...], shortest first.
  template <typename Found>
  void pieces_at(std::string_view text, size_t at, Found found) const;
  bool has_piece(const std::string& text) const;
  void append_piece(std::string text, std::vector<std::string>* out) const;

  const std::string& piece(int32_t id) const { return vocabulary_->token(id); }

  const Tokenizer* vocabulary_ = nullptr;
  std::vector<double> scores_;
  std::vector<int32_t> sorted_;  // ids by their piece's bytes
  double unk_score_ = 0.0;
  int32_t unk_id_ = -1;
  bool byte_fallback_ = false;
};

}  // namespace heed::tokenizer
