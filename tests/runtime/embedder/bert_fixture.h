// Shared by the embedding tests: the committed tiny BERT (tests/fixtures/hf-bert, written by
// scripts/fixtures/make_bert_fixture.py with transformers) converted once per program, and the
// library's reference outputs.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "heed/embedder.h"
#include "heed/model.h"
#include "quantize.h"

namespace heed::test {

// The fixture folder converted with `type` weights (int8: packed 16x4, as `heed convert` does).
std::string bert_heed(convert::WeightType type);
const nlohmann::json& bert_reference();
std::unique_ptr<Embedder> open_embedder(const std::string& path, size_t max_batch = 8, size_t threads = 1);

}  // namespace heed::test
