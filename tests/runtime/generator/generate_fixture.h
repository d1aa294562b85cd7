// Shared by the generation tests: the real models converted once per program into temp files, and
// the NumPy reference fixture (tests/fixtures/llama2c, written by tests/reference/llama2c_reference.py).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heed/model.h"
#include "quantize.h"

namespace heed::test {

// stories260K converted with `type` weights (cached per type; int8 linear weights packed 16x4, as
// `heed convert` does by default): the .heed path.
std::string stories260k_heed(convert::WeightType type);
// The tiny Hugging Face fixture tests/fixtures/<name> ("hf-llama", "hf-gpt2") converted with
// `type` weights (int8 packed 16x4, as `heed convert` does by default): the .heed path.
std::string hf_heed(const std::string& name, convert::WeightType type);
// tests/fixtures/<name>/reference.json (transformers' outputs).
const nlohmann::json& hf_reference(const std::string& name);
// The CTranslate2 onmt-lm converted with its int8 weights kept (packed 16x4): the .heed path.
std::string onmt_lm_heed();
std::unique_ptr<Model> open_model(const std::string& path);
// tests/fixtures/llama2c/stories260k_reference.json
const nlohmann::json& llama2c_reference();
// Reads a whole file.
std::vector<uint8_t> read_file(const std::string& path);
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace heed::test
