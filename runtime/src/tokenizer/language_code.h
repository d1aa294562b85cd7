// OPUS-MT's target-language tags: multilingual models expect ">>deu<<" (any ">>...<<") in front of
// the source. MarianTokenizer keeps a leading tag as one piece and removes every tag from the
// text SentencePiece sees (regular expression ">>.+<<": greedy, within one line).
#pragma once

#include <string>
#include <string_view>

namespace heed {

// `code`: the tag at the start of `text` (empty when none); `rest`: `text` without any tag.
void split_language_code(std::string_view text, std::string* code, std::string* rest);

}  // namespace heed
