// SentencePiece model files a converter embeds (Marian's source/target.spm, Llama's
// tokenizer.model), checked at conversion as the runtime will load them. A file of its own, so that
// only the readers that embed one link the SentencePiece library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/status.h"

namespace heed::convert {

// The file (source_files.h's checked reader), then heed/tokenizer.h's check_sentencepiece_model:
// a truncated or random file is refused at conversion with one line naming `path`.
Status read_sentencepiece_model(const std::string& path, std::vector<uint8_t>* out);

}  // namespace heed::convert
