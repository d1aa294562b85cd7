// The second half of every "whole model through `heed convert`" fuzz target: given what a reader
// made of the input, run the conversion pipeline's quantize and pack (convert.h: weight type and
// grouping chosen from the input size, so each input replays the same way), serialize the result
// and load it. Whatever the writer produces must load
// with the same tensor count; every refusal must be one line.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "heed/model.h"
#include "convert.h"
#include "heed_writer.h"
#include "loader/model_index.h"
#include "neutral_model.h"

namespace heed::fuzz {

[[noreturn]] inline void invariant_broken(const char* target, const std::string& what) {
  std::fprintf(stderr, "%s: invariant broken: %s\n", target, what.c_str());
  std::abort();
}

// A refusal: a non-empty message on one line.
inline void check_refusal(const char* target, const Status& s) {
  if (s.message().empty() || s.message().find('\n') != std::string::npos) {
    invariant_broken(target, "error message empty or not one line: " + s.message());
  }
}

// Returns false when the converter refused the model (with a one-line message).
inline bool convert_and_load(const char* target, convert::NeutralModel* model, size_t input_size) {
  convert::ConvertOptions options;
  const convert::WeightType types[] = {convert::WeightType::kInt8, convert::WeightType::kFloat16,
                                       convert::WeightType::kFloat32};
  options.quantize.type = types[input_size % 3];
  options.quantize.group_size = options.quantize.type == convert::WeightType::kInt8 && (input_size / 3) % 2 ? 8 : 0;
  // Row-major, as these targets always ran (packing has its own tests; fuzzing it is a next step).
  options.layout = convert::WeightLayout::kRowMajor;
  convert::ConvertSummary summary;
  Status s = convert::quantize_and_pack(model, options, &summary);
  if (s.is_ok()) {
    std::vector<uint8_t> bytes;
    s = convert::serialize_heed(*model, &bytes);
    if (s.is_ok()) {
      std::unique_ptr<Model> loaded;
      s = Model::from_bytes(bytes.data(), bytes.size(), &loaded);
      if (!s.is_ok()) invariant_broken(target, "the writer produced a file the loader refuses: " + s.message());
      if (file_tensors(*loaded).size() != model->tensors.size()) {
        invariant_broken(target, "tensor count changed between writer and loader");
      }
      return true;
    }
  }
  check_refusal(target, s);
  return false;
}

}  // namespace heed::fuzz
