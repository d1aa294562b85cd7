// Splits a paragraph of UTF-8 text into sentences, so translation models trained on sentences see
// sentences. The boundaries are ICU's (Unicode's sentence rules, UAX #29, through
// icu::BreakIterator) for the text's language, and a boundary is dropped where the language's
// abbreviation list says the period belongs to a word ("z. B.", "Hauptstr.", "janv.", "г."): the list
// of ICU's locale data (CLDR's sentence-break suppressions) plus a few entries heed adds per language
// (text/abbreviations.cpp). heed matches an abbreviation as a whole word: ICU's own filter
// (`@ss=standard`) matches any word ending with one, so German "er." or "kam." would never end a
// sentence ("r." and "am." are listed). Three rules come on top of the lists, as a reader splits:
// a single capital letter with a period is an initial ("J. Smith"); in languages that write
// ordinal numbers with a period (German "am 3. Oktober", Finnish, Czech, ...) a number of up to three
// digits with a period is one; and no sentence starts with a lowercase letter ("\"Why?\" she asked").
//
// Sentences are views into the paragraph with the surrounding whitespace left out (no-break spaces
// are not whitespace here: "Dr.\u00A0Who"); a paragraph of whitespace has no sentence. Text that is
// not valid UTF-8 is refused as a whole (kInvalidArgument naming the first bad byte): ICU reads it
// as U+FFFD, and a splitter that silently rewrote or dropped bytes would translate something else
// than was sent. Callers report the paragraph as failed.
//
// Splitting allocates (ICU, the result vector): it is text handling outside a session's
// no-allocation compute path. A SentenceSplitter holds ICU's iterator state: one per thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/status.h"

namespace heed {

class SentenceSplitter {
 public:
  // `language`: a BCP 47 tag or ISO 639 code as models record it ("de", "pt-BR", "zh"). "" or a
  // language ICU has no locale data for: ICU's root rules and no abbreviations. A tag that is not
  // well-formed ("de_DE!") is kInvalidArgument.
  static Status create(std::string_view language, std::unique_ptr<SentenceSplitter>* out);
  ~SentenceSplitter();
  SentenceSplitter(const SentenceSplitter&) = delete;
  SentenceSplitter& operator=(const SentenceSplitter&) = delete;

  // The sentences of `paragraph` in order (views into it; *sentences is replaced). Invalid UTF-8:
  // kInvalidArgument and no sentences.
  Status split(std::string_view paragraph, std::vector<std::string_view>* sentences);

  // The ICU locale whose rules and abbreviations split: "de", "pt_BR", "root".
  const std::string& locale() const;

 private:
  struct Impl;
  explicit SentenceSplitter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The translations of a paragraph's sentences as one line: the non-empty ones joined by one space.
std::string join_sentences(const std::vector<std::string>& sentences);

}  // namespace heed
