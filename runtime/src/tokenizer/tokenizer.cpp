// The parts every tokenizer shares (vocabulary lookups, ids <-> pieces) and the factory that reads
// a model's tokenizer section.
#include "heed/tokenizer.h"

#include <algorithm>
#include <cstring>

#include "tokenizer/byte_bpe.h"
#include "tokenizer/byte_level_bpe.h"
#include "tokenizer/unigram.h"
#include "tokenizer/wordpiece.h"
#include "loader/model_index.h"

namespace heed {
namespace {

const char* side_name(TokenizerSide side) { return side == TokenizerSide::kSource ? "source" : "target"; }

bool metadata_true(const fb::Model& index, const char* key) {
  if (!index.metadata()) return false;
  for (const auto* kv : *index.metadata()) {
    if (kv->key()->str() == key) return kv->value() && kv->value()->str() == "true";
  }
  return false;
}

bool metadata_has(const fb::Model& index, const char* key) {
  if (!index.metadata()) return false;
  for (const auto* kv : *index.metadata()) {
    if (kv->key()->str() == key) return true;
  }
  return false;
}

// WordPiece (BERT) models: casing rules from the metadata the hf-bert reader writes.
Status create_wordpiece(const fb::Model& index, std::vector<std::string> tokens, const TokenizerOptions& options,
                        std::unique_ptr<Tokenizer>* out) {
  tokenizer::WordPieceOptions wp;
  wp.lowercase = metadata_true(index, "tokenizer.do_lower_case");
  wp.strip_accents = metadata_has(index, "tokenizer.strip_accents") ? metadata_true(index, "tokenizer.strip_accents")
                                                                    : wp.lowercase;
  if (options.unk_id < 0 || static_cast<size_t>(options.unk_id) >= tokens.size()) {
    return invalid_file("the WordPiece tokenizer has no unknown token (unk_id)");
  }
  wp.unk_token = tokens[static_cast<size_t>(options.unk_id)];
  // Space-separated special tokens that text may contain verbatim ([CLS], [MASK], ...).
  if (index.metadata()) {
    for (const auto* kv : *index.metadata()) {
      if (kv->key()->str() != "tokenizer.never_split" || !kv->value()) continue;
      const std::string list = kv->value()->str();
      size_t i = 0;
      while (i < list.size()) {
        const size_t j = std::min(list.find(' ', i), list.size());
        if (j > i) wp.never_split.push_back(list.substr(i, j - i));
        i = j + 1;
      }
    }
  }
  return tokenizer::create_wordpiece_tokenizer(std::move(tokens), wp, options, out);
}

std::vector<std::string> tokens_of(const fb::Vocabulary* vocabulary) {
  std::vector<std::string> tokens;
  if (!vocabulary) return tokens;
  tokens.reserve(vocabulary->tokens()->size());
  for (const auto* t : *vocabulary->tokens()) tokens.push_back(t->str());
  return tokens;
}

}  // namespace

Tokenizer::~Tokenizer() = default;

Tokenizer::Tokenizer(std::vector<std::string> tokens, TokenizerOptions options)
    : tokens_(std::move(tokens)), options_(std::move(options)) {
  ids_.reserve(tokens_.size());
  for (size_t i = 0; i < tokens_.size(); ++i) ids_.emplace(tokens_[i], static_cast<int32_t>(i));  // first id wins
}

int32_t Tokenizer::id(std::string_view token) const {
  const auto it = ids_.find(std::string(token));
  return it == ids_.end() ? -1 : it->second;
}

Status Tokenizer::encode(std::string_view text, std::vector<int32_t>* ids) const {
  std::vector<std::string> pieces;
  return encode_with_pieces(text, &pieces, ids);
}

Status Tokenizer::encode_with_pieces(std::string_view text, std::vector<std::string>* pieces,
                                     std::vector<int32_t>* ids) const {
  HEED_RETURN_IF_ERROR(encode_pieces(text, pieces));
  ids->clear();
  ids->reserve(pieces->size());
  for (const std::string& piece : *pieces) {
    int32_t i = id(piece);
    if (i < 0) {
      if (options_.unk_id < 0) {
        return invalid_argument("'" + piece + "' is not in the vocabulary and the model has no unknown token");
      }
      i = options_.unk_id;
    }
    ids->push_back(i);
  }
  return Status::success();
}

Status Tokenizer::decode(const int32_t* ids, size_t n, std::string* text) const {
  std::vector<std::string> pieces;
  pieces.reserve(n);
  const auto& special = options_.special_ids;
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= tokens_.size()) {
      return invalid_argument("token id " + std::to_string(ids[i]) + " is outside the vocabulary (" +
                              std::to_string(tokens_.size()) + " tokens)");
    }
    if (std::find(special.begin(), special.end(), ids[i]) != special.end()) continue;
    pieces.push_back(tokens_[static_cast<size_t>(ids[i])]);
  }
  return decode_pieces(pieces, text);
}

bool has_source_side(const Model& model) {
  const fb::Tokenizer* tok = file_index(model).tokenizer();
  return tok && (tok->source_vocabulary() || tok->shared_vocabulary());
}

