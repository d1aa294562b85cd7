#include "tokenizer/byte_level_bpe.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_map>

#include <utf8proc.h>

#include "heed/tokenizer.h"
#include "heed/utf8.h"
#include "tokenizer/special_tokens.h"

namespace heed::tokenizer {
namespace {

enum class CharClass { kLetter, kNumber, kSpace, kOther };

// One character of the text: its class and byte length (an invalid UTF-8 byte is one kOther).
struct Char {
  CharClass cls;
  size_t length;
  int32_t code;
};

// Python's str.isspace(), which the pattern's \s follows: the Unicode White_Space characters.
bool is_white_space(int32_t c) {
  if ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0) return true;
  if (c < 0x100) return false;
  const utf8proc_category_t cat = utf8proc_category(c);
  return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

Char char_at(std::string_view text, size_t i) {
  char32_t cp = 0;
  const size_t n = heed::text::utf8_sequence_length(text, i, &cp);
  if (n == 0) return {CharClass::kOther, 1, -1};
  const auto code = static_cast<int32_t>(cp);
  CharClass cls = CharClass::kOther;
  if (is_white_space(code)) {
    cls = CharClass::kSpace;
  } else {
    switch (utf8proc_category(code)) {
      case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
      case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO:
        cls = CharClass::kLetter;
        break;
      case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_NO:
        cls = CharClass::kNumber;
        break;
      default:
        break;
    }
  }
  return {cls, n, code};
}

// The end of the run of characters of class `cls` starting at i.
size_t run_end(std::string_view text, size_t i, CharClass cls) {
  while (i < text.size()) {
    const Char c = char_at(text, i);
    if (c.cls != cls) break;
    i += c.length;
  }
  return i;
}

// The length of a contraction ('s 't 're 've 'm 'll 'd, lower case as in GPT-2's pattern) at i.
size_t contraction_at(std::string_view text, size_t i) {
  if (text[i] != '\'') return 0;
  for (std::string_view suffix : {"re", "ve", "ll", "s", "t", "m", "d"}) {
    if (text.substr(i + 1, suffix.size()) == suffix) return 1 + suffix.size();
  }
  return 0;
}

// Llama 3's and Qwen2's contractions: GPT-2's, in either case ((?i:'s|'t|'re|...)).
size_t any_case_contraction_at(std::string_view text, size_t i) {
  if (text[i] != '\'') return 0;
  std::string lower(text.substr(i + 1, 2));
  for (char& ch : lower) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  return contraction_at("'" + lower, 0);
}

bool is_line_break(char ch) { return ch == '\r' || ch == '\n'; }

// \s+(?!\S) on the whitespace run [i, end): the run without its last character when text follows
// and the run is longer than one character (that character joins the next word), else the run.
size_t whitespace_run_end(std::string_view text, size_t i, size_t end) {
  if (end >= text.size()) return end;
  size_t last = end - 1;  // start of the run's last character
  while (last > i && (static_cast<unsigned char>(text[last]) & 0xC0) == 0x80) --last;
  return last > i ? last : end;
}

// The whitespace alternatives of Llama 3's pattern at a whitespace character i:
// \s*[\r\n]+ (up to the run's last line break), \s+(?!\S) (the run but its last character when
// text follows), \s+ (a lone one).
size_t whitespace_word(std::string_view text, size_t i) {
  const size_t end = run_end(text, i, CharClass::kSpace);
  for (size_t p = end; p > i; --p) {
    if (is_line_break(text[p - 1])) return p - i;
  }
  return whitespace_run_end(text, i, end) - i;
}

// The length of the word of Llama 3's pattern that starts at i, alternatives in order:
//   (?i:'s|'t|'re|'ve|'m|'ll|'d) | [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N}{1,max_digits} |
//    ?[^\s\p{L}\p{N}]+[\r\n]* | \s*[\r\n]+ | \s+(?!\S) | \s+
size_t llama3_word(std::string_view text, size_t i, size_t max_digits) {
  if (const size_t n = any_case_contraction_at(text, i)) return n;
  const Char c = char_at(text, i);
  if (c.cls == CharClass::kLetter) return run_end(text, i + c.length, CharClass::kLetter) - i;
  const size_t after = i + c.length;
  if (c.cls != CharClass::kNumber && !is_line_break(text[i]) && after < text.size() &&
      char_at(text, after).cls == CharClass::kLetter) {
    return run_end(text, after, CharClass::kLetter) - i;
  }
  if (c.cls == CharClass::kNumber) {
    size_t j = after;
    for (size_t n = 1; n < max_digits && j < text.size(); ++n) {
      const Char d = char_at(text, j);
      if (d.cls != CharClass::kNumber) break;
      j += d.length;
    }
    return j - i;
  }
  const size_t other = text[i] == ' ' ? i + 1 : i;
  if (other < text.size() && char_at(text, other).cls == CharClass::kOther) {
    size_t j = run_end(text, other, CharClass::kOther);
    while (j < text.size() && is_line_break(text[j])) ++j;
    return j - i;
  }
  return whitespace_word(text, i);
}

// bytes_to_unicode(): printable bytes keep their code point, the others get 256, 257, ... in order.
const std::array<int32_t, 256>& byte_symbols() {
  static const std::array<int32_t, 256> table = [] {
    std::array<int32_t, 256> t{};
    int32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      t[static_cast<size_t>(b)] = printable ? b : next++;
    }
    return t;
  }();
  return table;
}

void append_utf8(int32_t code, std::string* out) {
  utf8proc_uint8_t buffer[4];
  const utf8proc_ssize_t n = utf8proc_encode_char(code, buffer);
  out->append(reinterpret_cast<const char*>(buffer), static_cast<size_t>(n));
}

class ByteLevelBpeTokenizer final : public Tokenizer {
 public:
  ByteLevelBpeTokenizer(std::vector<std::string> tokens, const TokenizerOptions& options)
      : Tokenizer(std::move(tokens), options) {
    for (int32_t id : options.special_ids) {
      if (id < 0 || static_cast<size_t>(id) >= vocabulary_size() || token(id).empty()) continue;
      if (std::find(specials_.begin(), specials_.end(), token(id)) == specials_.end()) specials_.push_back(token(id));
    }
    special_tokens_ = SpecialTokens(specials_);
    split_digits_ = options.split_digits;
    pattern_ = options.split_pattern;
  }

