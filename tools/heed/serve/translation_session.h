// One worker's translation session: a Translator over a shared Model and the model's tokenizers,
// turning whole texts into translated texts the way `heed translate` does its lines (plain text
// split into sentences, each sentence tokenized, cut to the source limit, translated, detokenized
// and joined), so the server answers exactly what the command line prints.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "heed/decoding.h"
#include "heed/model.h"
#include "heed/tokenizer.h"
#include "heed/translator.h"

namespace heed::cli::serve {

class TranslationSession {
 public:
  static Status create(const Model& model, const TranslatorOptions& options, std::unique_ptr<TranslationSession>* out);

  // out[i]: up to options.n_best translations of texts[i], best first. With several hypotheses,
  // hypothesis k of a text joins hypothesis k of each of its sentences (the last one a sentence
  // has when it has fewer). *tokens: source and output tokens, for the request log.
  Status translate(const std::vector<std::string>& texts, const DecodeOptions& options,
                   std::vector<std::vector<std::string>>* out, size_t* tokens);

  const Translator& translator() const { return *translator_; }

 private:
  Status split(const std::string& text, std::vector<std::vector<std::string>>* sentences) const;
  Status render(const TranslationHypothesis& h, std::string* out) const;

  std::unique_ptr<Translator> translator_;
  std::unique_ptr<Tokenizer> source_, target_;  // null: a model that reads space-separated tokens
};

}  // namespace heed::cli::serve
