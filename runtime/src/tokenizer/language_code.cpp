#include "tokenizer/language_code.h"

namespace heed {
namespace {

// End of the greedy match of ">>.+<<" starting at `at`, or npos. '.' excludes line breaks, so the
// match ends at the last "<<" of the line that leaves at least one character after ">>".
size_t match_end(std::string_view s, size_t at) {
  if (s.compare(at, 2, ">>") != 0) return std::string_view::npos;
  size_t line_end = s.find('\n', at);
  if (line_end == std::string_view::npos) line_end = s.size();
  if (line_end < at + 5) return std::string_view::npos;
  const size_t close = s.substr(0, line_end).rfind("<<");
  if (close == std::string_view::npos || close < at + 3) return std::string_view::npos;
  return close + 2;
}

}  // namespace

void split_language_code(std::string_view text, std::string* code, std::string* rest) {
  code->clear();
  rest->clear();
  const size_t first = match_end(text, 0);
  if (first != std::string_view::npos) code->assign(text.substr(0, first));
  for (size_t i = 0; i < text.size();) {
    const size_t end = match_end(text, i);
    if (end != std::string_view::npos) {
      i = end;
    } else {
      rest->push_back(text[i++]);
    }
  }
}

}  // namespace heed
