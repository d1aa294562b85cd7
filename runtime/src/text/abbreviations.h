// Where a period does not end a sentence, for one language (heed/sentence_splitter.h): the
// abbreviations of ICU's locale data (CLDR's sentence-break suppressions) and heed's additions,
// matched as whole words, and the initial and ordinal-number rules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <unicode/locid.h>

namespace heed::text {

class Abbreviations {
 public:
  // The list of `locale` (its language's data when the locale has none of its own; none for the
  // root locale or a language ICU has no break data for).
  static Abbreviations for_locale(const icu::Locale& locale);

  // Whether `before` (valid UTF-8, the text before a sentence boundary, trailing whitespace
  // removed) ends with a word whose period belongs to it.
  bool ends_with_one(std::string_view before) const;

 private:
  bool ends_with_listed(std::string_view before) const;

  std::vector<std::string> words_;  // "Nr.", "z.B.", "v. Chr." (case as written)
  bool ordinal_periods_ = false;    // "3." is an ordinal number (German, Finnish, Czech, ...)
};

}  // namespace heed::text
