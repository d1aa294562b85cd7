#include "tokenizer/byte_bpe.h"


#include <cmath>
#include <cstdio>
#include <queue>

namespace heed::tokenizer {

Status ByteBpe::create(std::vector<std::string> tokens, std::vector<float> scores, int32_t unk_id, int32_t bos_id,
                       int32_t eos_id, ByteBpe* out) {
  if (tokens.empty()) return invalid_file("byte BPE tokenizer: empty vocabulary");
  if (scores.size() != tokens.size()) {
    return invalid_file("byte BPE tokenizer: " + std::to_string(scores.size()) + " merge scores for " +
                        std::to_string(tokens.size()) + " tokens");
  }
  // The merge order compares scores: a NaN would make it depend on the algorithm's visiting order.
  for (size_t i = 0; i < scores.size(); ++i) {
    if (std::isnan(scores[i])) return invalid_file("byte BPE tokenizer: token " + std::to_string(i) + " has a NaN merge score");
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
  return Status::success();
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
  merge(&t);
  if (add_bos && bos_id_ >= 0) ids->push_back(bos_id_);
  ids->insert(ids->end(), t.begin(), t.end());
  if (add_eos && eos_id_ >= 0) ids->push_back(eos_id_);
  return Status::success();
}

// llama2.c merges by rescanning every pair after each merge, which is quadratic in the text length
// (a 40 KB prompt took minutes). The same merges in O(n log n): the tokens form a linked list, the
// candidate pairs sit in a heap ordered by score and then by position (every token keeps the
// position of its first character, so "leftmost" is the same in both), and pairs made stale by a
// merge are skipped when they reach the top.
void ByteBpe::merge(std::vector<int32_t>* tokens) const {
  std::vector<int32_t>& t = *tokens;
  const size_t n = t.size();
  if (n < 2) return;
  constexpr size_t kNone = static_cast<size_t>(-1);
  std::vector<size_t> next(n), prev(n);
  for (size_t i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? i + 1 : kNone;
    prev[i] = i > 0 ? i - 1 : kNone;
  }
  struct Candidate {
    float score;
    size_t left, right;
    int32_t left_id, right_id, merged;
  };
  // "Less" for the max-heap: the lower score, or on equal scores the later position.
  const auto worse = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(worse)> heap(worse);
  std::string pair;
  const auto consider = [&](size_t left, size_t right) {
    if (left == kNone || right == kNone) return;
    pair = tokens_[static_cast<size_t>(t[left])];
    pair += tokens_[static_cast<size_t>(t[right])];
    const int32_t merged = id(pair);
    if (merged >= 0) heap.push({scores_[static_cast<size_t>(merged)], left, right, t[left], t[right], merged});
  };
  for (size_t i = 0; i + 1 < n; ++i) consider(i, i + 1);
  std::vector<bool> alive(n, true);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    // Stale: one side was merged away or into something else since the pair was pushed.
    if (!alive[c.left] || !alive[c.right] || next[c.left] != c.right || t[c.left] != c.left_id ||
        t[c.right] != c.right_id) {
      continue;
    }
    t[c.left] = c.merged;
    alive[c.right] = false;
    next[c.left] = next[c.right];
    if (next[c.right] != kNone) prev[next[c.right]] = c.left;
    consider(prev[c.left], c.left);
    consider(c.left, next[c.left]);
  }
  size_t out = 0;
  for (size_t i = 0; i != kNone; i = next[i]) t[out++] = t[i];
  t.resize(out);
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
