// Hugging Face tokenizers' Unigram tokenizer (tokenizer.json with a Unigram model: XLM-RoBERTa,
// multilingual e5, T5-style SentencePiece exports), as the `tokenizers` library encodes text:
//   1. added tokens written in the text (the file's special_ids: <s>, <mask>, ...) are split out
//      first, the leftmost and then the longest; one marked lstrip / rstrip also takes the
//      whitespace before / after it;
//   2. each stretch between them goes through the text steps (text_steps.h: normalizers, then
//      WhitespaceSplit and Metaspace);
//   3. each word through the Unigram model (unigram_model.h).
// No special tokens are added (the post-processor's <s> ... </s> are the file's bos_id / eos_id,
// which the encoder tasks add). Text that is not valid UTF-8 is an error.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "heed/status.h"
#include "heed/tokenizer.h"
#include "heed_generated.h"

namespace heed::tokenizer {

// `tokens`: the target vocabulary; `tok` holds the scores, the unknown id, the added tokens and
// the text steps (Tokenizer.unigram).
Status create_unigram_tokenizer(const fb::Tokenizer& tok, std::vector<std::string> tokens, const TokenizerOptions& options,
                                std::unique_ptr<Tokenizer>* out);

}  // namespace heed::tokenizer
