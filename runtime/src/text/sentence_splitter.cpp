// The sentence splitter (heed/sentence_splitter.h): ICU's sentence boundaries, then the boundaries a
// reader of the language would not split at dropped (text/abbreviations.h).
#include "heed/sentence_splitter.h"

#include <climits>
#include <cstdint>

#include <unicode/brkiter.h>
#include <unicode/uchar.h>
#include <unicode/udata.h>
#include <unicode/ures.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include "text/abbreviations.h"
#include "heed/utf8.h"

namespace heed {

struct SentenceSplitter::Impl {
  std::string locale_name;
  std::unique_ptr<icu::BreakIterator> breaks;
  text::Abbreviations abbreviations;
};

namespace {

const uint8_t* bytes(std::string_view text) { return reinterpret_cast<const uint8_t*>(text.data()); }

// A language as recorded ("de", "pt-BR", "pt_BR") as an ICU locale; "" is the root locale.
Status parse_language(std::string_view language, icu::Locale* out) {
  if (language.empty()) {
    *out = icu::Locale::getRoot();
    return Status::success();
  }
  std::string tag(language);
  for (char& c : tag) c = c == '_' ? '-' : c;
  UErrorCode status = U_ZERO_ERROR;
  *out = icu::Locale::forLanguageTag(tag, status);
  if (U_FAILURE(status) || out->isBogus() || *out->getLanguage() == '\0') {
    return invalid_argument("'" + std::string(language) + "' is not a language tag (such as de or pt-BR)");
  }
  return Status::success();
}

// Whether ICU has break data for the locale's language. For one it has not, ICU would fall back to
// the process's default locale (often English, with English abbreviations): heed takes root.
bool has_break_data(const icu::Locale& locale) {
  UErrorCode status = U_ZERO_ERROR;
  icu::LocalUResourceBundlePointer bundle(
      ures_open(U_ICUDATA_NAME U_TREE_SEPARATOR_STRING "brkitr", locale.getName(), &status));
  return U_SUCCESS(status) && status != U_USING_DEFAULT_WARNING;
}

// Breaking whitespace (u_isWhitespace leaves the no-break spaces out): what sentences are trimmed of.
bool is_space(UChar32 c) { return u_isWhitespace(c) != 0; }
// Any whitespace, no-break spaces included: what separates an abbreviation from the next word.
bool is_any_space(UChar32 c) { return u_isUWhiteSpace(c) != 0; }
bool is_line_break(UChar32 c) { return c == '\n' || c == '\r' || c == 0x85 || c == 0x2028 || c == 0x2029; }

std::string_view trim_end(std::string_view text, bool (*space)(UChar32) = is_space) {
  int32_t end = static_cast<int32_t>(text.size());
  while (end > 0) {
    int32_t i = end;
    UChar32 c = 0;
    U8_PREV(bytes(text), 0, i, c);
    if (!space(c)) break;
    end = i;
  }
  return text.substr(0, static_cast<size_t>(end));
}

// `text` without its leading whitespace; *line_break: whether that whitespace held a line break.
std::string_view trim_start(std::string_view text, bool* line_break) {
  const int32_t length = static_cast<int32_t>(text.size());
  int32_t begin = 0;
  *line_break = false;
  while (begin < length) {
    int32_t i = begin;
    UChar32 c = 0;
    U8_NEXT(bytes(text), i, length, c);
    if (!is_space(c)) break;
    *line_break = *line_break || is_line_break(c);
    begin = i;
  }
  return text.substr(static_cast<size_t>(begin));
}

bool starts_lowercase(std::string_view text) {
  if (text.empty()) return false;
  int32_t i = 0;
  UChar32 c = 0;
  U8_NEXT(bytes(text), i, static_cast<int32_t>(text.size()), c);
  return u_islower(c) != 0;
}

// Whether the sentence running from `start` goes on past ICU's boundary at `end`: not across a
// line break; yes before a lowercase letter or after an abbreviation.
bool goes_on(const text::Abbreviations& abbreviations, std::string_view paragraph, size_t start, size_t end) {
  const std::string_view before = trim_end(paragraph.substr(start, end - start), is_any_space);
  bool break_before = false, break_after = false;
  trim_start(paragraph.substr(start + before.size(), end - start - before.size()), &break_before);
  const std::string_view after = trim_start(paragraph.substr(end), &break_after);
  if (after.empty() || break_before || break_after) return false;
  return starts_lowercase(after) || abbreviations.ends_with_one(before);
}

// Collects the sentences between the boundaries it is offered, skipping those that do not end one.
class Collector {
 public:
  Collector(const text::Abbreviations& a, std::string_view paragraph, std::vector<std::string_view>* out)
      : abbreviations_(a), paragraph_(paragraph), out_(out) {}

