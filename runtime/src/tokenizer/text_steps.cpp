#include "tokenizer/text_steps.h"

#include "heed/utf8.h"

namespace heed::tokenizer {
namespace {

bool is_white_space(char32_t c) {  // Unicode's White_Space property
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

size_t count_spaces(std::string_view text, size_t at) {
  size_t n = 0;
  while (at + n < text.size() && text[at + n] == ' ') ++n;
  return n;
}

// Replace's regex ` {2,}`: every run of two or more spaces.
std::string replace_space_runs(std::string_view text, const std::string& content) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t run = count_spaces(text, i);
    if (run >= 2) {
      out += content;
      i += run;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// Replace's regex `\A +| +\z`: the spaces that start the text, and those that end it.
std::string replace_edge_spaces(std::string_view text, const std::string& content) {
  const size_t lead = count_spaces(text, 0);
  if (lead == text.size()) return lead > 0 ? content : std::string();
  size_t trail = 0;
  while (text[text.size() - 1 - trail] == ' ') ++trail;
  std::string out = lead > 0 ? content : std::string();
  out.append(text.substr(lead, text.size() - lead - trail));
  if (trail > 0) out += content;
  return out;
}

std::string replace_literal(std::string_view text, const std::string& pattern, const std::string& content) {
  std::string out;
  size_t i = 0;
  for (size_t at = text.find(pattern); at != std::string_view::npos; at = text.find(pattern, i)) {
    out.append(text.substr(i, at - i));
    out += content;
    i = at + pattern.size();
  }
  out.append(text.substr(i));
  return out;
}

}  // namespace

size_t whitespace_length(std::string_view text, size_t at) {
  char32_t c = 0;
  const size_t n = text::utf8_sequence_length(text, at, &c);
  return n > 0 && is_white_space(c) ? n : 0;
}

size_t whitespace_length_before(std::string_view text, size_t end) {
  size_t start = end;
  while (start > 0 && end - start < 4) {
    --start;
    if ((static_cast<unsigned char>(text[start]) & 0xC0) != 0x80) break;
  }
  return start < end && whitespace_length(text, start) == end - start ? end - start : 0;
}

Status TextSteps::make_step(const fb::TextStep& spec, Step* out) {
  out->kind = spec.kind();
  out->content = spec.content() ? spec.content()->str() : "";
  out->left = spec.left();
  out->right = spec.right();
  const std::string pattern = spec.pattern() ? spec.pattern()->str() : "";
  switch (spec.kind()) {
    case fb::TextStepKind::Precompiled: {
      const auto* blob = spec.charsmap();
      const std::string_view bytes = blob ? std::string_view(reinterpret_cast<const char*>(blob->data()), blob->size()) : "";
      const Status s = PrecompiledCharsmap::create(bytes, &out->charsmap);
      if (!s.is_ok()) return invalid_file("the Unigram tokenizer's Precompiled normalizer: " + s.message());
      return Status::success();
    }
    case fb::TextStepKind::Replace:
      if (!spec.regex()) {
        if (pattern.empty()) return invalid_file("the Unigram tokenizer replaces an empty text");
        out->literal = pattern;
      } else if (pattern == " {2,}") {
        out->pattern = Pattern::kSpaceRuns;
      } else if (pattern == "\\A +| +\\z") {
        out->pattern = Pattern::kEdgeSpaces;
      } else if (pattern == "\\A\xE2\x96\x81") {
        out->pattern = Pattern::kLeadingReplacement;
      } else {
        return invalid_file("the Unigram tokenizer's Replace pattern '" + pattern + "' is not one heed runs");
      }
      return Status::success();
    case fb::TextStepKind::Strip:
    case fb::TextStepKind::Prepend:
      return Status::success();
  }
  return invalid_file("the Unigram tokenizer has an unknown text step");
}

Status TextSteps::create(const fb::UnigramText& spec, TextSteps* out) {
  TextSteps t;
  if (spec.normalizers()) {
    for (const fb::TextStep* s : *spec.normalizers()) {
      t.steps_.emplace_back();
      HEED_RETURN_IF_ERROR(make_step(*s, &t.steps_.back()));
    }
  }
  t.whitespace_split_ = spec.whitespace_split();
  t.metaspace_ = spec.metaspace();
  t.split_ = spec.split();
  t.prepend_scheme_ = spec.prepend_scheme();
  t.replacement_ = spec.replacement() ? spec.replacement()->str() : "";
  if (t.metaspace_ && (t.replacement_.empty() || text::utf8_sequence_length(t.replacement_, 0) != t.replacement_.size())) {
    return invalid_file("the Unigram tokenizer's Metaspace replacement is not one character");
  }
  *out = std::move(t);
  return Status::success();
}

void TextSteps::apply(const Step& step, std::string* text) {
  switch (step.kind) {
    case fb::TextStepKind::Precompiled: {
      std::string normalized;
      step.charsmap.normalize(*text, &normalized);
      *text = std::move(normalized);
      return;
    }
    case fb::TextStepKind::Replace:
      if (step.pattern == Pattern::kLiteral) *text = replace_literal(*text, step.literal, step.content);
      if (step.pattern == Pattern::kSpaceRuns) *text = replace_space_runs(*text, step.content);
      if (step.pattern == Pattern::kEdgeSpaces) *text = replace_edge_spaces(*text, step.content);
      if (step.pattern == Pattern::kLeadingReplacement && text->rfind("\xE2\x96\x81", 0) == 0) {
        text->replace(0, 3, step.content);
      }
      return;
    case fb::TextStepKind::Strip: {
      size_t begin = 0, end = text->size();
      while (step.left && begin < end && whitespace_length(*text, begin) > 0) begin += whitespace_length(*text, begin);
      while (step.right && end > begin && whitespace_length_before(*text, end) > 0) end -= whitespace_length_before(*text, end);
      *text = text->substr(begin, end - begin);
      return;
    }
    case fb::TextStepKind::Prepend:
      if (!text->empty()) text->insert(0, step.content);
      return;
  }
}

void TextSteps::normalize(std::string_view text, std::string* out) const {
  *out = std::string(text);
  for (const Step& step : steps_) apply(step, out);
}

bool TextSteps::keeps_first_character(std::string_view stretch) const {
  std::string first;
  normalize(stretch.substr(0, std::max<size_t>(1, text::utf8_sequence_length(stretch, 0))), &first);
  return !first.empty();
}

// Metaspace on one word: spaces become the replacement, which the prepend scheme may put first;
// with `split`, every replacement character starts a new word.
void TextSteps::metaspace_words(std::string word, bool prepend, std::vector<std::string>* words) const {
  word = replace_literal(word, " ", replacement_);
  if (prepend && !word.empty() && word.rfind(replacement_, 0) != 0) word.insert(0, replacement_);
  if (!split_) {
    if (!word.empty()) words->push_back(std::move(word));
    return;
  }
  size_t begin = 0;
  for (size_t at = word.find(replacement_, 1); at != std::string::npos; at = word.find(replacement_, at + 1)) {
    if (at > begin) words->push_back(word.substr(begin, at - begin));
    begin = at;
  }
  if (begin < word.size()) words->push_back(word.substr(begin));
}

void TextSteps::pre_tokenize(std::string_view normalized, bool at_text_start, std::vector<std::string>* words) const {
  std::vector<std::string> parts;
  if (whitespace_split_) {
    size_t i = 0;
    while (i < normalized.size()) {
      size_t end = i;
      while (end < normalized.size() && whitespace_length(normalized, end) == 0) {
        end += std::max<size_t>(1, text::utf8_sequence_length(normalized, end));
      }
      if (end > i) parts.emplace_back(normalized.substr(i, end - i));
      i = end;
      while (i < normalized.size() && whitespace_length(normalized, i) > 0) i += whitespace_length(normalized, i);
    }
  } else if (!normalized.empty()) {
    parts.emplace_back(normalized);
  }
  const bool prepend = prepend_scheme_ == fb::PrependScheme::Always ||
                       (prepend_scheme_ == fb::PrependScheme::First && at_text_start);
  for (std::string& part : parts) {
    if (metaspace_) {
      metaspace_words(std::move(part), prepend, words);
    } else {
      words->push_back(std::move(part));
    }
  }
}

}  // namespace heed::tokenizer
