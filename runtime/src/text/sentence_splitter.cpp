// The rule-based sentence splitter (heed/sentence_splitter.h). Character classes are small
// hand-kept tables of code points: enough Unicode to find sentence starts in the scripts heed's
// models translate, without a locale or a Unicode library (the runtime links neither).
#include "heed/sentence_splitter.h"

#include <cstdint>

namespace heed {
namespace {

constexpr uint32_t kReplacement = 0xFFFD;

// The code point at text[i] and its length in bytes. Anything that is not a complete, well-formed
// UTF-8 sequence counts as one character of one byte (U+FFFD), so scanning always advances.
uint32_t decode(std::string_view text, size_t i, size_t* length) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = byte(i);
  *length = 1;
  if (b0 < 0x80) return b0;
  size_t n;
  uint32_t cp, min;
  if ((b0 & 0xE0) == 0xC0) {
    n = 2, cp = b0 & 0x1Fu, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3, cp = b0 & 0x0Fu, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4, cp = b0 & 0x07u, min = 0x10000;
  } else {
    return kReplacement;
  }
  if (text.size() - i < n) return kReplacement;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return kReplacement;
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return kReplacement;
  *length = n;
  return cp;
}

// Breaking whitespace. No-break spaces (U+00A0, U+202F) are left out on purpose: "Dr.\u00A0Who".
bool is_space(uint32_t c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x205F || c == 0x3000;
}

bool is_cjk_terminator(uint32_t c) { return c == 0x3002 || c == 0xFF01 || c == 0xFF1F || c == 0xFF61; }

bool is_terminator(uint32_t c) { return c == '.' || c == '!' || c == '?' || c == 0x2026 || is_cjk_terminator(c); }

bool is_opener(uint32_t c) {
  switch (c) {
    case '"': case '\'': case '(': case '[': case '{':
    case 0x00A1: case 0x00AB: case 0x00BF:                  // ¡ « ¿
    case 0x2018: case 0x201A: case 0x201C: case 0x201E:     // ‘ ‚ “ „
    case 0x2039:                                            // ‹
    case 0x300A: case 0x300C: case 0x300E: case 0x3010:     // 《 「 『 【
    case 0xFF08:                                            // （
      return true;
    default:
      return false;
  }
}

bool is_closer(uint32_t c) {
  switch (c) {
    case '"': case '\'': case ')': case ']': case '}':
    case 0x00BB: case 0x2019: case 0x201D: case 0x203A:     // » ’ ” ›
    case 0x300B: case 0x300D: case 0x300F: case 0x3011:     // 》 」 』 】
    case 0xFF09:                                            // ）
      return true;
    default:
      return false;
  }
}

bool is_digit(uint32_t c) { return (c >= '0' && c <= '9') || (c >= 0xFF10 && c <= 0xFF19); }

// Uppercase letters of the cased scripts heed's models usually see: Latin (with Latin-1,
// Extended-A and Extended Additional), Greek, Cyrillic, Armenian, and fullwidth Latin.
bool is_upper(uint32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z';
  if (c >= 0xC0 && c <= 0xDE) return c != 0xD7;
  if (c >= 0x100 && c <= 0x137) return c % 2 == 0;
  if (c >= 0x139 && c <= 0x148) return c % 2 == 1;
  if (c >= 0x14A && c <= 0x177) return c % 2 == 0;
  if (c >= 0x178 && c <= 0x17E) return c == 0x178 || c % 2 == 1;
  if (c >= 0x386 && c <= 0x3AB) return c != 0x387 && c != 0x38B && c != 0x38D && c != 0x3A2;
  if (c >= 0x400 && c <= 0x42F) return true;
  if (c >= 0x460 && c <= 0x481) return c % 2 == 0;
  if (c >= 0x48A && c <= 0x4BF) return c % 2 == 0;
  if (c >= 0x4C0 && c <= 0x4CE) return c == 0x4C0 || c % 2 == 1;
  if (c >= 0x4D0 && c <= 0x52F) return c % 2 == 0;
  if (c >= 0x531 && c <= 0x556) return true;
  if (c >= 0x1E00 && c <= 0x1EFF) return c % 2 == 0;
  return c >= 0xFF21 && c <= 0xFF3A;
}

// Letters of scripts without case: a sentence there may start with any of them.
bool is_caseless_letter(uint32_t c) {
  return (c >= 0x05D0 && c <= 0x05EA) ||    // Hebrew letters
         (c >= 0x0620 && c <= 0x06FF) ||    // Arabic
         (c >= 0x0750 && c <= 0x077F) || (c >= 0x08A0 && c <= 0x08FF) ||
         (c >= 0x0900 && c <= 0x0DFF) ||    // Devanagari .. Sinhala
         (c >= 0x0E00 && c <= 0x0FFF) ||    // Thai, Lao, Tibetan
         (c >= 0x10D0 && c <= 0x10FF) ||    // Georgian Mkhedruli
         (c >= 0x1100 && c <= 0x11FF) ||    // Hangul Jamo
         (c >= 0x3040 && c <= 0x30FF) ||    // Hiragana, Katakana
         (c >= 0x3130 && c <= 0x318F) ||    // Hangul compatibility Jamo
         (c >= 0x3400 && c <= 0x9FFF) ||    // CJK ideographs
         (c >= 0xAC00 && c <= 0xD7AF) ||    // Hangul syllables
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF66 && c <= 0xFF9F) || (c >= 0x20000 && c <= 0x3FFFF);
}

