#include "tokenizer/language_code.h"

#include <algorithm>

namespace heed {
namespace {

// The end of the greedy match of ">>.+<<" starting at `at` of a line whose last "<<" starts at
// `close` (npos: none), or npos. '.' excludes line breaks, so the match ends at the line's last
// "<<" when that leaves at least one character after ">>".
size_t match_end(std::string_view s, size_t at, size_t close) {
  if (s.compare(at, 2, ">>") != 0) return std::string_view::npos;
  if (close == std::string_view::npos || close < at + 3) return std::string_view::npos;
  return close + 2;
}

// Where the last "<<" of s[begin, end) starts, or npos.
size_t last_close(std::string_view s, size_t begin, size_t end) {
  const size_t close = s.substr(0, end).rfind("<<");
  return close == std::string_view::npos || close < begin ? std::string_view::npos : close;
}

}  // namespace

// Line by line, each line's last "<<" found once: looking for it again from every ">>" (as
// before) was quadratic in a line of ">>>>...".
void split_language_code(std::string_view text, std::string* code, std::string* rest) {
  code->clear();
  rest->clear();
  for (size_t begin = 0; begin < text.size();) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    const size_t close = last_close(text, begin, end);
    if (begin == 0 && match_end(text, 0, close) != std::string_view::npos) {
      code->assign(text.substr(0, match_end(text, 0, close)));
    }
    size_t i = begin;
    while (i < end) {
      const size_t match = match_end(text, i, close);
      if (match != std::string_view::npos) {
        i = match;
      } else {
        rest->push_back(text[i++]);
      }
    }
    if (end < text.size()) rest->push_back('\n');
    begin = end + 1;
  }
}

}  // namespace heed