Status tokenizer_vocabulary(const Model& model, TokenizerSide side, std::vector<std::string>* tokens) {
  const fb::Tokenizer* tok = file_index(model).tokenizer();
  if (!tok) return invalid_file("the model has no tokenizer section");
  const bool source = side == TokenizerSide::kSource;
  const fb::Vocabulary* vocabulary = source ? tok->source_vocabulary() : tok->target_vocabulary();
  if (!vocabulary && tok->shared_vocabulary()) vocabulary = source ? tok->target_vocabulary() : tok->source_vocabulary();
  if (!vocabulary) return invalid_file(std::string("the model has no ") + side_name(side) + " vocabulary");
  *tokens = tokens_of(vocabulary);
  return Status::success();
}

namespace {

// The byte-level BPE's split into words (schema Tokenizer.split_pattern).
Status read_split_pattern(const fb::Tokenizer& tok, TokenizerOptions* options) {
  switch (tok.split_pattern()) {
    case fb::SplitPattern::Gpt2: return Status::success();
    case fb::SplitPattern::Llama3: options->split_pattern = TokenizerOptions::SplitPattern::kLlama3; return Status::success();
    case fb::SplitPattern::Qwen2: options->split_pattern = TokenizerOptions::SplitPattern::kQwen2; return Status::success();
    default: break;
  }
  return invalid_file("the tokenizer's split pattern " + std::to_string(static_cast<int>(tok.split_pattern())) +
                      " is newer than this heed");
}

}  // namespace

Status create_tokenizer(const Model& model, TokenizerSide side, std::unique_ptr<Tokenizer>* out) {
  const fb::Model& index = file_index(model);
  const fb::Tokenizer* tok = index.tokenizer();
  std::vector<std::string> tokens;
  HEED_RETURN_IF_ERROR(tokenizer_vocabulary(model, side, &tokens));
  const bool source = side == TokenizerSide::kSource;
  const std::vector<std::string> target = tokens_of(tok->target_vocabulary());
  // The file's special ids are target ids; the source side has the same tokens under its own ids.
  auto side_id = [&](int32_t target_id) -> int32_t {
    if (target_id < 0 || static_cast<size_t>(target_id) >= target.size()) return -1;
    if (!source) return target_id;
    const std::string& token = target[static_cast<size_t>(target_id)];
    const auto it = std::find(tokens.begin(), tokens.end(), token);
    return it == tokens.end() ? -1 : static_cast<int32_t>(it - tokens.begin());
  };
  TokenizerOptions options;
  options.unk_id = side_id(tok->unk_id());
  for (int32_t id : {tok->unk_id(), tok->bos_id(), tok->eos_id(), tok->pad_id(), tok->decoder_start_id()}) {
    const int32_t mapped = side_id(id);
    if (mapped >= 0) options.special_ids.push_back(mapped);
  }
  if (tok->special_ids()) {
    for (int32_t id : *tok->special_ids()) {
      const int32_t mapped = side_id(id);
      if (mapped >= 0) options.special_ids.push_back(mapped);
    }
  }
  options.language_code_prefix = metadata_true(index, "tokenizer.language_code_prefix");
  options.split_digits = tok->split_digits();
  HEED_RETURN_IF_ERROR(read_split_pattern(*tok, &options));

  switch (tok->kind()) {
    case fb::TokenizerKind::Whitespace:
      return create_whitespace_tokenizer(std::move(tokens), options, out);
    case fb::TokenizerKind::SentencePiece: {
      const flatbuffers::Vector<uint8_t>* bytes = source ? tok->source_model() : tok->target_model();
      if (!bytes || bytes->size() == 0) bytes = source ? tok->target_model() : tok->source_model();
      if (!bytes || bytes->size() == 0) return invalid_file("the SentencePiece tokenizer embeds no model");
      return create_sentencepiece_tokenizer(bytes->data(), bytes->size(), std::move(tokens), options, out);
    }
    case fb::TokenizerKind::WordPiece:  // BERT-family encoders
      return create_wordpiece(index, std::move(tokens), options, out);
    case fb::TokenizerKind::ByteBPE:  // decoder-only models: one vocabulary for both sides
      return tokenizer::create_byte_bpe_tokenizer(model, out);
    case fb::TokenizerKind::ByteLevelBPE: {  // GPT-2
      std::vector<std::string> merges;
      if (tok->merges()) {
        merges.reserve(tok->merges()->size());
        for (const auto* m : *tok->merges()) merges.push_back(m->str());
      }
      return tokenizer::create_byte_level_bpe_tokenizer(std::move(tokens), merges, options, out);
    }
    case fb::TokenizerKind::Unigram:  // tokenizer.json's Unigram (XLM-RoBERTa)
      return tokenizer::create_unigram_tokenizer(*tok, std::move(tokens), options, out);
    default:
      return unsupported_model(std::string("tokenizer kind ") + fb::EnumNameTokenizerKind(tok->kind()) +
                               " has no text tokenizer in heed yet");
  }
}

const char* tokenizer_kind_name(TokenizerKind kind) {
  switch (kind) {
    case TokenizerKind::Whitespace: return "Whitespace";
    case TokenizerKind::Characters: return "Characters";
    case TokenizerKind::SentencePiece: return "SentencePiece";
    case TokenizerKind::ByteBPE: return "ByteBPE";
    case TokenizerKind::WordPiece: return "WordPiece";
    case TokenizerKind::ByteLevelBPE: return "ByteLevelBPE";
    case TokenizerKind::Unigram: return "Unigram";
  }
  return "unknown";
}

}  // namespace heed