bool starts_sentence(uint32_t c) { return is_upper(c) || is_digit(c) || is_opener(c) || is_caseless_letter(c); }

// Words a single period does not end a sentence after (case as written).
constexpr std::string_view kAbbreviations[] = {
    "Mr",   "Mrs",  "Ms",   "Dr",  "Prof", "Sr",  "Jr",  "St",  "Mt",   "Gen", "Col", "Lt",  "Capt", "Sgt",
    "Rev",  "Hon",  "Gov",  "Sen", "Rep",  "Mme", "Mlle", "Hr", "Fr",   "vs",  "etc", "cf",  "al",   "approx",
    "ca",   "Inc",  "Ltd",  "Corp", "Co",  "Jan", "Feb", "Mar", "Apr",  "Jun", "Jul", "Aug", "Sep",  "Sept",
    "Oct",  "Nov",  "Dec",  "bzw", "vgl",  "ggf", "Mio", "Mrd", "Abs",  "Bd",
};
// Words that number the next thing: no sentence end when a digit follows ("No. 5").
constexpr std::string_view kNumbering[] = {"No", "no", "Nos", "Nr", "nr", "Art", "art", "Fig", "fig",
                                           "Vol", "vol", "p",  "pp", "Ch", "ch", "Sec", "sec", "Tab"};

template <size_t N>
bool listed(std::string_view word, const std::string_view (&list)[N]) {
  for (std::string_view w : list) {
    if (w == word) return true;
  }
  return false;
}

// "U.S", "e.g", "z.B", "a.m": periods inside, every part one or two ASCII letters.
bool is_dotted_abbreviation(std::string_view word) {
  if (word.find('.') == std::string_view::npos) return false;
  size_t part = 0;
  for (char ch : word) {
    if (ch == '.') {
      if (part == 0) return false;
      part = 0;
    } else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
      if (++part > 2) return false;
    } else {
      return false;
    }
  }
  return part > 0;
}

// Whether a single period after `word` (opening quotes and brackets already removed) keeps the
// sentence going when `next` starts the following text.
bool period_continues(std::string_view word, uint32_t next) {
  if (word.empty()) return false;
  size_t length = 0;
  const uint32_t first = decode(word, 0, &length);
  if (length == word.size() && is_upper(first)) return true;  // an initial
  if (listed(word, kAbbreviations) || is_dotted_abbreviation(word)) return true;
  return is_digit(next) && listed(word, kNumbering);
}

// The word right before position `end` of `text` (after `begin`), without leading openers.
std::string_view word_before(std::string_view text, size_t begin, size_t end) {
  size_t i = end;
  // UTF-8 continuation and lead bytes are never ASCII: stopping at ASCII whitespace is safe.
  while (i > begin && !(text[i - 1] == ' ' || (text[i - 1] >= '\t' && text[i - 1] <= '\r'))) --i;
  size_t length = 0;
  while (i < end && is_opener(decode(text, i, &length))) i += length;
  return text.substr(i, end - i);
}

}  // namespace

bool SentenceSplitter::next(std::string_view* sentence) {
  const size_t size = text_.size();
  size_t length = 0;
  while (pos_ < size && is_space(decode(text_, pos_, &length))) pos_ += length;
  if (pos_ >= size) return false;
  const size_t start = pos_;
  size_t last = start;  // end of the last non-space character
  size_t i = start;
  while (i < size) {
    const uint32_t c = decode(text_, i, &length);
    if (!is_terminator(c)) {
      i += length;
      if (!is_space(c)) last = i;
      continue;
    }
    // A run of terminators, then closing quotes / brackets.
    const size_t run = i;
    bool cjk = false;
    size_t count = 0;
    bool only_period = true;
    size_t j = i;
    for (;;) {
      if (j >= size) break;
      const uint32_t t = decode(text_, j, &length);
      if (!is_terminator(t)) break;
      cjk = cjk || is_cjk_terminator(t);
      only_period = only_period && t == '.';
      ++count;
      j += length;
    }
    while (j < size && is_closer(decode(text_, j, &length))) j += length;
    const size_t end = j;
    last = end;
    bool split = end >= size || cjk;
    if (!split && is_space(decode(text_, end, &length))) {
      size_t k = end;
      while (k < size && is_space(decode(text_, k, &length))) k += length;
      if (k >= size) {
        split = true;
      } else {
        const uint32_t next = decode(text_, k, &length);
        split = starts_sentence(next) && !(only_period && count == 1 && period_continues(word_before(text_, start, run), next));
      }
    }
    if (split) {
      *sentence = text_.substr(start, end - start);
      pos_ = end;
      return true;
    }
    i = end;
  }
  *sentence = text_.substr(start, last - start);
  pos_ = size;
  return true;
}

std::vector<std::string_view> split_sentences(std::string_view paragraph) {
  std::vector<std::string_view> sentences;
  SentenceSplitter splitter(paragraph);
  std::string_view sentence;
  while (splitter.next(&sentence)) sentences.push_back(sentence);
  return sentences;
}

std::string join_sentences(const std::vector<std::string>& sentences) {
  std::string line;
  for (const std::string& s : sentences) {
    if (s.empty()) continue;
    if (!line.empty()) line += ' ';
    line += s;
  }
  return line;
}

}  // namespace heed
