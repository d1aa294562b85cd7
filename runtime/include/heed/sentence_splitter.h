// Splits a paragraph of UTF-8 text into sentences, by rule (in the spirit of the Moses and
// Bergamot `ssplit` splitters), so translation models trained on sentences see sentences.
//
// A sentence ends after a run of `.` `!` `?` `…` (optionally followed by closing quotes or
// brackets) when whitespace follows and the next text starts like a sentence: an uppercase letter,
// a digit, an opening quote or bracket, or a letter of a script without case (CJK, Arabic,
// Devanagari, ...). It also ends after the CJK full stops `。` `！` `？` (and the halfwidth `｡`),
// whatever follows. A single `.` does not end a sentence after a common abbreviation (Mr., Dr.,
// e.g., etc., ...), a single capital letter (an initial: "J. Smith"), a word with inner periods
// ("U.S.") or, when a digit follows, a numbering word ("No. 5", "Fig. 3").
//
// Sentences are views into the paragraph with the surrounding whitespace left out; whitespace and
// text without a sentence end form no / one sentence. Bytes that are not valid UTF-8 are treated
// as ordinary single characters: nothing is dropped and nothing is read past the end.
// SentenceSplitter never allocates (sessions may split text in their no-allocation paths).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace heed {

class SentenceSplitter {
 public:
  explicit SentenceSplitter(std::string_view paragraph) : text_(paragraph) {}
  // The next sentence (never empty, whitespace-trimmed); false when none is left.
  bool next(std::string_view* sentence);

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// Every sentence of `paragraph`, in order (allocates the vector; for tools and tests).
std::vector<std::string_view> split_sentences(std::string_view paragraph);

// The translations of a paragraph's sentences as one line: the non-empty ones joined by one space.
std::string join_sentences(const std::vector<std::string>& sentences);

}  // namespace heed
