// Darts-clone double-array units, the trie SentencePiece's precompiled charsmaps are made of,
// decoded the way Darts-clone's own traversal decodes them. Shared by the check of a charsmap
// (sentencepiece_charsmap.*) and by the normalizer that applies one (precompiled_charsmap.*).
#pragma once

#include <cstdint>

namespace heed::tokenizer::darts {

inline bool has_leaf(uint32_t unit) { return ((unit >> 8) & 1) != 0; }
inline uint32_t value(uint32_t unit) { return unit & ((1u << 31) - 1); }
inline uint32_t label(uint32_t unit) { return unit & ((1u << 31) | 0xFFu); }
inline uint32_t offset(uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }

}  // namespace heed::tokenizer::darts
