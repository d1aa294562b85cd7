// Whitespace tokens: the text is already tokenized (as CTranslate2 / OpenNMT vocabularies expect);
// tokens are separated by runs of spaces, tabs or line breaks.
#include "heed/tokenizer.h"

namespace heed {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class WhitespaceTokenizer final : public Tokenizer {
 public:
  WhitespaceTokenizer(std::vector<std::string> tokens, TokenizerOptions options)
      : Tokenizer(std::move(tokens), std::move(options)) {}

  Status encode_pieces(std::string_view text, std::vector<std::string>* pieces) const override {
    pieces->clear();
    size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && is_space(text[i])) ++i;
      const size_t start = i;
      while (i < text.size() && !is_space(text[i])) ++i;
      if (i > start) pieces->emplace_back(text.substr(start, i - start));
    }
    return Status::success();
  }

  Status decode_pieces(const std::vector<std::string>& pieces, std::string* text) const override {
    text->clear();
    for (size_t i = 0; i < pieces.size(); ++i) {
      if (i) text->push_back(' ');
      text->append(pieces[i]);
    }
    return Status::success();
  }
};

}  // namespace

Status create_whitespace_tokenizer(std::vector<std::string> vocabulary, const TokenizerOptions& options,
                                   std::unique_ptr<Tokenizer>* out) {
  if (vocabulary.empty()) return invalid_argument("a whitespace tokenizer needs a vocabulary");
  out->reset(new WhitespaceTokenizer(std::move(vocabulary), options));
  return Status::success();
}

}  // namespace heed
