#include "text/abbreviations.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <unicode/uchar.h>
#include <unicode/udata.h>
#include <unicode/unistr.h>
#include <unicode/ures.h>
#include <unicode/utf8.h>

namespace heed::text {
namespace {

// Abbreviations CLDR's lists lack that a reader of the language never ends a sentence with
// (titles before a name, "for example", numbering words, "г." before a town's name). Kept short:
// each entry costs a sentence end where the abbreviation really closes one. Space-separated words;
// "d. h." is listed as its two words (the second one follows a lowercase letter: never a boundary).
struct Addition {
  const char* language;
  const char* words;
};
constexpr Addition kAdditions[] = {
    {"en", "Dr. Jr. Sr. St. No. Nos. Fig. Vol. e.g. i.e. cf. approx."},
    {"de", "ca. bzw. Bd. Prof. Hr. Fr. Nr. d."},
    {"fr", "Mme. Mlle. MM. Dr. St. Ste. p. cf."},
    {"es", "Sr. Sra. Srta. Dr. Dra. pág. núm. Ud. Uds. p."},
    {"ru", "г. гг. т. см. им. стр. Проф."},
};
// Entries of CLDR's lists that are everyday words ending sentences far more often than they
// abbreviate ("Das war ein Test." against the rare "Test." for Testament).
constexpr Addition kRemovals[] = {
    {"de", "Test."},
};

// Languages that write ordinal numbers with a period: "am 3. Oktober", "3. toukokuuta", "3. května".
constexpr const char* kOrdinalPeriodLanguages[] = {"bs", "cs", "da", "de", "et", "fi", "fo", "hr", "hu", "is",
                                                   "lv", "nb", "nn", "no", "pl", "sk", "sl", "sr", "tr"};

template <size_t N>
std::vector<std::string> words_of(const Addition (&table)[N], const char* language) {
  std::vector<std::string> words;
  for (const Addition& a : table) {
    if (std::strcmp(a.language, language) != 0) continue;
    std::string_view all = a.words;
    while (!all.empty()) {
      size_t end = all.find(' ');
      std::string_view piece = all.substr(0, end);
      all = end == std::string_view::npos ? std::string_view() : all.substr(end + 1);
      words.emplace_back(piece);
    }
  }
  return words;
}

// The locale's "exceptions/SentenceBreak" list from ICU's break-iterator data (with fallback to the
// language's); none for the root locale or a language ICU falls back to the default locale for.
void add_icu_list(const icu::Locale& locale, std::vector<std::string>* words) {
  UErrorCode status = U_ZERO_ERROR;
  icu::LocalUResourceBundlePointer bundle(
      ures_open(U_ICUDATA_NAME U_TREE_SEPARATOR_STRING "brkitr", locale.getName(), &status));
  if (U_FAILURE(status) || status == U_USING_DEFAULT_WARNING) return;
  icu::LocalUResourceBundlePointer exceptions(ures_getByKey(bundle.getAlias(), "exceptions", nullptr, &status));
  icu::LocalUResourceBundlePointer list(ures_getByKey(exceptions.getAlias(), "SentenceBreak", nullptr, &status));
  while (U_SUCCESS(status) && ures_hasNext(list.getAlias())) {
    int32_t length = 0;
    const UChar* word = ures_getNextString(list.getAlias(), &length, nullptr, &status);
    if (U_FAILURE(status)) return;
    std::string utf8;
    icu::UnicodeString(word, length).toUTF8String(utf8);
    words->push_back(std::move(utf8));
  }
}

// The last code point of valid UTF-8 text ending at `end`, and where it starts.
UChar32 last_code_point(std::string_view text, size_t end, size_t* start) {
  int32_t i = static_cast<int32_t>(end);
  UChar32 c = 0;
  U8_PREV(reinterpret_cast<const uint8_t*>(text.data()), 0, i, c);
  *start = static_cast<size_t>(i);
  return c;
}

// Whether the word that ends at `end` (before its period) may start at `begin`: at the text's start
// or after a character that is no part of a word (whitespace, an opening bracket or quote).
bool word_starts_at(std::string_view text, size_t begin) {
  if (begin == 0) return true;
  size_t start = 0;
  const UChar32 c = last_code_point(text, begin, &start);
  return !(u_isalnum(c) || c == '.' || c == '-' || c == '\'' || c == 0x2019);
}

// The last word of `before` (after whitespace and opening punctuation), period included.
std::string_view last_word(std::string_view before) {
  size_t begin = before.size();
  while (begin > 0 && word_starts_at(before, begin) == false) {
    size_t start = 0;
    last_code_point(before, begin, &start);
    begin = start;
  }
  return before.substr(begin);
}

// "J." (a single capital letter and its period).
bool is_initial(std::string_view word) {
  if (word.size() < 2 || word.back() != '.') return false;
  size_t start = 0;
  const UChar32 c = last_code_point(word, word.size() - 1, &start);
  return start == 0 && u_isupper(c);
}

// "3." (one to three ASCII digits and the period): an ordinal number, not a year.
bool is_ordinal(std::string_view word) {
  if (word.size() < 2 || word.size() > 4 || word.back() != '.') return false;
  for (size_t i = 0; i + 1 < word.size(); ++i) {
    if (word[i] < '0' || word[i] > '9') return false;
  }
  return true;
}

}  // namespace

Abbreviations Abbreviations::for_locale(const icu::Locale& locale) {
  Abbreviations a;
  add_icu_list(locale, &a.words_);
  for (std::string& w : words_of(kAdditions, locale.getLanguage())) a.words_.push_back(std::move(w));
  for (const std::string& w : words_of(kRemovals, locale.getLanguage())) {
    a.words_.erase(std::remove(a.words_.begin(), a.words_.end(), w), a.words_.end());
  }
  for (const char* language : kOrdinalPeriodLanguages) {
    a.ordinal_periods_ = a.ordinal_periods_ || std::strcmp(language, locale.getLanguage()) == 0;
  }
  return a;
}

bool Abbreviations::ends_with_listed(std::string_view before) const {
  for (const std::string& w : words_) {
    if (before.size() >= w.size() && before.compare(before.size() - w.size(), w.size(), w) == 0 &&
        word_starts_at(before, before.size() - w.size())) {
      return true;
    }
  }
  return false;
}

bool Abbreviations::ends_with_one(std::string_view before) const {
  if (before.empty() || before.back() != '.') return false;
  const std::string_view word = last_word(before);
  return ends_with_listed(before) || is_initial(word) || (ordinal_periods_ && is_ordinal(word));
}

}  // namespace heed::text
