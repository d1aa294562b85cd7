// Byte-fallback BPE as llama2.c tokenizes (models with a tokenizer.bin: a vocabulary of pieces with
// merge scores, pieces "<0x00>".."<0xFF>" for raw bytes).
//
// Encoding (llama2.c's encode):
//   1. optional BOS; then, for non-empty text, the piece " " (SentencePiece's dummy prefix);
//   2. each UTF-8 character (a lead byte and its continuation bytes, at most 4) becomes its piece
//      when the vocabulary has it, else one byte piece per byte (<unk> when even that is missing);
//   3. repeatedly, the adjacent pair whose concatenation is a piece with the highest score is
//      merged (the leftmost pair on ties), until no pair concatenates to a piece (the same merges
//      as llama2.c's rescanning loop, found with a heap in O(n log n): long text stays fast);
//   4. optional EOS.
// Decoding: a piece is its bytes, a byte piece "<0xXX>" is that byte, and a piece following BOS
// loses one leading space (the dummy prefix).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heed/model.h"
#include "loader/model_index.h"
#include "heed/status.h"
#include "heed/tokenizer.h"

namespace heed::tokenizer {

class ByteBpe {
 public:
  ByteBpe() = default;
  ByteBpe(ByteBpe&&) = default;
  ByteBpe& operator=(ByteBpe&&) = default;
  ByteBpe(const ByteBpe&) = delete;
  ByteBpe& operator=(const ByteBpe&) = delete;

  // tokens[i] is the piece of id i, scores[i] its merge score (one per token).
  static Status create(std::vector<std::string> tokens, std::vector<float> scores, int32_t unk_id, int32_t bos_id,
                       int32_t eos_id, ByteBpe* out);
  // From a .heed tokenizer section of kind ByteBPE (target vocabulary with scores).
  static Status from_index(const fb::Tokenizer* tokenizer, ByteBpe* out);

  // Text -> ids (appended to *ids). Fails only when a character has neither a piece nor byte
  // pieces and the vocabulary has no <unk>.
  Status encode(std::string_view text, bool add_bos, bool add_eos, std::vector<int32_t>* ids) const;
  // The bytes `token` stands for after `previous` (-1: none). A view into this tokenizer: no
  // allocation. Out-of-range ids give "".
  std::string_view piece(int32_t previous, int32_t token) const;
  // Concatenated pieces of ids[0..n), the first one following `previous`.
  std::string decode(const int32_t* ids, size_t n, int32_t previous = -1) const;

  size_t size() const { return tokens_.size(); }
  int32_t bos_id() const { return bos_id_; }
  int32_t eos_id() const { return eos_id_; }
  // The id of an exact piece, -1 when absent.
  int32_t id(std::string_view piece) const;

 private:
  // Step 3 of encoding, in place.
  void merge(std::vector<int32_t>* tokens) const;

  std::vector<std::string> tokens_;
  std::vector<float> scores_;
  std::unordered_map<std::string_view, int32_t> ids_;  // views into tokens_ (first id of a piece)
  int32_t byte_ids_[256] = {};                          // id of piece <0xXX>, -1 when absent
  std::vector<int16_t> byte_of_;                        // per id: the byte of a byte piece, or -1
  char bytes_[256] = {};                                // the raw bytes, for views
  int32_t unk_id_ = -1, bos_id_ = -1, eos_id_ = -1;
};

// The same tokenizer behind heed::Tokenizer (heed/tokenizer.h), for front ends written against
// that interface: encode_pieces gives the BPE's vocabulary pieces (byte pieces "<0xXX>" for raw
// bytes), decode_pieces turns pieces back into text (bytes restored, the dummy-prefix space of the
// first piece dropped). Special ids (unk, bos, eos of the file) are skipped by decode().
Status create_byte_bpe_tokenizer(const Model& model, std::unique_ptr<Tokenizer>* out);

}  // namespace heed::tokenizer
