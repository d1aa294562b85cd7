// Finds special tokens ([CLS], [MASK], <|endoftext|>, ...) written in text, as the tokenizers split
// them out before tokenizing the text between them. One left-to-right scan over a trie of the
// tokens: each position costs at most the longest token's length in steps, whatever the number of
// tokens, so splitting is linear in the text. (Searching the text for each token from each match,
// as before, was quadratic: a megabyte of "[MASK]" took seconds, and every extra token absent
// from the text added a scan of the rest of the text per match.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace heed::tokenizer {

class SpecialTokens {
 public:
  SpecialTokens() = default;
  // Empty tokens are ignored; a token given twice is kept once (its first index).
  explicit SpecialTokens(const std::vector<std::string>& tokens);

  struct Match {
    size_t at = std::string_view::npos;  // npos: no token at or after `from`
    size_t length = 0;
    size_t index = 0;  // of the token in the constructor's list
  };
  // The leftmost token occurrence at or after `from`; at the same place, the longest token.
  Match find(std::string_view text, size_t from) const;

  bool empty() const { return nodes_.size() <= 1; }

 private:
  struct Node {
    // Children sorted by byte. Special tokens are few and short: a sorted vector beats a map.
    std::vector<std::pair<unsigned char, uint32_t>> children;
    int64_t token = -1;  // index of the token ending here, -1: none
  };
  uint32_t child(uint32_t node, unsigned char byte) const;  // 0 (the root): none
  Match longest_at(std::string_view text, size_t at) const;

  std::vector<Node> nodes_{Node{}};  // nodes_[0] is the root
  bool first_byte_[256] = {};        // bytes a token starts with: other positions are skipped at once
};

}  // namespace heed::tokenizer
