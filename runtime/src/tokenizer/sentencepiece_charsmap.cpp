#include "tokenizer/sentencepiece_charsmap.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tokenizer/darts.h"

namespace heed::tokenizer {
namespace {

// ModelProto fields holding a NormalizerSpec, and NormalizerSpec's precompiled_charsmap (bytes).
constexpr uint32_t kNormalizerSpec = 3;
constexpr uint32_t kDenormalizerSpec = 5;
constexpr uint32_t kPrecompiledCharsmap = 2;
constexpr int kLengthDelimited = 2;

bool read_varint(std::string_view* in, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && !in->empty(); shift += 7) {
    const auto byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    *value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// Reads one field of a protobuf message; *payload is set for length-delimited fields. False on
// bytes that are not a plain field (truncation, groups, unknown wire types).
bool next_field(std::string_view* in, uint32_t* number, int* wire, std::string_view* payload) {
  uint64_t key = 0;
  if (!read_varint(in, &key)) return false;
  *number = static_cast<uint32_t>(key >> 3);
  *wire = static_cast<int>(key & 7);
  uint64_t skip = 0;
  switch (*wire) {
    case 0: return read_varint(in, &skip);
    case 1: skip = 8; break;
    case 5: skip = 4; break;
    case kLengthDelimited:
      if (!read_varint(in, &skip) || skip > in->size()) return false;
      *payload = in->substr(0, static_cast<size_t>(skip));
      break;
    default: return false;
  }
  if (skip > in->size()) return false;
  in->remove_prefix(static_cast<size_t>(skip));
  return true;
}

// The charsmap the library ends up with for one spec field: repeated occurrences of a message
// field merge, and the last value of a bytes field wins.
bool last_charsmap(std::string_view proto, uint32_t spec_field, std::string_view* charsmap) {
  *charsmap = {};
  while (!proto.empty()) {
    uint32_t number = 0;
    int wire = 0;
    std::string_view spec;
    if (!next_field(&proto, &number, &wire, &spec)) return false;
    if (number != spec_field || wire != kLengthDelimited) continue;
    while (!spec.empty()) {
      std::string_view value;
      if (!next_field(&spec, &number, &wire, &value)) return false;
      if (number == kPrecompiledCharsmap && wire == kLengthDelimited) *charsmap = value;
    }
  }
  return true;
}

}  // namespace

using darts::has_leaf;

Status check_precompiled_charsmap(std::string_view blob) {
  if (blob.empty()) return Status::success();  // no normalization table: the library builds no trie
  uint32_t trie_bytes = 0;
  if (blob.size() <= sizeof trie_bytes) return invalid_file("its normalization table is truncated");
  std::memcpy(&trie_bytes, blob.data(), sizeof trie_bytes);
  blob.remove_prefix(sizeof trie_bytes);
  if (trie_bytes > blob.size()) return invalid_file("its normalization trie is larger than the table");
  const size_t count = trie_bytes / sizeof(uint32_t);
  if (count == 0) return invalid_file("its normalization trie is empty");
  std::vector<uint32_t> units(count);
  std::memcpy(units.data(), blob.data(), count * sizeof(uint32_t));
  const std::string_view replacements = blob.substr(trie_bytes);

  // Every state a prefix search can reach, from the root: the search reads units[state ^ byte]
  // for any input byte, then, on a leaf, units[child] and the NUL-terminated string it points at.
  std::vector<bool> seen(count, false);
  std::vector<uint32_t> pending;
  const auto reach = [&](uint32_t state) -> bool {
    if ((static_cast<uint64_t>(state) | 0xFFu) >= count) return false;
    if (!seen[state]) {
      seen[state] = true;
      pending.push_back(state);
    }
    return true;
  };
  if (!reach(darts::offset(units[0]))) return invalid_file("its normalization trie points outside itself");
  while (!pending.empty()) {
    const uint32_t state = pending.back();
    pending.pop_back();
    for (uint32_t byte = 0; byte < 256; ++byte) {
      const uint32_t position = state ^ byte;
      const uint32_t unit = units[position];
      if (darts::label(unit) != byte) continue;
      const uint32_t child = position ^ darts::offset(unit);
      if (has_leaf(unit)) {
        if (child >= count) return invalid_file("its normalization trie points outside itself");
        const uint32_t at = darts::value(units[child]);
        if (at >= replacements.size() || std::memchr(replacements.data() + at, '\0', replacements.size() - at) == nullptr) {
          return invalid_file("its normalization table points outside its replacement strings");
        }
      }
      if (!reach(child)) return invalid_file("its normalization trie points outside itself");
    }
  }
  return Status::success();
}

Status check_sentencepiece_charsmaps(std::string_view model_proto) {
  for (const uint32_t field : {kNormalizerSpec, kDenormalizerSpec}) {
    std::string_view charsmap;
    if (!last_charsmap(model_proto, field, &charsmap)) return invalid_file("it is not a plain protobuf message");
    Status s = check_precompiled_charsmap(charsmap);
    if (!s.is_ok()) return s;
  }
  return Status::success();
}

}  // namespace heed::tokenizer
