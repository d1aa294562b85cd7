// One worker's translation session: a Translator over a shared Model and the runtime's text path
// (heed/text_translator.h), so the server answers exactly what `heed translate` prints: sentences
// split by the model's source language, sources over the limit cut (as `heed translate`'s default,
// --on-long-input truncate), lines kept.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "heed/decoding.h"
#include "heed/model.h"
#include "heed/text_translator.h"
#include "heed/translator.h"
#include "serve_options.h"

namespace heed::cli::serve {

class TranslationSession {
 public:
  // `limits`: the server's per-request limits on sentences and source tokens (a request over one
  // fails with kLimitExceeded naming the flag: request_limit_of()).
  static Status create(const Model& model, const TranslatorOptions& options, const ServeOptions& limits,
                       std::unique_ptr<TranslationSession>* out);

  // out[i]: up to options.n_best translations of texts[i], best first (heed::TextTranslation::texts).
  // A line that cannot be translated fails the request, naming the text and line. *tokens: source
  // and output tokens, for the request log. options.cancel / options.deadline stop the decoding
  // between two steps (kCancelled, kDeadlineExceeded): the session is free again at once.
  Status translate(const std::vector<std::string>& texts, const DecodeOptions& options,
                   std::vector<std::vector<std::string>>* out, size_t* tokens);

  const Translator& translator() const { return *translator_; }

 private:
  std::unique_ptr<Translator> translator_;
  std::unique_ptr<TextTranslator> text_;
};

}  // namespace heed::cli::serve
