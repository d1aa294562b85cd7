#include "translate_stream.h"

#include <cstdio>

#include "command.h"
#include "heed/sentence_splitter.h"
#include "heed_writer.h"
#include "line_reader.h"
#include "text_escape.h"

namespace heed::cli {

namespace {

std::string join(const std::vector<std::string>& tokens) {
  std::string s;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i) s += ' ';
    s += tokens[i];
  }
  return s;
}

std::string line_error(size_t line, const std::string& message) {
  return "line " + std::to_string(line + 1) + ": " + message;
}

}  // namespace

int translate_error(const std::string& message) {
  std::fprintf(stderr, "heed translate: %s\n", message.c_str());
  return kExitError;
}

TranslateStream::TranslateStream(const TranslateSettings& settings, Translator& translator, const Tokenizer* source,
                                 const Tokenizer* target, std::istream* prefixes)
    : settings_(settings), translator_(translator), source_(source), target_(target), prefixes_(prefixes) {
  // Paragraph lines become sentences only where each line has one output line (see --help).
  split_ = source_ != nullptr && !settings.no_split && !settings.scored_lines() && prefixes_ == nullptr &&
           !settings.capture();
  window_ = settings.batch * settings.read_ahead;
}

int TranslateStream::run(int fd) {
  std::string line;
  size_t index = 0;
  LineReader input(fd, settings_.max_line_bytes);
  for (;;) {
    if (!lines_.empty() && !input.ready()) {
      if (int rc = flush()) return rc;
    }
    if (!input.next(&line)) break;
    if (input.too_long()) {
      translate_error("line " + std::to_string(index + 1) + " has more than --max-line-bytes (" +
                      std::to_string(settings_.max_line_bytes) + ") bytes: written as an empty line");
      lost_line_ = true;
    }
    std::vector<std::string> prefix;
    if (int rc = read_prefix(index, &prefix)) return rc;
    add_line(index, line, std::move(prefix));
    ++index;
    if (pending_.size() >= window_ || lines_.size() >= window_) {
      if (int rc = flush()) return rc;
    }
  }
  if (int rc = flush()) return rc;  // what was read before an error is still translated
  if (!input.error().empty()) return translate_error("reading the input: " + input.error());
  return lost_line_ ? kExitError : kExitOk;
}

int TranslateStream::read_prefix(size_t index, std::vector<std::string>* prefix) {
  if (prefixes_ != nullptr) {
    std::string prefix_line;
    if (!std::getline(*prefixes_, prefix_line)) {
      return translate_error("prefix file has fewer lines than the input (no prefix for line " +
                             std::to_string(index + 1) + ")");
    }
    if (target_ != nullptr) {
      Status p = target_->encode_pieces(prefix_line, prefix);
      if (!p) return translate_error("prefix of " + line_error(index, p.message()));
    } else {
      *prefix = Translator::split_tokens(prefix_line);
    }
  }
  if (prefix->size() > settings_.decode.max_length) {
    return translate_error("prefix of line " + std::to_string(index + 1) + " has " + std::to_string(prefix->size()) +
                           " tokens, more than --max-len " + std::to_string(settings_.decode.max_length));
  }
  return kExitOk;
}

// A line whose sentence fails (its tokens, or its length with --on-long-input error) is written
// empty, as a whole: half a paragraph would read as its translation. The other lines go on.
void TranslateStream::add_line(size_t index, const std::string& line, std::vector<std::string> prefix) {
  lines_.push_back(WindowLine{pending_.size(), 0});
  bool ok = true;
  if (!split_) {
    ok = add_sentence(index, line, std::move(prefix));
  } else {
    SentenceSplitter splitter(line);
    std::string_view sentence;
    while (ok && splitter.next(&sentence)) ok = add_sentence(index, sentence, {});
  }
  if (!ok) {
    pending_.resize(lines_.back().first);
    lines_.back().count = 0;
    lost_line_ = true;
  }
}

// Adds one sentence (or unsplit line) of line `index` to the window; false (reported): the line fails.
bool TranslateStream::add_sentence(size_t index, std::string_view sentence, std::vector<std::string> prefix) {
  std::vector<std::string> tokens;
  if (source_ != nullptr) {
    Status p = source_->encode_pieces(sentence, &tokens);
    if (!p) {
      translate_error(line_error(index, p.message() + ": written as an empty line"));
      return false;
    }
  } else {
    tokens = Translator::split_tokens(sentence);
    check_words(index, tokens);
  }
  if (!fit_source(index, &tokens)) return false;
  if (tokens.empty()) return true;  // nothing the model reads: contributes no output
  pending_.push_back(Pending{index, std::move(tokens), std::move(prefix)});
  ++lines_.back().count;
  return true;
}

