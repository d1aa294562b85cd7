// Text in, text out: the one way plain text is translated, by every front end (`heed translate`,
// `heed serve`, the C API's heed_translate_text, Python's Translator.translate_text).
//
// A text is lines ('\n'); each line is a paragraph, split into sentences by the source language
// (heed/sentence_splitter.h: the model's recorded source_language, or the options'), each sentence
// tokenized by the model's tokenizer. All sentences of one call are translated together
// (Translator::translate_tokens: batches of similar length, shortest first), then each line is put
// back together: its sentences' translations separated by the whitespace that separated the
// sentences (one space where there was none, as after "。"; the line's leading and trailing
// whitespace is left out, as tokenizers drop it). Lines
// stay lines; a blank line stays empty. A line that fails (not valid UTF-8, refused by the tokenizer,
// a sentence over the source limit when cutting is off) is an empty output line and an error naming
// it; the other lines are translated. Models without a tokenizer read space-separated tokens: each
// line is one sentence of tokens.
//
// Allocates: text handling is outside the session's no-allocation compute path. Not thread-safe (one
// per Translator, which is not either).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/decoding.h"
#include "heed/model.h"
#include "heed/sentence_splitter.h"
#include "heed/status.h"
#include "heed/tokenizer.h"
#include "heed/translator.h"

namespace heed {

struct TextTranslatorOptions {
  bool split_sentences = true;   // false: each line is one sentence
  bool tokens = false;           // lines are space-separated tokens even for a model with a tokenizer
  bool truncate_long = true;     // a sentence over the source limit is cut (noted); false: its line fails
  std::string source_language;   // the splitter's language; "": the model's source_language metadata
  std::string source_limit_name = "the source limit";  // how messages name it ("--max-source-len")
  // Limits of one translate() call, checked after splitting and tokenizing, before any decoding
  // (a server's per-request limits): more sentences, or more source tokens in all, fail the whole
  // call with kLimitExceeded, the message naming the limit as given here. 0: no limit.
  size_t max_sentences = 0;
  size_t max_tokens = 0;
  std::string sentence_limit_name = "the sentence limit";
  std::string token_limit_name = "the token limit";
};

// Something that happened to one line of a text (0-based line number within the text).
struct TextLineIssue {
  size_t line = 0;
  Status status;
};

// One translated sentence: the source tokens the model read and its hypotheses, best first.
struct TextSentence {
  size_t line = 0;
  std::vector<std::string> source;
  std::vector<TranslationHypothesis> hypotheses;
};

struct TextTranslation {
  // Up to DecodeOptions::n_best translations of the text, best first: translation k joins
  // hypothesis k of each sentence (a sentence's last one when it has fewer).
  std::vector<std::string> texts;
  std::vector<TextSentence> sentences;    // in text order
  std::vector<TextLineIssue> errors;      // lines written empty
  std::vector<TextLineIssue> truncated;   // lines with a sentence cut to the source limit (once per line)
};

class TextTranslator {
 public:
  // Over `translator` (a Translator of `model`; both must outlive the TextTranslator) with the
  // model's tokenizers. A source_language that is not a language tag is kInvalidArgument; a
  // recorded one that is not is ignored (no abbreviations).
  static Status create(const Model& model, Translator& translator, const TextTranslatorOptions& options,
                       std::unique_ptr<TextTranslator>* out);
  ~TextTranslator();

  // out[i]: the translation of texts[i]. `prefixes`: null, or one target prefix (target tokens) per
  // text, each text then one sentence (split_sentences off or a token model). A non-ok status is a
  // failure of the whole call (the decoding options, the model); line failures are in out[i].errors.
  Status translate(const std::vector<std::string_view>& texts, const DecodeOptions& options,
                   const std::vector<std::vector<std::string>>* prefixes, std::vector<TextTranslation>* out);

  // A hypothesis as output text: detokenized, or its tokens joined by spaces for token models.
  Status render(const TranslationHypothesis& h, std::string* text) const;
  // Target text as target tokens, as prefixes are given: the target tokenizer's pieces, or the
  // space-separated tokens for token models.
  Status target_tokens(std::string_view text, std::vector<std::string>* tokens) const;
  const Translator& translator() const { return translator_; }
  // Whether lines are plain text (a tokenizer reads them) rather than tokens.
  bool reads_text() const { return source_ != nullptr; }
  // The splitter's locale ("de", "root"): what --verbose and the tests look at.
  const std::string& sentence_locale() const { return splitter_->locale(); }

 private:
  struct Line;
  TextTranslator(Translator& translator, const TextTranslatorOptions& options);
  void prepare_line(std::string_view text, size_t index, TextTranslation* t, Line* line);
  Status add_sentence(std::string_view sentence, size_t index, bool split, TextTranslation* t, Line* line);
  Status check_call_limits(const std::vector<std::vector<std::string>>& sources) const;
  Status join(const std::vector<Line>& lines, size_t k, const TextTranslation& t, std::string* text) const;

  Translator& translator_;
  TextTranslatorOptions options_;
  std::unique_ptr<Tokenizer> source_, target_;  // null: space-separated tokens
  std::unique_ptr<SentenceSplitter> splitter_;
};

}  // namespace heed
