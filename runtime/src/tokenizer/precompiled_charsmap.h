// SentencePiece's precompiled charsmap (the normalization table inside a .model file, which
// tokenizer.json's Precompiled normalizer carries) applied the way the `tokenizers` library applies
// it, not the way SentencePiece does: the text is cut into extended grapheme clusters; a cluster
// shorter than 6 bytes whose start matches a key of the table becomes that key's replacement (the
// shortest matching key, for the whole cluster), any other cluster is replaced character by
// character. Matching `tokenizers` here is what makes Unigram ids equal to the library's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "heed/status.h"

namespace heed::tokenizer {

class PrecompiledCharsmap {
 public:
  // `blob`: [uint32 trie bytes][Darts trie units][NUL-terminated replacements]; checked first
  // (check_precompiled_charsmap), so normalizing never reads outside it.
  static Status create(std::string_view blob, PrecompiledCharsmap* out);

  // `text` must be valid UTF-8; the result replaces *out.
  void normalize(std::string_view text, std::string* out) const;

 private:
  // The replacement of the shortest key that starts `chunk`; false when no key does.
  bool transform(std::string_view chunk, std::string_view* replacement) const;

  std::vector<uint32_t> units_;
  std::string replacements_;
};

}  // namespace heed::tokenizer
