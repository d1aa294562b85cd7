#include "tokenizer/unigram_model.h"

#include <algorithm>
#include <cstdio>

#include "heed/utf8.h"

namespace heed::tokenizer {

Status UnigramModel::create(const Tokenizer* vocabulary, std::vector<double> scores, int32_t unk_id, bool byte_fallback,
                            UnigramModel* out) {
  const size_t n = vocabulary->vocabulary_size();
  if (scores.size() != n) return invalid_file("the Unigram tokenizer has no score for every piece");
  if (unk_id < 0 || static_cast<size_t>(unk_id) >= n) return invalid_file("the Unigram tokenizer has no unknown token");
  UnigramModel m;
  m.vocabulary_ = vocabulary;
  m.scores_ = std::move(scores);
  m.unk_id_ = unk_id;
  m.byte_fallback_ = byte_fallback;
  double lowest = 0.0;
  for (size_t i = 0; i < m.scores_.size(); ++i) lowest = i == 0 ? m.scores_[0] : std::min(lowest, m.scores_[i]);
  m.unk_score_ = lowest - 10.0;  // tokenizers' K_UNK_PENALTY
  for (size_t i = 0; i < n; ++i) {
    if (!m.piece(static_cast<int32_t>(i)).empty()) m.sorted_.push_back(static_cast<int32_t>(i));
  }
  std::stable_sort(m.sorted_.begin(), m.sorted_.end(), [&](int32_t a, int32_t b) { return m.piece(a) < m.piece(b); });
  *out = std::move(m);
  return Status::success();
}

// The ids sorted by piece: the pieces sharing text[at, at + k) form one range, which each further
// byte narrows by two binary searches; a piece exactly k + 1 bytes long sorts first in its range.
template <typename Found>
void UnigramModel::pieces_at(std::string_view text, size_t at, Found found) const {
  auto lo = sorted_.begin(), hi = sorted_.end();
  for (size_t k = 0; at + k < text.size() && lo != hi; ++k) {
    const int byte = static_cast<unsigned char>(text[at + k]);
    const auto key = [&](int32_t id) {
      const std::string& p = piece(id);
      return p.size() > k ? static_cast<int>(static_cast<unsigned char>(p[k])) : -1;
    };
    lo = std::partition_point(lo, hi, [&](int32_t id) { return key(id) < byte; });
    hi = std::partition_point(lo, hi, [&](int32_t id) { return key(id) <= byte; });
    if (lo != hi && piece(*lo).size() == k + 1) found(*lo, k + 1);
  }
}

bool UnigramModel::has_piece(const std::string& text) const {
  const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), text,
                                   [&](int32_t id, const std::string& t) { return piece(id) < t; });
  return it != sorted_.end() && piece(*it) == text;
}

// A piece of the best path; an unknown one the vocabulary lacks becomes byte pieces when it can.
void UnigramModel::append_piece(std::string text, std::vector<std::string>* out) const {
  if (byte_fallback_ && !has_piece(text)) {
    std::vector<std::string> bytes;
    for (const char c : text) {
      char name[8];
      std::snprintf(name, sizeof name, "<0x%02X>", static_cast<unsigned>(static_cast<unsigned char>(c)));
      if (!has_piece(name)) break;
      bytes.emplace_back(name);
    }
    if (bytes.size() == text.size()) {
      out->insert(out->end(), bytes.begin(), bytes.end());
      return;
    }
  }
  out->push_back(std::move(text));
}

void UnigramModel::encode(std::string_view word, std::vector<std::string>* out) const {
  if (word.empty()) return;
  std::vector<Best> best(word.size() + 1);
  best[0].start = 0;
  for (size_t at = 0; at < word.size();) {
    const double here = best[at].score;
    const size_t char_length = std::max<size_t>(1, text::utf8_sequence_length(word, at));
    bool single = false;
    const auto offer = [&](int32_t id, size_t length, double score) {
      Best& b = best[at + length];
      if (b.start == SIZE_MAX || here + score > b.score) b = Best{here + score, at, id};
    };
    pieces_at(word, at, [&](int32_t id, size_t length) {
      offer(id, length, scores_[static_cast<size_t>(id)]);
      single = single || length == char_length;
    });
    if (!single) offer(unk_id_, char_length, unk_score_);
    at += char_length;
  }
  // Back from the end; a run of unknown pieces, text[end, run_end), fuses into one.
  std::vector<std::string> pieces;
  size_t run_end = std::string_view::npos;
  for (size_t end = word.size(); end > 0; end = best[end].start) {
    if (best[end].id == unk_id_) {
      if (run_end == std::string_view::npos) run_end = end;
      continue;
    }
    if (run_end != std::string_view::npos) pieces.emplace_back(word.substr(end, run_end - end));
    run_end = std::string_view::npos;
    pieces.emplace_back(word.substr(best[end].start, end - best[end].start));
  }
  if (run_end != std::string_view::npos) pieces.emplace_back(word.substr(0, run_end));
  for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) append_piece(std::move(*it), out);
}

}  // namespace heed::tokenizer