// A source above --max-source-len: cut to it (one warning per line), or with --on-long-input error
// reported (false).
bool TranslateStream::fit_source(size_t index, std::vector<std::string>* tokens) {
  const size_t count = tokens->size();
  if (count <= translator_.max_source_tokens()) return true;
  const std::string what = (split_ ? "a sentence of " : "") + std::to_string(count) +
                           " tokens, more than --max-source-len allows (" +
                           std::to_string(translator_.max_source_tokens()) + ")";
  if (!settings_.truncate_long) {
    translate_error("line " + std::to_string(index + 1) + " has " + what + ": written as an empty line");
    return false;
  }
  translator_.truncate_source(tokens);
  if (!lines_.back().truncated) {
    translate_error(line_error(index, what + ": truncated to " + std::to_string(tokens->size()) + " tokens"));
    lines_.back().truncated = true;
  }
  return true;
}

// Plain text into a model that reads space-separated tokens translates into nonsense without a
// word of complaint: when most words of a line are not in the source vocabulary, say so (once).
void TranslateStream::check_words(size_t index, const std::vector<std::string>& words) {
  if (settings_.tokens || warned_words_) return;
  size_t unknown = 0;
  for (const std::string& w : words) unknown += translator_.source_vocabulary().id(w) < 0 ? 1 : 0;
  if (unknown * 2 <= words.size()) return;
  warned_words_ = true;
  translate_error(line_error(index, std::to_string(unknown) + " of " + std::to_string(words.size()) +
                                        " words are not in the model's source vocabulary (this model reads "
                                        "space-separated tokens: see --help)"));
}

int TranslateStream::flush() {
  Results results;
  std::vector<std::vector<std::string>> sources, prefixes;
  if (!pending_.empty()) {
    for (auto& p : pending_) {
      sources.push_back(std::move(p.tokens));
      prefixes.push_back(std::move(p.prefix));
    }
    Status s = translator_.translate_tokens(sources, settings_.decode, prefixes_ ? &prefixes : nullptr, &results);
    if (!s) {
      return translate_error("lines " + std::to_string(pending_.front().line_index + 1) + "-" +
                             std::to_string(pending_.back().line_index + 1) + ": " + s.message());
    }
  }
  std::string text;
  for (size_t l = 0; l < lines_.size(); ++l) {
    const size_t line = first_line_ + l;
    const WindowLine& w = lines_[l];
    text.clear();
    if (w.count == 0) {  // nothing to translate: an empty line (scored: an empty hypothesis)
      text = settings_.scored_lines() ? std::to_string(line) + " |||  ||| 0\n" : "\n";
    } else if (int rc = settings_.scored_lines() ? format_scored(line, w, sources, results, &text)
                                                 : format_best(line, w, sources, results, &text)) {
      return rc;
    }
    std::fputs(text.c_str(), stdout);
  }
  std::fflush(stdout);
  first_line_ += lines_.size();
  lines_.clear();
  pending_.clear();
  return kExitOk;
}

// The best hypothesis of each sentence of the line, joined into the line.
int TranslateStream::format_best(size_t line, const WindowLine& w, const std::vector<std::vector<std::string>>& sources,
                                 const Results& results, std::string* text) {
  std::vector<std::string> sentences;
  std::string hypothesis;
  for (size_t i = w.first; i < w.first + w.count; ++i) {
    if (results[i].empty()) continue;
    if (settings_.capture()) {
      Status a = record_attention(line, sources[i], results[i][0]);
      if (!a) return translate_error(line_error(line, a.message()));
    }
    Status r = render(results[i][0], &hypothesis);
    if (!r) return translate_error(line_error(line, r.message()));
    sentences.push_back(line_safe(hypothesis));
  }
  *text = join_sentences(sentences) + "\n";
  return kExitOk;
}

// Scored lines: the line is one sentence (no splitting), each hypothesis on its own line.
int TranslateStream::format_scored(size_t line, const WindowLine& w,
                                   const std::vector<std::vector<std::string>>& sources, const Results& results,
                                   std::string* text) {
  const size_t i = w.first;
  if (settings_.capture() && !results[i].empty()) {
    Status a = record_attention(line, sources[i], results[i][0]);
    if (!a) return translate_error(line_error(line, a.message()));
  }
  std::string hypothesis;
  for (const TranslationHypothesis& h : results[i]) {
    Status r = render(h, &hypothesis);
    if (!r) return translate_error(line_error(line, r.message()));
    char score[64];
    std::snprintf(score, sizeof score, "%.6f", h.score);
    *text += std::to_string(line) + " ||| " + line_safe(hypothesis) + " ||| " + score + "\n";
  }
  return kExitOk;
}

// One hypothesis as output text: detokenized, or its tokens joined with spaces.
Status TranslateStream::render(const TranslationHypothesis& h, std::string* out) const {
  if (source_ == nullptr) {
    *out = join(h.tokens);
    return Status::success();
  }
  return target_->decode(h.ids.data(), h.ids.size(), out);
}

Status TranslateStream::record_attention(size_t line, const std::vector<std::string>& source,
                                         const TranslationHypothesis& h) {
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
