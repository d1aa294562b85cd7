// The streaming part of `heed translate`: reads input lines ahead by windows of whole lines, has the
// runtime's text path translate each window's lines together (sentences split and batched shortest
// first there), writes the window's lines in order, and keeps the attention of each line's best
// hypothesis for the files written at the end. A window also ends where the next line is not there
// yet, so nobody waits for an answer to what they already sent.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "attention_view.h"
#include "line_progress.h"
#include "heed/decoding.h"
#include "heed/text_translator.h"
#include "heed/translator.h"

namespace heed::cli {

struct TranslateSettings {
  std::string model_path;
  TranslatorOptions translator;
  LoadOptions load;
  DecodeOptions decode;
  size_t batch = 16, read_ahead = 8;
  size_t max_line_bytes = size_t{1} << 20;
  bool tokens = false, no_split = false, with_scores = false;
  bool truncate_long = true;  // --on-long-input truncate; false: error
  std::string prefix_path, attention_svg_path, attention_json_path;
  std::string source_language;  // --source-lang
  bool progress = true;         // the progress line on a terminal (line_progress.h); --no-progress: false

  bool capture() const { return !attention_svg_path.empty() || !attention_json_path.empty(); }
  // One 'I ||| HYPOTHESIS ||| SCORE' line per hypothesis instead of one output line per input line.
  bool scored_lines() const { return decode.n_best > 1 || with_scores; }
};

class TranslateStream {
 public:
  // `text`: the runtime's text path over the translator (heed/text_translator.h), set up for these
  // settings (text_options()).
  TranslateStream(const TranslateSettings& settings, TextTranslator& text, std::istream* prefixes);
  // How the settings translate text: paragraph lines are split into sentences only where each line
  // has one output line (see --help).
  static TextTranslatorOptions text_options(const TranslateSettings& settings);
  // Translates the lines of `fd` to stdout; returns the exit code.
  int run(int fd);
  // Writes --attention / --attention-json (atomically) once all input is translated.
  int write_attention_files() const;

 private:
  int read_prefix(size_t index, std::vector<std::string>* prefix);
  int flush(uint64_t bytes_read);
  void report(size_t line, const TextTranslation& t);
  void check_words(size_t line, const TextTranslation& t);
  int format_best(size_t line, const TextTranslation& t, std::string* text);
  int format_scored(size_t line, const TextTranslation& t, std::string* text);
  Status record_attention(size_t line, const TextSentence& sentence);

  const TranslateSettings& settings_;
  TextTranslator& text_;
  const Translator& translator_;
  std::istream* prefixes_;
  LineProgress progress_;
  size_t window_ = 0;
  std::vector<std::string> lines_;                  // the window's input lines, in order
  std::vector<std::vector<std::string>> prefix_tokens_;  // their prefixes (--prefix-file)
  size_t first_line_ = 0;                           // index of lines_[0]
  bool lost_line_ = false;                          // a line was written empty for an error: exit status 1 at the end
  bool warned_words_ = false;                       // the unknown-words warning, once per run
  std::vector<AttentionRecord> records_;
  std::string json_lines_;
};

// "heed translate: MESSAGE" on stderr; returns kExitError.
int translate_error(const std::string& message);

}  // namespace heed::cli
