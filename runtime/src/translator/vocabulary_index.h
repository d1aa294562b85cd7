// A Vocabulary (heed/translator.h) from the file's vocabulary table. Internal: the public header
// names no FlatBuffers type.
#pragma once

#include "heed/translator.h"
#include "loader/model_index.h"

namespace heed {

Vocabulary vocabulary_from_index(const fb::Vocabulary* vocabulary);  // null -> empty

}  // namespace heed