  Status add_merges(const std::vector<std::string>& merges) {
    ranks_.reserve(merges.size());
    for (size_t r = 0; r < merges.size(); ++r) {
      const std::string& m = merges[r];
      const size_t space = m.find(' ');
      if (space == std::string::npos || space == 0 || space + 1 >= m.size() || m.find(' ', space + 1) != std::string::npos) {
        return invalid_file("byte-level BPE merge " + std::to_string(r) + " is not two symbols separated by one space");
      }
      ranks_.emplace(m, static_cast<int>(r));  // the first (best) rank wins
    }
    return Status::success();
  }

  // Special tokens written in the text ("<|endoftext|>") are pieces of their own, as in
  // GPT2Tokenizer, which splits them out before pre-tokenization; the text between them is encoded.
  Status encode_pieces(std::string_view text, std::vector<std::string>* pieces) const override {
    pieces->clear();
    size_t pos = 0;
    while (pos <= text.size()) {
      // The first occurrence wins; at the same place, the longest special.
      const SpecialTokens::Match m = special_tokens_.find(text, pos);
      const std::string_view plain = text.substr(pos, m.at == std::string_view::npos ? std::string_view::npos : m.at - pos);
      const std::string normalized = pattern_ == TokenizerOptions::SplitPattern::kQwen2 ? nfc(plain) : std::string();
      for (std::string_view segment : digit_segments(normalized.empty() ? plain : normalized)) {
        for (std::string_view word : split_words(segment)) bpe(bytes_to_symbols(word), pieces);
      }
      if (m.at == std::string_view::npos) break;
      pieces->push_back(specials_[m.index]);
      pos = m.at + m.length;
    }
    return Status::success();
  }

