// WordPiece (BERT) tokenization over utf8proc's Unicode tables; wordpiece.h states the rules.
#include <cstdlib>
#include <utf8proc.h>

#include "heed/utf8.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/wordpiece.h"

namespace heed::tokenizer {
namespace {

using Codepoints = std::vector<utf8proc_int32_t>;

bool is_other(utf8proc_category_t c) {  // category C*: Cc, Cf, Cs, Co, Cn
  return c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CS ||
         c == UTF8PROC_CATEGORY_CO || c == UTF8PROC_CATEGORY_CN;
}

bool is_bert_whitespace(utf8proc_int32_t cp) {
  if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') return true;
  return utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS;
}

bool is_bert_control(utf8proc_int32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  return is_other(utf8proc_category(cp));
}

// Python's str.split() separators that survive cleaning: spaces, line and paragraph separators.
bool is_split_space(utf8proc_int32_t cp) {
  if (cp == ' ') return true;
  const utf8proc_category_t c = utf8proc_category(cp);
  return c == UTF8PROC_CATEGORY_ZS || c == UTF8PROC_CATEGORY_ZL || c == UTF8PROC_CATEGORY_ZP;
}

bool is_bert_punctuation(utf8proc_int32_t cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) {
    return true;
  }
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_PC: case UTF8PROC_CATEGORY_PD: case UTF8PROC_CATEGORY_PS: case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI: case UTF8PROC_CATEGORY_PF: case UTF8PROC_CATEGORY_PO:
      return true;
    default:
      return false;
  }
}

// The ranges BERT treats as CJK ideographs (not Hangul, Hiragana or Katakana).
bool is_cjk(utf8proc_int32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

Status decode_utf8(std::string_view text, Codepoints* out) {
  out->clear();
  size_t i = 0;
  while (i < text.size()) {
    char32_t cp = 0;
    const size_t n = heed::text::utf8_sequence_length(text, i, &cp);
    if (n == 0) return invalid_argument("the text is not valid UTF-8 (byte " + std::to_string(i) + ")");
    out->push_back(static_cast<utf8proc_int32_t>(cp));
    i += n;
  }
  return Status::success();
}

void append_utf8(utf8proc_int32_t cp, std::string* out) {
  utf8proc_uint8_t buf[4];
  const utf8proc_ssize_t n = utf8proc_encode_char(cp, buf);
  out->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

// Canonical composition (NFC) of a code point sequence, in place (utf8proc_map decomposes,
// orders the combining marks canonically and composes).
Status compose(Codepoints* cps) {
  if (cps->empty()) return Status::success();
  std::string utf8;
  utf8.reserve(cps->size() * 2);
  for (utf8proc_int32_t cp : *cps) append_utf8(cp, &utf8);
  utf8proc_uint8_t* composed = nullptr;
  const utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(utf8.data()), static_cast<utf8proc_ssize_t>(utf8.size()),
                   &composed, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0) return invalid_argument(std::string("text normalization failed: ") + utf8proc_errmsg(n));
  const Status status = decode_utf8(std::string_view(reinterpret_cast<const char*>(composed), static_cast<size_t>(n)), cps);
  std::free(composed);
  return status;
}

// Lowercase and/or accent stripping of one word.
Codepoints fold_word(const Codepoints& word, bool lowercase, bool strip_accents) {
  Codepoints out;
  out.reserve(word.size());
  for (utf8proc_int32_t cp : word) {
    if (lowercase) cp = utf8proc_tolower(cp);
    if (!strip_accents) {
      out.push_back(cp);
      continue;
    }
    utf8proc_int32_t parts[32];
    int boundclass = 0;
    const utf8proc_ssize_t k = utf8proc_decompose_char(cp, parts, 32, UTF8PROC_DECOMPOSE, &boundclass);
    if (k < 0 || k > 32) {
      out.push_back(cp);
      continue;
    }
    for (utf8proc_ssize_t i = 0; i < k; ++i) {
      if (utf8proc_category(parts[i]) != UTF8PROC_CATEGORY_MN) out.push_back(parts[i]);
    }
  }
  return out;
}

class WordPieceTokenizer final : public Tokenizer {
 public:
  WordPieceTokenizer(std::vector<std::string> tokens, WordPieceOptions wordpiece, TokenizerOptions options)
      : Tokenizer(std::move(tokens), std::move(options)), wp_(std::move(wordpiece)), specials_(wp_.never_split) {}

  Status encode_pieces(std::string_view text, std::vector<std::string>* pieces) const override {
    pieces->clear();
    std::vector<std::string> words;
    size_t begin = 0;
    while (begin <= text.size()) {
      // The next special token in the text (leftmost, then longest); the text before it is plain.
      const SpecialTokens::Match m = specials_.find(text, begin);
      const size_t end = m.at == std::string_view::npos ? text.size() : m.at;
      HEED_RETURN_IF_ERROR(basic_tokenize(text.substr(begin, end - begin), wp_, &words));
      for (const std::string& word : words) split_word(word, pieces);
      if (m.at == std::string_view::npos) break;
      pieces->emplace_back(text.substr(m.at, m.length));
      begin = m.at + m.length;
    }
    return Status::success();
  }

  // Pieces joined by spaces, "##" continuations glued to the piece before them.
  Status decode_pieces(const std::vector<std::string>& pieces, std::string* text) const override {
    text->clear();
    const std::string& cont = wp_.continuation;
    for (const std::string& piece : pieces) {
      if (!text->empty() && piece.compare(0, cont.size(), cont) == 0) {
        text->append(piece, cont.size(), std::string::npos);
        continue;
      }
      if (!text->empty()) text->push_back(' ');
      text->append(piece);
    }
    return Status::success();
  }

 private:
  void split_word(const std::string& word, std::vector<std::string>* pieces) const {
    // Byte offsets of the word's characters (the word is valid UTF-8: it came from basic_tokenize).
    std::vector<size_t> starts;
    for (size_t i = 0; i < word.size(); ++i) {
      if ((static_cast<unsigned char>(word[i]) & 0xC0) != 0x80) starts.push_back(i);
    }
    if (starts.size() > wp_.max_chars_per_word) {
      pieces->push_back(wp_.unk_token);
      return;
    }
    starts.push_back(word.size());
    const size_t first = pieces->size();
    std::string candidate;
    size_t begin = 0;  // index into starts
    while (begin + 1 < starts.size()) {
      size_t end = starts.size() - 1;
      bool found = false;
      while (end > begin) {
        candidate.assign(begin > 0 ? wp_.continuation : std::string());
        candidate.append(word, starts[begin], starts[end] - starts[begin]);
        if (id(candidate) >= 0) {
          found = true;
          break;
        }
        --end;
      }
      if (!found) {
        pieces->resize(first);
        pieces->push_back(wp_.unk_token);
        return;
      }
      pieces->push_back(candidate);
      begin = end;
    }
  }

  WordPieceOptions wp_;
  SpecialTokens specials_;  // wp_.never_split, found in one scan of the text
};

}  // namespace

