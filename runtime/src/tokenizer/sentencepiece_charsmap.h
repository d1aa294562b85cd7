// Checks the normalization tables inside a SentencePiece model before the library uses them.
//
// A SentencePiece model carries its character normalization as a "precompiled charsmap": a
// Darts double-array trie over UTF-8 bytes plus a blob of NUL-terminated replacement strings.
// libsentencepiece (0.1.97) checks only that the trie's declared size fits in the blob; it then
// walks the trie and reads the replacement strings without bounds checks, so a corrupt table in
// a model file reads outside the model (found by fuzz_sentencepiece_model). heed therefore walks
// every trie state an input could reach and refuses the model unless every read stays inside.
#pragma once

#include <string_view>

#include "heed/status.h"

namespace heed::tokenizer {

// model_proto: the serialized ModelProto the library accepted. Checks the normalizer's and the
// denormalizer's precompiled charsmaps (the values the library would use, protobuf merge rules
// applied). Ok when they are absent or safe; invalid_file with a one-line reason otherwise.
Status check_sentencepiece_charsmaps(std::string_view model_proto);

// One precompiled charsmap blob ([uint32 trie size][trie units][replacement strings]).
Status check_precompiled_charsmap(std::string_view blob);

}  // namespace heed::tokenizer