  std::vector<std::string_view> split_words(std::string_view text) const {
    switch (pattern_) {
      case TokenizerOptions::SplitPattern::kLlama3: return llama3_pretokenize(text, 3);
      case TokenizerOptions::SplitPattern::kQwen2: return llama3_pretokenize(text, 1);
      case TokenizerOptions::SplitPattern::kGpt2: break;
    }
    return gpt2_pretokenize(text);
  }

  // Qwen2's NFC normalizer; text that is not valid UTF-8 is left as it is (the tokenizers library
  // takes valid strings only).
  static std::string nfc(std::string_view text) {
    utf8proc_uint8_t* out = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                            static_cast<utf8proc_ssize_t>(text.size()), &out,
                                            static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
    std::string result = n >= 0 ? std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n)) : std::string(text);
    std::free(out);
    return result;
  }

  // With split_digits, the text between the digits and each digit alone (the Digits
  // pre-tokenizer: Unicode numbers, as Rust's char::is_numeric); otherwise the text whole.
  std::vector<std::string_view> digit_segments(std::string_view text) const {
    if (!split_digits_) return {text};
    std::vector<std::string_view> segments;
    size_t start = 0;
    for (size_t i = 0; i < text.size();) {
      const Char c = char_at(text, i);
      if (c.cls == CharClass::kNumber) {
        if (i > start) segments.push_back(text.substr(start, i - start));
        segments.push_back(text.substr(i, c.length));
        start = i + c.length;
      }
      i += c.length;
    }
    if (start < text.size() || segments.empty()) segments.push_back(text.substr(start));
    return segments;
  }

  Status decode_pieces(const std::vector<std::string>& pieces, std::string* text) const override {
    text->clear();
    std::string bytes;
    for (const std::string& piece : pieces) {
      if (!symbols_to_bytes(piece, &bytes)) return invalid_argument("piece '" + piece + "' is not byte-level BPE symbols");
      text->append(bytes);
    }
    return Status::success();
  }

 private:
  int rank(const std::string& a, const std::string& b) const {
    const auto it = ranks_.find(a + " " + b);
    return it == ranks_.end() ? INT_MAX : it->second;
  }

  // Merges the symbols of one word and appends the resulting pieces: the reference loop (find the
  // best-ranked adjacent pair, merge every occurrence left to right, repeat) costs a scan of the
  // word per merge, hours for a megabyte-long "word" such as pasted base64. Here the candidate
  // pairs wait in a heap ordered by (rank, position) over a linked list of symbols, O(n log n).
  // Same result as the loop, also for merge lists where a merged pair outranks the pair that made
  // it: pairs created during the pass of rank r that rank better than r wait until that pass ends,
  // as the loop would only see them at its next scan.
  void bpe(const std::string& word, std::vector<std::string>* pieces) const {
    std::vector<std::string> symbols;
    for (size_t i = 0; i < word.size();) {
      size_t n = 1;
      while (i + n < word.size() && (static_cast<unsigned char>(word[i + n]) & 0xC0) == 0x80) ++n;
      symbols.emplace_back(word.substr(i, n));
      i += n;
    }
    const size_t count = symbols.size();
    constexpr size_t kNone = SIZE_MAX;
    std::vector<size_t> prev(count), next(count);
    std::vector<uint32_t> version(count, 0);  // bumped when a symbol grows or is absorbed
    for (size_t i = 0; i < count; ++i) {
      prev[i] = i == 0 ? kNone : i - 1;
      next[i] = i + 1 == count ? kNone : i + 1;
    }
    struct Candidate {
      int rank;
      size_t left, right;
      uint32_t left_version, right_version;
      bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> heap;
    std::vector<Candidate> waiting;  // created during the current pass, ranked better than it
    int pass = INT_MIN;
    const auto consider = [&](size_t left, size_t right) {
      if (left == kNone || right == kNone) return;
      const int r = rank(symbols[left], symbols[right]);
      if (r == INT_MAX) return;
      const Candidate c{r, left, right, version[left], version[right]};
      if (r < pass) {
        waiting.push_back(c);
      } else {
        heap.push(c);
      }
    };
    for (size_t i = 0; i + 1 < count; ++i) consider(i, i + 1);
    while (!heap.empty() || !waiting.empty()) {
      if (!waiting.empty() && (heap.empty() || heap.top().rank != pass)) {
        for (const Candidate& c : waiting) heap.push(c);
        waiting.clear();
      }
      const Candidate c = heap.top();
      heap.pop();
      if (version[c.left] != c.left_version || version[c.right] != c.right_version || next[c.left] != c.right) continue;
      pass = c.rank;
      symbols[c.left] += symbols[c.right];
      symbols[c.right].clear();
      ++version[c.left];
      ++version[c.right];
      next[c.left] = next[c.right];
      if (next[c.right] != kNone) prev[next[c.right]] = c.left;
      consider(prev[c.left], c.left);
      consider(c.left, next[c.left]);
    }
    for (size_t i = count == 0 ? kNone : 0; i != kNone; i = next[i]) pieces->push_back(std::move(symbols[i]));
  }

  std::unordered_map<std::string, int> ranks_;
  std::vector<std::string> specials_;  // the special ids' tokens, as the text may contain them
  SpecialTokens special_tokens_;       // specials_, found in one scan of the text
  bool split_digits_ = false;
  TokenizerOptions::SplitPattern pattern_ = TokenizerOptions::SplitPattern::kGpt2;
};

}  // namespace

