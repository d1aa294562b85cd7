// The tiny Marian fixture (tests/fixtures/marian/tiny-en-de): its folder, the references the
// transformers library recorded (reference.json), and the fixture converted to a loaded .heed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heed/model.h"
#include "quantize.h"

namespace heed::test {

std::string marian_fixture_dir();
const nlohmann::json& marian_reference();

// The fixture converted with `type` weights, serialized and loaded (bytes kept alive with it).
struct ConvertedMarian {
  std::vector<uint8_t> bytes;
  std::unique_ptr<Model> model;
};
// Converts once per weight type and keeps the result for the whole test program.
const ConvertedMarian& converted_marian(convert::WeightType type);

std::vector<int32_t> ints(const nlohmann::json& array);

}  // namespace heed::test