  void boundary(size_t end) {
    if (end < paragraph_.size() && goes_on(abbreviations_, paragraph_, start_, end)) return;
    bool line_break = false;
    const std::string_view sentence = trim_end(trim_start(paragraph_.substr(start_, end - start_), &line_break));
    if (!sentence.empty()) out_->push_back(sentence);
    start_ = end;
  }

 private:
  const text::Abbreviations& abbreviations_;
  std::string_view paragraph_;
  std::vector<std::string_view>* out_;
  size_t start_ = 0;
};

}  // namespace

SentenceSplitter::SentenceSplitter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SentenceSplitter::~SentenceSplitter() = default;

Status SentenceSplitter::create(std::string_view language, std::unique_ptr<SentenceSplitter>* out) {
  icu::Locale locale;
  HEED_RETURN_IF_ERROR(parse_language(language, &locale));
  if (!has_break_data(locale)) locale = icu::Locale::getRoot();
  auto impl = std::make_unique<Impl>();
  UErrorCode status = U_ZERO_ERROR;
  impl->breaks.reset(icu::BreakIterator::createSentenceInstance(locale, status));
  if (U_FAILURE(status) || !impl->breaks) {
    return Status(StatusCode::kInternal, std::string("ICU's sentence rules: ") + u_errorName(status));
  }
  impl->abbreviations = text::Abbreviations::for_locale(locale);
  impl->locale_name = *locale.getName() == '\0' ? "root" : locale.getName();
  out->reset(new SentenceSplitter(std::move(impl)));
  return Status::success();
}

Status SentenceSplitter::split(std::string_view paragraph, std::vector<std::string_view>* sentences) {
  sentences->clear();
  if (paragraph.size() > static_cast<size_t>(INT32_MAX)) return invalid_argument("the text is longer than 2 GB");
  const size_t bad = heed::text::invalid_utf8_at(paragraph);
  if (bad != std::string_view::npos) {
    return invalid_argument("the text is not valid UTF-8 (byte " + std::to_string(bad) + ")");
  }
  UText text = UTEXT_INITIALIZER;
  UErrorCode status = U_ZERO_ERROR;
  utext_openUTF8(&text, paragraph.data(), static_cast<int64_t>(paragraph.size()), &status);
  impl_->breaks->setText(&text, status);
  if (U_FAILURE(status)) {
    utext_close(&text);
    return Status(StatusCode::kInternal, std::string("ICU's sentence iterator: ") + u_errorName(status));
  }
  Collector collector(impl_->abbreviations, paragraph, sentences);
  for (int32_t b = impl_->breaks->next(); b != icu::BreakIterator::DONE; b = impl_->breaks->next()) {
    collector.boundary(static_cast<size_t>(b));
  }
  utext_close(&text);
  return Status::success();
}

const std::string& SentenceSplitter::locale() const { return impl_->locale_name; }

std::string join_sentences(const std::vector<std::string>& sentences) {
  std::string line;
  for (const std::string& s : sentences) {
    if (s.empty()) continue;
    if (!line.empty()) line += ' ';
    line += s;
  }
  return line;
}

}  // namespace heed
