// The vocabulary shortlist (Model.vocab_map, schema/heed.fbs) against the model: its offsets frame
// every key and candidate list inside their id arrays, the keys are sorted and unique (the runtime
// binary-searches them) and every id indexes its side's vocabulary. The FlatBuffers verifier has
// already checked the required vectors exist and lie inside the file; every bound here is compared
// in 64 bits, so no offset can wrap around a uint32.
#include <algorithm>

#include "loader/model_index.h"
#include "loader/validate.h"

namespace heed::loader {

namespace {

// `offsets` (named `name`) frames `ids_size` ids: at least one entry, from 0, non-decreasing, the
// last equal to `ids_size`.
Status check_offsets(const flatbuffers::Vector<uint32_t>& offsets, uint64_t ids_size, const std::string& at,
                     const char* name, const char* ids_name) {
  if (offsets.size() == 0) return invalid_file(at + name + " is empty (it holds keys + 1 entries, from 0)");
  if (offsets.Get(0) != 0) return invalid_file(at + name + "[0] is " + std::to_string(offsets.Get(0)) + ", not 0");
  for (flatbuffers::uoffset_t i = 1; i < offsets.size(); ++i) {
    if (offsets.Get(i) < offsets.Get(i - 1)) {
      return invalid_file(at + name + "[" + std::to_string(i) + "] " + std::to_string(offsets.Get(i)) + " is below " +
                          name + "[" + std::to_string(i - 1) + "] " + std::to_string(offsets.Get(i - 1)));
    }
  }
  const uint64_t last = offsets.Get(offsets.size() - 1);
  if (last != ids_size) {
    return invalid_file(at + name + " ends at " + std::to_string(last) + " but " + ids_name + " holds " +
                        std::to_string(ids_size) + " ids");
  }
  return Status::success();
}

Status check_ids(const flatbuffers::Vector<int32_t>& ids, uint32_t vocab_size, const std::string& at, const char* name,
                 const char* side) {
  for (flatbuffers::uoffset_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids.Get(i);
    if (id < 0 || static_cast<uint32_t>(id) >= vocab_size) {
      return invalid_file(at + name + "[" + std::to_string(i) + "] " + std::to_string(id) + " is outside the " + side +
                          " vocabulary (" + std::to_string(vocab_size) + " tokens)");
    }
  }
  return Status::success();
}

// Each key's length within 1..max_ngram, and each key after the one before it (lexicographic on
// ids, a proper prefix first). Assumes check_offsets passed on key_offsets.
Status check_keys(const fb::VocabMap& map, const std::string& at) {
  const auto& offsets = *map.key_offsets();
  const auto& ids = *map.key_ids();
  for (flatbuffers::uoffset_t k = 0; k + 1 < offsets.size(); ++k) {
    const uint32_t begin = offsets.Get(k), end = offsets.Get(k + 1);
    if (end - begin == 0 || end - begin > map.max_ngram()) {
      return invalid_file(at + "key " + std::to_string(k) + " has " + std::to_string(end - begin) +
                          " ids (keys have 1.." + std::to_string(map.max_ngram()) + ", max_ngram)");
    }
    if (k == 0) continue;
    const uint32_t previous = offsets.Get(k - 1);
    if (!std::lexicographical_compare(ids.begin() + previous, ids.begin() + begin, ids.begin() + begin,
                                      ids.begin() + end)) {
      return invalid_file(at + "key " + std::to_string(k) + " does not sort after key " + std::to_string(k - 1) +
                          " (keys are unique and sorted by their ids)");
    }
  }
  return Status::success();
}

}  // namespace

Status validate_vocab_map(const fb::Model& index, const std::string& where) {
  const fb::VocabMap* map = index.vocab_map();
  if (!map) return Status::success();
  const std::string at = where + ": vocab_map: ";
  const auto* config = index.config_as_TransformerEncoderDecoder();
  if (!config) {
    return invalid_file(at + "a vocabulary shortlist needs a TransformerEncoderDecoder model, not " +
                        fb::EnumNameModelConfig(index.config_type()));
  }
  if (map->max_ngram() == 0) return invalid_file(at + "max_ngram is 0 (keys have at least one id)");
  HEED_RETURN_IF_ERROR(check_offsets(*map->key_offsets(), map->key_ids()->size(), at, "key_offsets", "key_ids"));
  HEED_RETURN_IF_ERROR(
      check_offsets(*map->target_offsets(), map->target_ids()->size(), at, "target_offsets", "target_ids"));
  if (map->key_offsets()->size() != map->target_offsets()->size()) {
    return invalid_file(at + "key_offsets has " + std::to_string(map->key_offsets()->size()) +
                        " entries but target_offsets " + std::to_string(map->target_offsets()->size()) +
                        " (both are keys + 1)");
  }
  HEED_RETURN_IF_ERROR(check_ids(*map->key_ids(), config->encoder()->vocab_size(), at, "key_ids", "source"));
  HEED_RETURN_IF_ERROR(check_keys(*map, at));
  HEED_RETURN_IF_ERROR(check_ids(*map->target_ids(), config->decoder()->vocab_size(), at, "target_ids", "target"));
  if (map->always()) {
    HEED_RETURN_IF_ERROR(check_ids(*map->always(), config->decoder()->vocab_size(), at, "always", "target"));
  }
  return Status::success();
}

}  // namespace heed::loader
