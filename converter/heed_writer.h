// Serializes a NeutralModel as a .heed file (schema/heed.fbs, docs/format.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/status.h"
#include "atomic_file.h"
#include "neutral_model.h"

namespace heed::convert {

// Builds the whole file in memory: size-prefixed FlatBuffer, padding, 64-byte aligned weights.
Status serialize_heed(const NeutralModel& model, std::vector<uint8_t>* out);

inline Status write_heed(const NeutralModel& model, const std::string& path) {
  std::vector<uint8_t> bytes;
  HEED_RETURN_IF_ERROR(serialize_heed(model, &bytes));
  return write_file_atomically(path, bytes);
}

}  // namespace heed::convert
