// Shared by the embedding tests: the committed tiny BERT (tests/fixtures/hf-bert, written by
// scripts/fixtures/make_bert_fixture.py with transformers) converted once per program, and the
// library's reference outputs.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "heed/embedder.h"
#include "heed/model.h"
#include "quantize.h"

namespace heed::test {

// The fixture folder converted with `type` weights (int8: packed 16x4, as `heed convert` does).
// The fixture converted by the converter's pipeline (quantize_and_pack, as `heed convert` does);
// `activation_block` as --activation-block (unset: the converter's default for encoders).
std::string bert_heed(convert::WeightType type, std::optional<uint32_t> activation_block = std::nullopt);
// Another folder of tests/fixtures/hf-bert ("classifier", "mlm": the task-head models) the same way.
std::string bert_folder_heed(const std::string& folder, convert::WeightType type,
                             std::optional<uint32_t> activation_block = std::nullopt);
// MPNet's relative position bias added to the "model" folder: TransformerEncoderOnly's
// relative_attention_buckets and max_distance, and the table encoder.relative_attention_bias
// [buckets, heads] (unless without_table) of values varied by bucket and head, or one value
// everywhere (constant). `tag` names the cached file.
struct RelativeBiasShape {
  std::string tag = "varied";
  uint32_t buckets = 32, max_distance = 128;
  bool constant = false, without_table = false;
};
std::string bert_relative_bias_heed(convert::WeightType type, const RelativeBiasShape& shape = {});
const nlohmann::json& bert_reference();
// heads.json: transformers' logits and pipeline answers for the classifier and mlm folders.
const nlohmann::json& heads_reference();
// T::open (Embedder, Classifier, MaskFiller) with these limits, required to succeed.
template <typename T>
std::unique_ptr<T> open_task(const std::string& path, size_t max_batch = 4, size_t threads = 1) {
  typename T::Options options;
  options.max_batch = max_batch;
  options.threads = threads;
  std::unique_ptr<T> t;
  const Status s = T::open(path, options, &t);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return t;
}
std::unique_ptr<Embedder> open_embedder(const std::string& path, size_t max_batch = 8, size_t threads = 1);

// `sentences` sentences of `length` ids each (ids 5..904, spread so that neighbours differ),
// packed as a TokenBatch (view() is valid while the object lives).
struct UniformBatch {
  UniformBatch(size_t sentences, size_t length);
  TokenBatch view() const { return TokenBatch{ids.data(), offsets.data(), offsets.size() - 1}; }
  std::vector<int32_t> ids;
  std::vector<size_t> offsets;
};

}  // namespace heed::test
