// The text files beside a CTranslate2 model.bin: config.json and the vocabularies.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "heed/status.h"

namespace heed::convert::ct2 {

// config.json (absent in older model folders: then CTranslate2's defaults apply).
struct Config {
  std::string unk_token = "<unk>";
  std::string bos_token = "<s>";
  std::string eos_token = "</s>";
  std::optional<std::string> decoder_start_token = std::string("<s>");  // null: given by the caller
  bool add_source_bos = false;
  bool add_source_eos = false;
  std::optional<float> layer_norm_epsilon;  // null or absent: CTranslate2's default
  bool from_file = false;
};

Status read_config(const std::string& dir, Config* out);

// One vocabulary file: a JSON array of strings (*.json) or one token per line (anything else).
Status read_vocabulary_file(const std::string& path, std::vector<std::string>* tokens);

struct Vocabularies {
  std::vector<std::string> source;  // empty for decoder-only models
  std::vector<std::string> target;
  bool shared = false;              // one file serves both sides
  std::string source_file, target_file;
};

// Finds and reads the vocabularies the way CTranslate2 does: shared_vocabulary.* for both sides,
// else source_vocabulary.* and target_vocabulary.* (sequence-to-sequence), or vocabulary.*
// (language models), JSON preferred over text. Like CTranslate2, appends `unk_token` to a
// vocabulary that lacks it.
Status read_vocabularies(const std::string& dir, bool sequence_to_sequence, const std::string& unk_token,
                         Vocabularies* out);

}  // namespace heed::convert::ct2
