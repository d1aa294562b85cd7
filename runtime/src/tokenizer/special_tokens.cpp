#include "tokenizer/special_tokens.h"

#include <algorithm>

namespace heed::tokenizer {

SpecialTokens::SpecialTokens(const std::vector<std::string>& tokens) {
  for (size_t t = 0; t < tokens.size(); ++t) {
    const std::string& token = tokens[t];
    if (token.empty()) continue;
    uint32_t node = 0;
    for (unsigned char byte : token) {
      uint32_t next = child(node, byte);
      if (next == 0) {
        next = static_cast<uint32_t>(nodes_.size());
        nodes_.emplace_back();  // may move nodes_: the parent is looked up again below
        auto& children = nodes_[node].children;
        const auto at = std::lower_bound(children.begin(), children.end(), std::make_pair(byte, uint32_t{0}));
        children.insert(at, {byte, next});
      }
      node = next;
    }
    if (nodes_[node].token < 0) nodes_[node].token = static_cast<int64_t>(t);
    first_byte_[static_cast<unsigned char>(token[0])] = true;
  }
}

uint32_t SpecialTokens::child(uint32_t node, unsigned char byte) const {
  const auto& children = nodes_[node].children;
  const auto it = std::lower_bound(children.begin(), children.end(), std::make_pair(byte, uint32_t{0}));
  return it != children.end() && it->first == byte ? it->second : 0;
}

// The longest token starting exactly at `at`: a walk down the trie, at most as deep as the
// longest token.
SpecialTokens::Match SpecialTokens::longest_at(std::string_view text, size_t at) const {
  Match m;
  uint32_t node = 0;
  for (size_t i = at; i < text.size(); ++i) {
    node = child(node, static_cast<unsigned char>(text[i]));
    if (node == 0) break;
    if (nodes_[node].token >= 0) m = Match{at, i + 1 - at, static_cast<size_t>(nodes_[node].token)};
  }
  return m;
}

SpecialTokens::Match SpecialTokens::find(std::string_view text, size_t from) const {
  if (empty()) return Match{};
  for (size_t at = from; at < text.size(); ++at) {
    if (!first_byte_[static_cast<unsigned char>(text[at])]) continue;
    const Match m = longest_at(text, at);
    if (m.at != std::string_view::npos) return m;
  }
  return Match{};
}

}  // namespace heed::tokenizer
