// SentencePiece model files a converter embeds (Marian's source/target.spm, Llama's
// tokenizer.model), checked at conversion as the runtime will load them. A file of its own, so that
// only the readers that embed one link the SentencePiece library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert {

// The file (source_files.h's checked reader), then heed/tokenizer.h's check_sentencepiece_model:
// a truncated or random file is refused at conversion with one line naming `path`.
Status read_sentencepiece_model(const std::string& path, std::vector<uint8_t>* out);

// A translation model read with whitespace vocabularies (a CTranslate2 folder) gets the
// SentencePiece models that split its source text and join its target pieces (CTranslate2's
// OPUS-MT guide keeps them beside the folder as source.spm / target.spm), so that it translates
// plain text. Each file is read and checked as above; a model that is not an encoder-decoder with
// whitespace vocabularies is refused.
Status embed_sentencepiece_models(const std::string& source_path, const std::string& target_path, NeutralModel* model);

}  // namespace heed::convert
