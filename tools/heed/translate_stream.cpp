#include "translate_stream.h"

#include <cstdio>

#include "command.h"
#include "heed_writer.h"
#include "line_reader.h"
#include "text_escape.h"

namespace heed::cli {

namespace {

std::string line_error(size_t line, const std::string& message) {
  return "line " + std::to_string(line + 1) + ": " + message;
}

}  // namespace

int translate_error(const std::string& message) {
  std::fprintf(stderr, "heed translate: %s\n", message.c_str());
  return kExitError;
}

TranslateStream::TranslateStream(const TranslateSettings& settings, TextTranslator& text, std::istream* prefixes)
    : settings_(settings),
      text_(text),
      translator_(text.translator()),
      prefixes_(prefixes),
      progress_("heed translate", settings.progress) {
  window_ = settings.batch * settings.read_ahead;
}

TextTranslatorOptions TranslateStream::text_options(const TranslateSettings& settings) {
  TextTranslatorOptions o;
  o.split_sentences = !settings.no_split && !settings.scored_lines() && settings.prefix_path.empty() &&
                      !settings.capture();
  o.tokens = settings.tokens;
  o.truncate_long = settings.truncate_long;
  o.source_language = settings.source_language;
  o.source_limit_name = "--max-source-len";
  return o;
}

int TranslateStream::run(int fd) {
  std::string line;
  size_t index = 0;
  LineReader input(fd, settings_.max_line_bytes);
  progress_.start(fd);
  for (;;) {
    if (!lines_.empty() && !input.ready()) {
      if (int rc = flush(input.consumed())) return rc;
    }
    if (!input.next(&line)) break;
    if (input.too_long()) {
      progress_.clear();
      translate_error("line " + std::to_string(index + 1) + " has more than --max-line-bytes (" +
                      std::to_string(settings_.max_line_bytes) + ") bytes: written as an empty line");
      lost_line_ = true;
    }
    std::vector<std::string> prefix;
    if (int rc = read_prefix(index, &prefix)) return rc;
    lines_.push_back(std::move(line));
    prefix_tokens_.push_back(std::move(prefix));
    ++index;
    if (lines_.size() >= window_) {
      if (int rc = flush(input.consumed())) return rc;
    }
  }
  if (int rc = flush(input.consumed())) return rc;  // what was read before an error is still translated
  progress_.finish();
  if (!input.error().empty()) return translate_error("reading the input: " + input.error());
  return lost_line_ ? kExitError : kExitOk;
}

int TranslateStream::read_prefix(size_t index, std::vector<std::string>* prefix) {
  const auto fail = [&](const std::string& message) {
    progress_.clear();
    return translate_error(message);
  };
  if (prefixes_ != nullptr) {
    std::string prefix_line;
    if (!std::getline(*prefixes_, prefix_line)) {
      return fail("prefix file has fewer lines than the input (no prefix for line " + std::to_string(index + 1) +
                  ")");
    }
    Status p = text_.target_tokens(prefix_line, prefix);
    if (!p) return fail("prefix of " + line_error(index, p.message()));
  }
  if (prefix->size() > settings_.decode.max_length) {
    return fail("prefix of line " + std::to_string(index + 1) + " has " + std::to_string(prefix->size()) +
                " tokens, more than --max-len " + std::to_string(settings_.decode.max_length));
  }
  return kExitOk;
}

// A line that fails (its text, its tokens, or its length with --on-long-input error) is written
// empty, as a whole: half a paragraph would read as its translation. The other lines go on.
void TranslateStream::report(size_t line, const TextTranslation& t) {
  for (const TextLineIssue& e : t.errors) {
    translate_error(line_error(line, e.status.message() + ": written as an empty line"));
    lost_line_ = true;
  }
  for (const TextLineIssue& cut : t.truncated) translate_error(line_error(line, cut.status.message()));
  check_words(line, t);
}

// Plain text into a model that reads space-separated tokens translates into nonsense without a
// word of complaint: when most words of a line are not in the source vocabulary, say so (once).
void TranslateStream::check_words(size_t line, const TextTranslation& t) {
  if (settings_.tokens || text_.reads_text() || warned_words_ || t.sentences.empty()) return;
  const std::vector<std::string>& words = t.sentences.front().source;
  size_t unknown = 0;
  for (const std::string& w : words) unknown += translator_.source_vocabulary().id(w) < 0 ? 1 : 0;
  if (unknown * 2 <= words.size()) return;
  warned_words_ = true;
  translate_error(line_error(line, std::to_string(unknown) + " of " + std::to_string(words.size()) +
                                       " words are not in the model's source vocabulary (this model reads "
                                       "space-separated tokens: see --help)"));
}

// bytes_read: the input the lines read so far took (the progress line's share of a file).
int TranslateStream::flush(uint64_t bytes_read) {
  std::vector<TextTranslation> results;
  if (!lines_.empty()) {
    const std::vector<std::string_view> texts(lines_.begin(), lines_.end());
    Status s = text_.translate(texts, settings_.decode, prefixes_ ? &prefix_tokens_ : nullptr, &results);
    if (!s) {
      progress_.clear();
      return translate_error("lines " + std::to_string(first_line_ + 1) + "-" +
                             std::to_string(first_line_ + lines_.size()) + ": " + s.message());
    }
  }
  std::string text;
  progress_.clear();  // output and warnings may go to the same terminal
  for (size_t l = 0; l < results.size(); ++l) {
    const size_t line = first_line_ + l;
    report(line, results[l]);
    text.clear();
    if (int rc = settings_.scored_lines() ? format_scored(line, results[l], &text)
                                          : format_best(line, results[l], &text)) {
      return rc;
    }
    std::fputs(text.c_str(), stdout);
  }
  std::fflush(stdout);
  first_line_ += lines_.size();
  progress_.update(first_line_, bytes_read);
  lines_.clear();
  prefix_tokens_.clear();
  return kExitOk;
}

// The line's translation (its sentences' best hypotheses, joined by the runtime), made one line.
int TranslateStream::format_best(size_t line, const TextTranslation& t, std::string* text) {
  if (settings_.capture()) {
    for (const TextSentence& s : t.sentences) {
      if (s.hypotheses.empty()) continue;
      Status a = record_attention(line, s);
      if (!a) return translate_error(line_error(line, a.message()));
    }
  }
  *text = line_safe(t.texts.front()) + "\n";
  return kExitOk;
}

// Scored lines: the line is one sentence (no splitting), each hypothesis on its own line; a line
// without one is an empty hypothesis.
int TranslateStream::format_scored(size_t line, const TextTranslation& t, std::string* text) {
  if (t.sentences.empty()) {
    *text = std::to_string(line) + " |||  ||| 0\n";
    return kExitOk;
  }
  const TextSentence& sentence = t.sentences.front();
  if (settings_.capture() && !sentence.hypotheses.empty()) {
    Status a = record_attention(line, sentence);
    if (!a) return translate_error(line_error(line, a.message()));
  }
  std::string hypothesis;
  for (const TranslationHypothesis& h : sentence.hypotheses) {
    Status r = text_.render(h, &hypothesis);
    if (!r) return translate_error(line_error(line, r.message()));
    char score[64];
    std::snprintf(score, sizeof score, "%.6f", h.score);
    *text += std::to_string(line) + " ||| " + line_safe(hypothesis) + " ||| " + score + "\n";
  }
  return kExitOk;
}

Status TranslateStream::record_attention(size_t line, const TextSentence& sentence) {
  const std::vector<std::string>& source = sentence.source;
  const TranslationHypothesis& h = sentence.hypotheses.front();
  const TokenConventions& conventions = translator_.conventions();
  const Vocabulary& target_vocabulary = translator_.target_vocabulary();
  AttentionRecord r;
  r.line = line;
  // Labels by id (an id without a vocabulary entry shows as its number).
  const auto label = [&](int32_t id) {
    return id >= 0 && static_cast<size_t>(id) < target_vocabulary.size() ? target_vocabulary.token(id)
                                                                        : std::to_string(id);
  };
  // The columns are what the model read: the source tokens with the BOS/EOS it adds.
  if (conventions.add_source_bos) r.source.push_back(label(conventions.bos_id));
  r.source.insert(r.source.end(), source.begin(), source.end());
  if (conventions.add_source_eos) {  // the source vocabulary's end token when the model names it
    const Vocabulary& source_vocabulary = translator_.source_vocabulary();
    const int32_t eos = conventions.source_eos_id;
    const bool named = eos >= 0 && static_cast<size_t>(eos) < source_vocabulary.size();
    r.source.push_back(named ? source_vocabulary.token(eos) : label(conventions.eos_id));
  }
  for (int32_t id : h.ids) r.target.push_back(label(id));
  if (h.token_log_probs.size() > h.ids.size()) r.target.push_back(label(conventions.eos_id));
  if (h.attention_panels == 0 || h.attention_heads == 0 || h.attention_source_len != r.source.size() ||
      h.attention.size() != r.target.size() * h.attention_panels * r.source.size()) {
    return Status(StatusCode::kInternal, "the model returned no attention matrix of the expected shape");
  }
  r.heads = h.attention_heads;
  r.layers = h.attention_panels / h.attention_heads;
  r.weights = h.attention;
  if (!settings_.attention_json_path.empty()) json_lines_ += attention_json_line(r) + "\n";
  if (!settings_.attention_svg_path.empty()) records_.push_back(std::move(r));
  return Status::success();
}

int TranslateStream::write_attention_files() const {
  const auto write = [&](const std::string& path, const std::string& text) -> int {
    Status w = convert::write_file_atomically(path, std::vector<uint8_t>(text.begin(), text.end()));
    return w ? kExitOk : translate_error(w.message());
  };
  if (!settings_.attention_json_path.empty()) {
    if (int rc = write(settings_.attention_json_path, json_lines_)) return rc;
  }
  if (!settings_.attention_svg_path.empty()) return write(settings_.attention_svg_path, attention_svg(records_));
  return kExitOk;
}

}  // namespace heed::cli
