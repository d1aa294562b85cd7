// What a loaded .heed file holds, as plain values: the file's format version, producer, model
// family and every hyperparameter, tokenizer, vocabulary shortlist, metadata, tensors and totals.
// For front ends that report on a model (heed inspect, heed bench, heed serve, Python's
// heed.inspect) without reaching into the runtime's file index.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "heed/model.h"
#include "heed/tokenizer.h"

namespace heed {

// One reported value: its text form always, and its typed value for reports that keep types (JSON).
struct DescriptionEntry {
  enum class Kind { Text, Unsigned, Signed, Flag, Real };
  std::string key;
  std::string text;
  Kind kind = Kind::Text;
  uint64_t unsigned_value = 0;
  int64_t signed_value = 0;
  bool flag = false;
  float real = 0.0f;
};

// A titled group of values: "file", "producer", "family", "encoder"/"decoder", "tokenizer",
// "vocab_map", "chat_template", "metadata", "totals" (in that order, absent parts left out).
struct DescriptionSection {
  std::string title;
  std::vector<DescriptionEntry> entries;
};

struct TensorDescription {
  std::string name;
  std::string dtype;         // "f32", "f16", "i8", ...
  std::string quantization;  // "None", "PerRow", "PerGroup", ... as docs/format.md names them
  uint32_t group_size = 0;
  std::string layout;        // "RowMajor", ... as docs/format.md names them
  uint32_t activation_block = 0;
  uint32_t outlier_channels = 0;
  std::vector<uint32_t> shape;
  uint64_t bytes = 0;
};

struct ModelDescription {
  std::string family;  // as Model::family_name()
  uint32_t format_version = 0;
  bool has_tokenizer = false;
  TokenizerKind tokenizer_kind{};
  size_t source_vocabulary_size = 0;
  size_t target_vocabulary_size = 0;
  bool has_vocab_map = false;
  std::vector<std::pair<std::string, std::string>> metadata;  // in file order
  std::vector<DescriptionSection> sections;                   // everything above, as reported
  std::vector<TensorDescription> tensors;                     // in file order
};

ModelDescription describe(const Model& model);

}  // namespace heed
