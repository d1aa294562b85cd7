#include "translation_session.h"

#include <algorithm>
#include <string_view>

#include "heed/sentence_splitter.h"

namespace heed::cli::serve {

Status TranslationSession::create(const Model& model, const TranslatorOptions& options,
                                  std::unique_ptr<TranslationSession>* out) {
  auto s = std::unique_ptr<TranslationSession>(new TranslationSession());
  HEED_RETURN_IF_ERROR(Translator::create(model, options, &s->translator_));
  if (s->translator_->conventions().kind != TokenizerKind::Whitespace) {
    HEED_RETURN_IF_ERROR(create_tokenizer(model, TokenizerSide::kSource, &s->source_));
    HEED_RETURN_IF_ERROR(create_tokenizer(model, TokenizerSide::kTarget, &s->target_));
  }
  *out = std::move(s);
  return Status::success();
}

// The text's sentences as source tokens: plain text is split into sentences (models with a
// tokenizer), token text is one sentence; sources longer than the session allows are cut as
// `heed translate` cuts them (its default, --on-long-input truncate). Empty sentences are dropped.
Status TranslationSession::split(const std::string& text, std::vector<std::vector<std::string>>* sentences) const {
  std::vector<std::string> tokens;
  const auto add = [&](std::string_view sentence) -> Status {
    if (source_ != nullptr) {
      HEED_RETURN_IF_ERROR(source_->encode_pieces(sentence, &tokens));
    } else {
      tokens = Translator::split_tokens(sentence);
    }
    translator_->truncate_source(&tokens);
    if (!tokens.empty()) sentences->push_back(std::move(tokens));
    return Status::success();
  };
  if (source_ == nullptr) return add(text);
  SentenceSplitter splitter(text);
  std::string_view sentence;
  while (splitter.next(&sentence)) HEED_RETURN_IF_ERROR(add(sentence));
  return Status::success();
}

Status TranslationSession::render(const TranslationHypothesis& h, std::string* out) const {
  if (target_ != nullptr) return target_->decode(h.ids.data(), h.ids.size(), out);
  out->clear();
  for (const std::string& t : h.tokens) *out += (out->empty() ? "" : " ") + t;
  return Status::success();
}

Status TranslationSession::translate(const std::vector<std::string>& texts, const DecodeOptions& options,
                                     std::vector<std::vector<std::string>>* out, size_t* tokens) {
  std::vector<std::vector<std::string>> sources;
  std::vector<size_t> first(texts.size() + 1, 0);  // text i's sentences: sources[first[i], first[i + 1])
  for (size_t i = 0; i < texts.size(); ++i) {
    HEED_RETURN_IF_ERROR(split(texts[i], &sources));
    first[i + 1] = sources.size();
  }
  std::vector<std::vector<TranslationHypothesis>> results;
  if (!sources.empty()) HEED_RETURN_IF_ERROR(translator_->translate_tokens(sources, options, nullptr, &results));
  *tokens = 0;
  for (const auto& s : sources) *tokens += s.size();
  out->assign(texts.size(), {});
  std::string piece;
  for (size_t i = 0; i < texts.size(); ++i) {
    size_t n = 1;  // an empty text translates to one empty text
    for (size_t s = first[i]; s < first[i + 1]; ++s) n = std::max(n, results[s].size());
    for (size_t k = 0; k < n; ++k) {
      std::vector<std::string> sentences;
      for (size_t s = first[i]; s < first[i + 1]; ++s) {
        if (results[s].empty()) continue;
        const TranslationHypothesis& h = results[s][std::min(k, results[s].size() - 1)];
        HEED_RETURN_IF_ERROR(render(h, &piece));
        if (k == 0) *tokens += h.ids.size();
        sentences.push_back(piece);
      }
      (*out)[i].push_back(join_sentences(sentences));
    }
  }
  return Status::success();
}

}  // namespace heed::cli::serve
