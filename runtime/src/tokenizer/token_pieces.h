// The text each token of a model's target vocabulary adds when output is streamed one token at a
// time (the Generator's on_token, the C API's streaming translation): SentencePiece pieces with
// U+2581 as a space and byte-fallback pieces as their byte, byte-level BPE symbols as their bytes,
// llama2.c's BPE by its own rules, whitespace tokens separated by one space. Built once per
// session; piece() returns views, so streaming allocates nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "heed/model.h"
#include "heed/status.h"
#include "heed/tokenizer.h"

namespace heed::tokenizer {

class ByteBpe;

class TokenPieces {
 public:
  // The model's target vocabulary (the only one of decoder-only models). `bpe`: the model's
  // llama2.c BPE when it has one (ByteBPE kind; kept by the caller, must outlive this).
  Status load(const Model& model, const ByteBpe* bpe = nullptr);

  // The text of `token` after `previous` (-1: nothing before it); a view valid while this lives.
  // The first piece after nothing or the start token loses SentencePiece's word-start space, and
  // a whitespace token gets no separating space there.
  std::string_view piece(int32_t previous, int32_t token) const;

  TokenizerKind kind() const { return kind_; }
  const std::vector<std::string>& tokens() const { return tokens_; }
  int32_t bos_id() const { return bos_id_; }

 private:
  TokenizerKind kind_ = TokenizerKind::Whitespace;
  int32_t bos_id_ = -1;
  const ByteBpe* bpe_ = nullptr;
  std::vector<std::string> tokens_;  // the vocabulary as stored
  // Whitespace: " " + token; SentencePiece, byte-level BPE: each piece's text.
  std::vector<std::string> spaced_tokens_;
};

}  // namespace heed::tokenizer
