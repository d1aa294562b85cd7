// Text in, text out (heed/text_translator.h): lines -> sentences -> tokens -> one translate_tokens
// call -> lines put back together.
#include "heed/text_translator.h"

#include <algorithm>
#include <utility>

namespace heed {

// One line of a text as it is put back together: its sentences' byte ranges in the line, each with
// its TextSentence (npos: it had no tokens, so no translation).
struct TextTranslator::Line {
  struct Segment {
    size_t begin = 0, end = 0;
    size_t sentence = std::string_view::npos;
  };
  std::string_view text;
  std::vector<Segment> segments;
};

namespace {

// The sentence language: the caller's, else the model's record (one that is no language tag is a
// conversion's business, not the caller's: no abbreviations then).
Status create_splitter(const Model& model, const std::string& language, std::unique_ptr<SentenceSplitter>* out) {
  if (!language.empty()) return SentenceSplitter::create(language, out);
  const char* recorded = model.metadata("source_language");
  if (recorded != nullptr && SentenceSplitter::create(recorded, out).is_ok()) return Status::success();
  return SentenceSplitter::create("", out);
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t begin = 0;;) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    lines.push_back(text.substr(begin, end - begin));
    if (end == text.size()) return lines;
    begin = end + 1;
  }
}

}  // namespace

TextTranslator::TextTranslator(Translator& translator, const TextTranslatorOptions& options)
    : translator_(translator), options_(options) {}

TextTranslator::~TextTranslator() = default;

Status TextTranslator::create(const Model& model, Translator& translator, const TextTranslatorOptions& options,
                              std::unique_ptr<TextTranslator>* out) {
  std::unique_ptr<TextTranslator> t(new TextTranslator(translator, options));
  if (!options.tokens && translator.conventions().kind != TokenizerKind::Whitespace) {
    HEED_RETURN_IF_ERROR(create_tokenizer(model, TokenizerSide::kSource, &t->source_));
    HEED_RETURN_IF_ERROR(create_tokenizer(model, TokenizerSide::kTarget, &t->target_));
  }
  HEED_RETURN_IF_ERROR(create_splitter(model, options.source_language, &t->splitter_));
  *out = std::move(t);
  return Status::success();
}

// One sentence (or unsplit line) of line `index`, as tokens the model reads: cut to the source
// limit (noted once per line) or refused when cutting is off.
Status TextTranslator::add_sentence(std::string_view sentence, size_t index, bool split, TextTranslation* t,
                                    Line* line) {
  std::vector<std::string> tokens;
  if (source_ != nullptr) {
    HEED_RETURN_IF_ERROR(source_->encode_pieces(sentence, &tokens));
  } else {
    tokens = Translator::split_tokens(sentence);
  }
  const size_t count = tokens.size(), limit = translator_.max_source_tokens();
  if (count > limit) {
    const std::string what = (split ? "a sentence of " : "") + std::to_string(count) +
                             " tokens, more than " + options_.source_limit_name + " allows (" +
                             std::to_string(limit) + ")";
    if (!options_.truncate_long) return Status(StatusCode::kLimitExceeded, what);
    translator_.truncate_source(&tokens);
    if (t->truncated.empty() || t->truncated.back().line != index) {
      const std::string cut = what + ": truncated to " + std::to_string(tokens.size()) + " tokens";
      t->truncated.push_back(TextLineIssue{index, Status(StatusCode::kLimitExceeded, cut)});
    }
  }
  Line::Segment segment;
  segment.begin = static_cast<size_t>(sentence.data() - line->text.data());
  segment.end = segment.begin + sentence.size();
  if (!tokens.empty()) {  // nothing the model reads: no translation
    segment.sentence = t->sentences.size();
    t->sentences.push_back(TextSentence{index, std::move(tokens), {}});
  }
  line->segments.push_back(segment);
  return Status::success();
}

// A line as sentences; a line that fails is left with none and reported.
void TextTranslator::prepare_line(std::string_view text, size_t index, TextTranslation* t, Line* line) {
  line->text = text;
  const size_t first = t->sentences.size();
  const bool split = options_.split_sentences && source_ != nullptr;
  Status s;
  if (split) {
    std::vector<std::string_view> sentences;
    s = splitter_->split(text, &sentences);
    for (size_t i = 0; s.is_ok() && i < sentences.size(); ++i) s = add_sentence(sentences[i], index, true, t, line);
  } else {
    s = add_sentence(text, index, false, t, line);
  }
  if (!s.is_ok()) {
    t->sentences.resize(first);
    line->segments.clear();
    if (!t->truncated.empty() && t->truncated.back().line == index) t->truncated.pop_back();
    t->errors.push_back(TextLineIssue{index, std::move(s)});
  }
}

