#include "tokenizer/byte_bpe.h"

#include <cstdio>

namespace heed::tokenizer {

Status ByteBpe::create(std::vector<std::string> tokens, std::vector<float> scores, int32_t unk_id, int32_t bos_id,
                       int32_t eos_id, ByteBpe* out) {
  if (tokens.empty()) return invalid_file("byte BPE tokenizer: empty vocabulary");
  if (scores.size() != tokens.size()) {
    return invalid_file("byte BPE tokenizer: " + std::to_string(scores.size()) + " merge scores for " +
                        std::to_string(tokens.size()) + " tokens");
  }
  const auto valid = [&](int32_t id) { return id == -1 || (id >= 0 && static_cast<size_t>(id) < tokens.size()); };
  if (!valid(unk_id) || !valid(bos_id) || !valid(eos_id)) {
    return invalid_file("byte BPE tokenizer: a special id is outside the vocabulary");
  }
  ByteBpe t;
  t.tokens_ = std::move(tokens);
  t.scores_ = std::move(scores);
  t.unk_id_ = unk_id;
  t.bos_id_ = bos_id;
  t.eos_id_ = eos_id;
  t.ids_.reserve(t.tokens_.size());
  for (size_t i = 0; i < t.tokens_.size(); ++i) t.ids_.emplace(t.tokens_[i], static_cast<int32_t>(i));  // first wins
  t.byte_of_.assign(t.tokens_.size(), -1);
  for (int b = 0; b < 256; ++b) {
    t.bytes_[b] = static_cast<char>(b);
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    t.byte_ids_[b] = t.id(name);
    if (t.byte_ids_[b] >= 0) t.byte_of_[static_cast<size_t>(t.byte_ids_[b])] = static_cast<int16_t>(b);
  }
  *out = std::move(t);
  return Status::ok();
}

Status ByteBpe::from_index(const fb::Tokenizer* tok, ByteBpe* out) {
  if (tok == nullptr || tok->target_vocabulary() == nullptr) return invalid_file("the model has no vocabulary");
  if (tok->kind() != fb::TokenizerKind::ByteBPE) return invalid_argument("the model's tokenizer is not ByteBPE");
  const fb::Vocabulary* v = tok->target_vocabulary();
  std::vector<std::string> tokens;
  tokens.reserve(v->tokens()->size());
  for (const auto* s : *v->tokens()) tokens.emplace_back(s->data(), s->size());
  std::vector<float> scores;
  if (v->scores() != nullptr) scores.assign(v->scores()->begin(), v->scores()->end());
  return create(std::move(tokens), std::move(scores), tok->unk_id(), tok->bos_id(), tok->eos_id(), out);
}

int32_t ByteBpe::id(std::string_view piece) const {
  const auto it = ids_.find(piece);
  return it == ids_.end() ? -1 : it->second;
}

Status ByteBpe::encode(std::string_view text, bool add_bos, bool add_eos, std::vector<int32_t>* ids) const {
  std::vector<int32_t> t;
  if (!text.empty()) {
    const int32_t space = id(" ");
    if (space >= 0) t.push_back(space);
  }
  for (size_t i = 0; i < text.size();) {
    // One UTF-8 character: the lead byte and up to 3 continuation bytes (10xxxxxx).
    size_t n = 1;
    while (i + n < text.size() && n < 4 && (static_cast<unsigned char>(text[i + n]) & 0xC0) == 0x80) ++n;
    const int32_t whole = id(text.substr(i, n));
    if (whole >= 0) {
      t.push_back(whole);
    } else {
      for (size_t j = 0; j < n; ++j) {
        const int32_t b = byte_ids_[static_cast<unsigned char>(text[i + j])];
        if (b < 0 && unk_id_ < 0) {
          return invalid_argument("byte BPE tokenizer: byte " + std::to_string(static_cast<unsigned char>(text[i + j])) +
                                  " has no piece and the vocabulary has no <unk>");
        }
        t.push_back(b >= 0 ? b : unk_id_);
      }
    }
    i += n;
  }
  std::string pair;
  while (t.size() > 1) {
    float best_score = 0;
    int32_t best_id = -1;
    size_t best_at = 0;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      pair = tokens_[static_cast<size_t>(t[i])];
      pair += tokens_[static_cast<size_t>(t[i + 1])];
      const int32_t merged = id(pair);
      if (merged >= 0 && (best_id < 0 || scores_[static_cast<size_t>(merged)] > best_score)) {
        best_score = scores_[static_cast<size_t>(merged)];
        best_id = merged;
        best_at = i;
      }
    }
    if (best_id < 0) break;
    t[best_at] = best_id;
    t.erase(t.begin() + static_cast<std::ptrdiff_t>(best_at) + 1);
  }
  if (add_bos && bos_id_ >= 0) ids->push_back(bos_id_);
  ids->insert(ids->end(), t.begin(), t.end());
  if (add_eos && eos_id_ >= 0) ids->push_back(eos_id_);
  return Status::ok();
}

std::string_view ByteBpe::piece(int32_t previous, int32_t token) const {
  if (token < 0 || static_cast<size_t>(token) >= tokens_.size()) return {};
  const int16_t byte = byte_of_[static_cast<size_t>(token)];
  if (byte >= 0) return std::string_view(bytes_ + byte, 1);
  std::string_view p = tokens_[static_cast<size_t>(token)];
  if (previous >= 0 && previous == bos_id_ && !p.empty() && p[0] == ' ') p.remove_prefix(1);
  return p;
}

std::string ByteBpe::decode(const int32_t* ids, size_t n, int32_t previous) const {
  std::string text;
  for (size_t i = 0; i < n; ++i) {
    text += piece(previous, ids[i]);
    previous = ids[i];
  }
  return text;
}

}  // namespace heed::tokenizer
