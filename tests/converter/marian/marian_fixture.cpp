#include "marian_fixture.h"

#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

#include "heed_writer.h"
#include "marian/reader.h"
#include "test_paths.h"

namespace heed::test {

std::string marian_fixture_dir() { return source_path("tests/fixtures/marian/tiny-en-de"); }

const nlohmann::json& marian_reference() {
  static const nlohmann::json reference = [] {
    std::ifstream in(marian_fixture_dir() + "/reference.json");
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str(), nullptr, false);
  }();
  REQUIRE(reference.is_object());
  return reference;
}

const ConvertedMarian& converted_marian(convert::WeightType type) {
  static std::map<convert::WeightType, ConvertedMarian> cache;
  auto it = cache.find(type);
  if (it != cache.end()) return it->second;
  convert::NeutralModel neutral;
  Status status = convert::marian::read_model(marian_fixture_dir(), &neutral);
  INFO(status.message());
  REQUIRE(status.is_ok());
  convert::QuantizeOptions options;
  options.type = type;
  status = convert::quantize_model(&neutral, options, nullptr);
  INFO(status.message());
  REQUIRE(status.is_ok());
  ConvertedMarian& converted = cache[type];
  status = convert::serialize_heed(neutral, &converted.bytes);
  INFO(status.message());
  REQUIRE(status.is_ok());
  status = Model::from_bytes(converted.bytes.data(), converted.bytes.size(), &converted.model);
  INFO(status.message());
  REQUIRE(status.is_ok());
  return converted;
}

std::vector<int32_t> ints(const nlohmann::json& array) {
  std::vector<int32_t> v;
  for (const auto& x : array) v.push_back(x.get<int32_t>());
  return v;
}

}  // namespace heed::test
