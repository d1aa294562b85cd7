#include "tokenizer/token_pieces.h"

#include "loader/model_index.h"
#include "tokenizer/byte_bpe.h"
#include "tokenizer/byte_level_bpe.h"

namespace heed::tokenizer {

namespace {

// The text a SentencePiece piece stands for when streamed: U+2581 is a space, a byte-fallback
// piece <0xXX> is that byte, control pieces (<s>, </s>) are nothing.
std::string sentencepiece_text(const std::string& piece, bool special) {
  if (special) return {};
  static const std::string kMark = "\xE2\x96\x81";
  if (piece.size() == 6 && piece.compare(0, 3, "<0x") == 0 && piece[5] == '>') {
    const auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    const int hi = hex(piece[3]), lo = hex(piece[4]);
    if (hi >= 0 && lo >= 0) return std::string(1, static_cast<char>(hi * 16 + lo));
  }
  std::string text;
  for (size_t i = 0; i < piece.size();) {
    if (piece.compare(i, kMark.size(), kMark) == 0) {
      text += ' ';
      i += kMark.size();
    } else {
      text += piece[i++];
    }
  }
  return text;
}

// A byte-level BPE token's bytes (a token that is not made of its symbols, such as an added
// special token, streams as written; the start and end tokens are nothing).
std::string byte_level_text(const std::string& token, bool special) {
  std::string bytes;
  if (special) return bytes;
  if (!symbols_to_bytes(token, &bytes)) bytes = token;
  return bytes;
}

}  // namespace

Status TokenPieces::load(const Model& model, const ByteBpe* bpe) {
  const fb::Tokenizer* tok = file_index(model).tokenizer();
  if (tok == nullptr || tok->target_vocabulary() == nullptr) return invalid_file("the model has no vocabulary");
  kind_ = api_tokenizer_kind(tok->kind());
  bos_id_ = tok->bos_id();
  bpe_ = bpe;
  const auto* tokens = tok->target_vocabulary()->tokens();
  tokens_.clear();
  tokens_.reserve(tokens->size());
  for (const auto* s : *tokens) tokens_.emplace_back(s->data(), s->size());
  spaced_tokens_.clear();
  spaced_tokens_.reserve(tokens_.size());
  for (size_t i = 0; i < tokens_.size(); ++i) {
    const int32_t id = static_cast<int32_t>(i);
    const bool special = id == tok->bos_id() || id == tok->eos_id();
    if (kind_ == TokenizerKind::SentencePiece) {
      spaced_tokens_.push_back(sentencepiece_text(tokens_[i], special));
    } else if (kind_ == TokenizerKind::ByteLevelBPE) {
      spaced_tokens_.push_back(byte_level_text(tokens_[i], special));
    } else {
      spaced_tokens_.push_back(" " + tokens_[i]);
    }
  }
  return Status::success();
}

std::string_view TokenPieces::piece(int32_t previous, int32_t token) const {
  if (token < 0 || static_cast<size_t>(token) >= tokens_.size()) return {};
  if (bpe_ != nullptr) return bpe_->piece(previous, token);
  const bool first = previous < 0 || previous == bos_id_;
  if (kind_ == TokenizerKind::SentencePiece || kind_ == TokenizerKind::ByteLevelBPE) {
    std::string_view text = spaced_tokens_[static_cast<size_t>(token)];
    // SentencePiece marks word starts with a space; the text's first word has none. (Byte-level
    // BPE pieces hold their spaces as written.)
    if (kind_ == TokenizerKind::SentencePiece && first && !text.empty() && text[0] == ' ') text.remove_prefix(1);
    return text;
  }
  // Whitespace tokens: separated by one space, none before the first.
  return first ? tokens_[static_cast<size_t>(token)] : spaced_tokens_[static_cast<size_t>(token)];
}

}  // namespace heed::tokenizer