Status basic_tokenize(std::string_view text, const WordPieceOptions& options, std::vector<std::string>* words) {
  Codepoints cps;
  HEED_RETURN_IF_ERROR(decode_utf8(text, &cps));
  Codepoints cleaned;
  cleaned.reserve(cps.size());
  for (utf8proc_int32_t cp : cps) {
    if (cp == 0 || cp == 0xFFFD || is_bert_control(cp)) continue;
    if (is_bert_whitespace(cp)) {
      cleaned.push_back(' ');
    } else if (is_cjk(cp)) {
      cleaned.push_back(' ');
      cleaned.push_back(cp);
      cleaned.push_back(' ');
    } else {
      cleaned.push_back(cp);
    }
  }
  HEED_RETURN_IF_ERROR(compose(&cleaned));

  words->clear();
  size_t i = 0;
  Codepoints word;
  while (i < cleaned.size()) {
    while (i < cleaned.size() && is_split_space(cleaned[i])) ++i;
    word.clear();
    while (i < cleaned.size() && !is_split_space(cleaned[i])) word.push_back(cleaned[i++]);
    if (word.empty()) continue;
    const bool strip = options.strip_accents;
    if (options.lowercase || strip) word = fold_word(word, options.lowercase, strip);
    // Punctuation characters are words of their own; runs of other characters stay together.
    std::string current;
    for (utf8proc_int32_t cp : word) {
      if (is_bert_punctuation(cp)) {
        if (!current.empty()) words->push_back(std::move(current));
        current.clear();
        std::string p;
        append_utf8(cp, &p);
        words->push_back(std::move(p));
      } else {
        append_utf8(cp, &current);
      }
    }
    if (!current.empty()) words->push_back(std::move(current));
  }
  return Status::success();
}

Status create_wordpiece_tokenizer(std::vector<std::string> vocabulary, const WordPieceOptions& wordpiece,
                                  const TokenizerOptions& options, std::unique_ptr<Tokenizer>* out) {
  if (vocabulary.empty()) return invalid_argument("a WordPiece tokenizer needs a vocabulary");
  bool has_unk = false;
  for (const std::string& t : vocabulary) has_unk = has_unk || t == wordpiece.unk_token;
  if (!has_unk) return invalid_argument("the WordPiece vocabulary has no unknown token '" + wordpiece.unk_token + "'");
  if (wordpiece.max_chars_per_word == 0) return invalid_argument("WordPiece max_chars_per_word must be > 0");
  out->reset(new WordPieceTokenizer(std::move(vocabulary), wordpiece, options));
  return Status::success();
}

}  // namespace heed::tokenizer