Status TextTranslator::render(const TranslationHypothesis& h, std::string* text) const {
  if (target_ != nullptr) return target_->decode(h.ids.data(), h.ids.size(), text);
  text->clear();
  for (size_t j = 0; j < h.tokens.size(); ++j) *text += (j ? " " : "") + h.tokens[j];
  return Status::success();
}

Status TextTranslator::target_tokens(std::string_view text, std::vector<std::string>* tokens) const {
  if (target_ != nullptr) return target_->encode_pieces(text, tokens);
  *tokens = Translator::split_tokens(text);
  return Status::success();
}

// Translation k of the text: each line's sentences' hypothesis k (or their last) separated by the
// whitespace between the sentences (one space where there was none). The line's leading and
// trailing whitespace is left out, as tokenizers drop it (a "\r" kept there would be an escape in
// `heed translate`'s output).
Status TextTranslator::join(const std::vector<Line>& lines, size_t k, const TextTranslation& t,
                            std::string* text) const {
  text->clear();
  std::string piece;
  for (size_t l = 0; l < lines.size(); ++l) {
    if (l) *text += '\n';
    const Line& line = lines[l];
    bool any = false;
    for (size_t j = 0; j < line.segments.size(); ++j) {
      const Line::Segment& s = line.segments[j];
      if (s.sentence == std::string_view::npos || t.sentences[s.sentence].hypotheses.empty()) continue;
      const std::vector<TranslationHypothesis>& h = t.sentences[s.sentence].hypotheses;
      HEED_RETURN_IF_ERROR(render(h[std::min(k, h.size() - 1)], &piece));
      if (piece.empty()) continue;
      if (any) {
        const size_t previous_end = line.segments[j - 1].end;
        const std::string_view gap = line.text.substr(previous_end, s.begin - previous_end);
        *text += gap.empty() ? std::string_view(" ") : gap;
      }
      *text += piece;
      any = true;
    }
  }
  return Status::success();
}

// The call's limits (TextTranslatorOptions::max_sentences, ::max_tokens), before any decoding.
Status TextTranslator::check_call_limits(const std::vector<std::vector<std::string>>& sources) const {
  const auto over = [](size_t count, const char* what, size_t limit, const std::string& name) {
    return Status(StatusCode::kLimitExceeded, std::to_string(count) + what + ", more than " + name + " allows (" +
                                                  std::to_string(limit) + ")");
  };
  if (options_.max_sentences > 0 && sources.size() > options_.max_sentences) {
    return over(sources.size(), " sentences", options_.max_sentences, options_.sentence_limit_name);
  }
  size_t tokens = 0;
  for (const auto& s : sources) tokens += s.size();
  if (options_.max_tokens > 0 && tokens > options_.max_tokens) {
    return over(tokens, " source tokens", options_.max_tokens, options_.token_limit_name);
  }
  return Status::success();
}

Status TextTranslator::translate(const std::vector<std::string_view>& texts, const DecodeOptions& options,
                                 const std::vector<std::vector<std::string>>* prefixes,
                                 std::vector<TextTranslation>* out) {
  const bool split = options_.split_sentences && source_ != nullptr;
  if (prefixes != nullptr && (prefixes->size() != texts.size() || split)) {
    return invalid_argument("target prefixes need one prefix per text and texts not split into sentences");
  }
  out->assign(texts.size(), TextTranslation{});
  std::vector<std::vector<Line>> lines(texts.size());
  std::vector<std::vector<std::string>> sources, sentence_prefixes;
  std::vector<std::pair<size_t, size_t>> where;  // (text, sentence) of each source
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::vector<std::string_view> parts = lines_of(texts[i]);
    lines[i].resize(parts.size());
    for (size_t l = 0; l < parts.size(); ++l) prepare_line(parts[l], l, &(*out)[i], &lines[i][l]);
    for (size_t s = 0; s < (*out)[i].sentences.size(); ++s) {
      sources.push_back((*out)[i].sentences[s].source);
      if (prefixes != nullptr) sentence_prefixes.push_back((*prefixes)[i]);
      where.emplace_back(i, s);
    }
  }
  HEED_RETURN_IF_ERROR(check_call_limits(sources));
  std::vector<std::vector<TranslationHypothesis>> results;
  if (!sources.empty()) {
    HEED_RETURN_IF_ERROR(
        translator_.translate_tokens(sources, options, prefixes != nullptr ? &sentence_prefixes : nullptr, &results));
  }
  for (size_t n = 0; n < where.size(); ++n) {
    (*out)[where[n].first].sentences[where[n].second].hypotheses = std::move(results[n]);
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    TextTranslation& t = (*out)[i];
    size_t count = 1;  // an empty text translates to one empty text
    for (const TextSentence& s : t.sentences) count = std::max(count, s.hypotheses.size());
    t.texts.resize(count);
    for (size_t k = 0; k < count; ++k) HEED_RETURN_IF_ERROR(join(lines[i], k, t, &t.texts[k]));
  }
  return Status::success();
}

}  // namespace heed
