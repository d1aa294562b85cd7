#include "tokenizer/precompiled_charsmap.h"

#include <cstring>

#include <utf8proc.h>

#include "heed/utf8.h"
#include "tokenizer/darts.h"
#include "tokenizer/sentencepiece_charsmap.h"

namespace heed::tokenizer {

Status PrecompiledCharsmap::create(std::string_view blob, PrecompiledCharsmap* out) {
  HEED_RETURN_IF_ERROR(check_precompiled_charsmap(blob));
  PrecompiledCharsmap map;
  if (!blob.empty()) {
    uint32_t trie_bytes = 0;
    std::memcpy(&trie_bytes, blob.data(), sizeof trie_bytes);
    map.units_.resize(trie_bytes / sizeof(uint32_t));
    std::memcpy(map.units_.data(), blob.data() + sizeof trie_bytes, map.units_.size() * sizeof(uint32_t));
    map.replacements_ = std::string(blob.substr(sizeof trie_bytes + trie_bytes));
  }
  *out = std::move(map);
  return Status::success();
}

// Darts-clone's common prefix search, stopped at its first (shortest) result, as `tokenizers`
// takes it. A NUL byte ends the key, as in Darts-clone.
bool PrecompiledCharsmap::transform(std::string_view chunk, std::string_view* replacement) const {
  if (units_.empty()) return false;
  uint32_t node = darts::offset(units_[0]);
  for (const char ch : chunk) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte == 0) return false;
    node ^= byte;
    const uint32_t unit = units_[node];
    if (darts::label(unit) != byte) return false;
    node ^= darts::offset(unit);
    if (darts::has_leaf(unit)) {
      const char* at = replacements_.data() + darts::value(units_[node]);
      *replacement = std::string_view(at, std::strlen(at));  // the check found its NUL
      return true;
    }
  }
  return false;
}

void PrecompiledCharsmap::normalize(std::string_view text, std::string* out) const {
  out->clear();
  out->reserve(text.size());
  const auto replace_each_character = [&](std::string_view cluster) {
    for (size_t i = 0; i < cluster.size();) {
      const size_t n = std::max<size_t>(1, text::utf8_sequence_length(cluster, i));
      std::string_view replacement;
      out->append(transform(cluster.substr(i, n), &replacement) ? replacement : cluster.substr(i, n));
      i += n;
    }
  };
  size_t begin = 0;
  utf8proc_int32_t state = 0;
  char32_t previous = 0;
  for (size_t i = 0; i <= text.size();) {
    char32_t c = 0;
    const size_t n = i < text.size() ? std::max<size_t>(1, text::utf8_sequence_length(text, i, &c)) : 0;
    const bool boundary = i == text.size() ||
                          (i > begin && utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(previous),
                                                                         static_cast<utf8proc_int32_t>(c), &state));
    if (boundary && i > begin) {
      const std::string_view cluster = text.substr(begin, i - begin);
      std::string_view replacement;
      if (cluster.size() < 6 && transform(cluster, &replacement)) {
        out->append(replacement);
      } else {
        replace_each_character(cluster);
      }
      begin = i;
    }
    if (i == text.size()) break;
    previous = c;
    i += n;
  }
}

}  // namespace heed::tokenizer
