// The loader's checks, one file per concern, shared by Model::init. Every function returns a
// one-line status prefixed with `where` (the file path, or "<memory>") on the first problem found.
// They read only through a verified FlatBuffer, so no bytes of a corrupt file are read out of bounds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heed/model.h"
#include "loader/model_index.h"

namespace heed::loader {

// Enum values come straight from the file; the FlatBuffers verifier does not range-check them.
// Every heed enum starts at 0.
template <typename Enum>
bool known_enum(Enum value) {
  return static_cast<unsigned>(value) <= static_cast<unsigned>(Enum::MAX);
}

inline uint64_t align_up(uint64_t n, uint64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

// Size prefix, file identifier, FlatBuffers verification and format version. On success `*index`
// is the root table and `*weights_offset` the byte offset of the weight segment in the file.
Status check_container(const uint8_t* bytes, size_t size, const std::string& where,
                       const fb::Model** index, uint64_t* weights_offset);

// Family and hyperparameters (validate_config.cpp): each family checks its own union member.
Status validate_config(const fb::Model& index, const std::string& where);

// Every tensor entry, then resolves data and scales pointers into `weights` (weights_size bytes).
Status validate_tensors(const fb::Model& index, const uint8_t* weights, const std::string& where,
                        std::vector<TensorView>* views,
                        std::unordered_map<std::string_view, size_t>* by_name);

// Vocabulary sizes against the hyperparameters, special token ids within the vocabulary.
Status validate_tokenizer(const fb::Model& index, const std::string& where);

// The vocabulary shortlist, when present (validate_vocab_map.cpp): encoder-decoder models only,
// offsets that frame their ids, keys sorted and unique, every id within its side's vocab_size.
Status validate_vocab_map(const fb::Model& index, const std::string& where);

}  // namespace heed::loader