std::vector<std::string_view> gpt2_pretokenize(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    const size_t start = i;
    if (const size_t n = contraction_at(text, i)) {
      words.push_back(text.substr(start, n));
      i += n;
      continue;
    }
    const Char c = char_at(text, i);
    if (c.cls != CharClass::kSpace) {
      i = run_end(text, i + c.length, c.cls);
      words.push_back(text.substr(start, i - start));
      continue;
    }
    // " ?X+": one space joins the run of letters, numbers or other characters after it.
    if (text[i] == ' ' && i + 1 < text.size()) {
      const Char next = char_at(text, i + 1);
      if (next.cls != CharClass::kSpace) {
        i = run_end(text, i + 1 + next.length, next.cls);
        words.push_back(text.substr(start, i - start));
        continue;
      }
    }
    // Whitespace: \s+(?!\S) keeps the last whitespace character for the word after it (when there
    // is one and the run is longer than one); \s+ takes a lone one.
    const size_t end = whitespace_run_end(text, i, run_end(text, i, CharClass::kSpace));
    words.push_back(text.substr(start, end - start));
    i = end;
  }
  return words;
}

std::vector<std::string_view> llama3_pretokenize(std::string_view text, size_t max_digits) {
  std::vector<std::string_view> words;
  for (size_t i = 0; i < text.size();) {
    const size_t n = llama3_word(text, i, max_digits);
    words.push_back(text.substr(i, n));
    i += n;
  }
  return words;
}

std::string bytes_to_symbols(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) append_utf8(byte_symbols()[b], &out);
  return out;
}

bool symbols_to_bytes(std::string_view symbols, std::string* bytes) {
  static const std::unordered_map<int32_t, char> inverse = [] {
    std::unordered_map<int32_t, char> m;
    for (int b = 0; b < 256; ++b) m.emplace(byte_symbols()[static_cast<size_t>(b)], static_cast<char>(b));
    return m;
  }();
  bytes->clear();
  size_t i = 0;
  while (i < symbols.size()) {
    utf8proc_int32_t code = -1;
    const utf8proc_ssize_t n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(symbols.data() + i),
                                                 static_cast<utf8proc_ssize_t>(symbols.size() - i), &code);
    if (n <= 0) return false;
    const auto it = inverse.find(code);
    if (it == inverse.end()) return false;
    bytes->push_back(it->second);
    i += static_cast<size_t>(n);
  }
  return true;
}

Status create_byte_level_bpe_tokenizer(std::vector<std::string> vocabulary, const std::vector<std::string>& merges,
                                       const TokenizerOptions& options, std::unique_ptr<Tokenizer>* out) {
  if (vocabulary.empty()) return invalid_argument("a byte-level BPE tokenizer needs a vocabulary");
  auto t = std::make_unique<ByteLevelBpeTokenizer>(std::move(vocabulary), options);
  HEED_RETURN_IF_ERROR(t->add_merges(merges));
  *out = std::move(t);
  return Status::success();
}

}  // namespace heed::tokenizer
