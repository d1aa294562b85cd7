// The streaming part of `heed translate`: reads input lines ahead by windows of whole lines, splits
// paragraphs into sentences, translates each window's sentences together (Translator batches them
// shortest first), writes the window's lines in order, and keeps the attention of each line's best
// hypothesis for the files written at the end. A window also ends where the next line is not there
// yet, so nobody waits for an answer to what they already sent.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "attention_view.h"
#include "heed/decoding.h"
#include "heed/tokenizer.h"
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

  bool capture() const { return !attention_svg_path.empty() || !attention_json_path.empty(); }
  // One 'I ||| HYPOTHESIS ||| SCORE' line per hypothesis instead of one output line per input line.
  bool scored_lines() const { return decode.n_best > 1 || with_scores; }
};

class TranslateStream {
 public:
  // `source` and `target` tokenizers: null for token input and output.
  TranslateStream(const TranslateSettings& settings, Translator& translator, const Tokenizer* source,
                  const Tokenizer* target, std::istream* prefixes);
  // Translates the lines of `fd` to stdout; returns the exit code.
  int run(int fd);
  // Writes --attention / --attention-json (atomically) once all input is translated.
  int write_attention_files() const;

 private:
  // One sentence to translate.
  struct Pending {
    size_t line_index;
    std::vector<std::string> tokens;
    std::vector<std::string> prefix;
  };
  // One input line of the window: its sentences are pending_[first, first + count).
  struct WindowLine {
    size_t first = 0, count = 0;
    bool truncated = false;  // a sentence was cut to --max-source-len (warned once per line)
  };
  using Results = std::vector<std::vector<TranslationHypothesis>>;

  int read_prefix(size_t index, std::vector<std::string>* prefix);
  void add_line(size_t index, const std::string& line, std::vector<std::string> prefix);
  bool add_sentence(size_t index, std::string_view sentence, std::vector<std::string> prefix);
  bool fit_source(size_t index, std::vector<std::string>* tokens);
  void check_words(size_t index, const std::vector<std::string>& words);
  int flush();
  int format_best(size_t line, const WindowLine& w, const std::vector<std::vector<std::string>>& sources,
                  const Results& results, std::string* text);
  int format_scored(size_t line, const WindowLine& w, const std::vector<std::vector<std::string>>& sources,
                    const Results& results, std::string* text);
  Status render(const TranslationHypothesis& h, std::string* out) const;
  Status record_attention(size_t line, const std::vector<std::string>& source, const TranslationHypothesis& h);

  const TranslateSettings& settings_;
  Translator& translator_;
  const Tokenizer* source_;
  const Tokenizer* target_;
  std::istream* prefixes_;
  bool split_ = false;
  size_t window_ = 0;
  std::vector<WindowLine> lines_;  // the window's input lines, in order
  std::vector<Pending> pending_;   // their sentences
  size_t first_line_ = 0;          // index of lines_[0]
  bool lost_line_ = false;         // a line was written empty for an error: exit status 1 at the end
  bool warned_words_ = false;      // the unknown-words warning, once per run
  std::vector<AttentionRecord> records_;
  std::string json_lines_;
};

// "heed translate: MESSAGE" on stderr; returns kExitError.
int translate_error(const std::string& message);

}  // namespace heed::cli
