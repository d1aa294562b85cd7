#include "translation_session.h"

#include <string_view>

namespace heed::cli::serve {

Status TranslationSession::create(const Model& model, const TranslatorOptions& options, const ServeOptions& limits,
                                  std::unique_ptr<TranslationSession>* out) {
  auto s = std::unique_ptr<TranslationSession>(new TranslationSession());
  HEED_RETURN_IF_ERROR(Translator::create(model, options, &s->translator_));
  TextTranslatorOptions text;
  text.max_sentences = limits.max_request_sentences;
  text.max_tokens = limits.max_request_tokens;
  text.sentence_limit_name = "--max-request-sentences";
  text.token_limit_name = "--max-request-tokens";
  HEED_RETURN_IF_ERROR(TextTranslator::create(model, *s->translator_, text, &s->text_));
  *out = std::move(s);
  return Status::success();
}

Status TranslationSession::translate(const std::vector<std::string>& texts, const DecodeOptions& options,
                                     std::vector<std::vector<std::string>>* out, size_t* tokens) {
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  std::vector<TextTranslation> results;
  HEED_RETURN_IF_ERROR(text_->translate(views, options, nullptr, &results));
  *tokens = 0;
  out->clear();
  for (size_t i = 0; i < results.size(); ++i) {
    for (const TextLineIssue& e : results[i].errors) {
      const std::string where = texts.size() > 1 ? "text " + std::to_string(i + 1) + ", " : "";
      return Status(e.status.code(), where + "line " + std::to_string(e.line + 1) + ": " + e.status.message());
    }
    for (const TextSentence& s : results[i].sentences) {
      *tokens += s.source.size() + (s.hypotheses.empty() ? 0 : s.hypotheses.front().ids.size());
    }
    out->push_back(std::move(results[i].texts));
  }
  return Status::success();
}

}  // namespace heed::cli::serve
