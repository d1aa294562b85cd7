#include "generate_fixture.h"

#include <fstream>
#include <iterator>
#include <map>

#include <catch2/catch.hpp>

#include "ct2/reader.h"
#include "heed_writer.h"
#include "hf_causal_lm/reader.h"
#include "pack.h"
#include "llama2c/reader.h"
#include "test_paths.h"

namespace heed::test {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

std::string stories260k_heed(convert::WeightType type) {
  static std::map<int, std::string> cache;
  auto it = cache.find(static_cast<int>(type));
  if (it != cache.end()) return it->second;
  const std::string source = shared_path("models/llama2c/stories260k/stories260K.bin");
  convert::NeutralModel model;
  Status s = convert::llama2c::read_model(source, &model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  convert::QuantizeOptions q;
  q.type = type;
  s = convert::quantize_model(&model, q, nullptr);
  REQUIRE(s.is_ok());
  // As `heed convert` writes it by default: int8 linear weights packed 16x4.
  REQUIRE(convert::pack_model(&model, convert::WeightLayout::kAuto, nullptr, nullptr).is_ok());
  const std::string out = temp_dir() + "/stories260k_" + convert::weight_type_name(type) + ".heed";
  s = convert::write_heed(model, out);
  INFO(s.message());
  REQUIRE(s.is_ok());
  cache[static_cast<int>(type)] = out;
  return out;
}

std::string hf_heed(const std::string& name, convert::WeightType type) {
  static std::map<std::pair<std::string, int>, std::string> cache;
  const auto key = std::make_pair(name, static_cast<int>(type));
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const std::string source = source_path("tests/fixtures/" + name);
  convert::NeutralModel model;
  Status s = name == "hf-gpt2" ? convert::hf_causal_lm::read_gpt2(source, &model)
                               : convert::hf_causal_lm::read_llama(source, &model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  convert::QuantizeOptions q;
  q.type = type;
  REQUIRE(convert::quantize_model(&model, q, nullptr).is_ok());
  REQUIRE(convert::pack_model(&model, convert::WeightLayout::kAuto, nullptr, nullptr).is_ok());
  const std::string out = temp_dir() + "/" + name + "_" + convert::weight_type_name(type) + ".heed";
  s = convert::write_heed(model, out);
  INFO(s.message());
  REQUIRE(s.is_ok());
  cache[key] = out;
  return out;
}

const nlohmann::json& hf_reference(const std::string& name) {
  static std::map<std::string, nlohmann::json> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  const std::vector<uint8_t> bytes = read_file(source_path("tests/fixtures/" + name + "/reference.json"));
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  REQUIRE(j.is_object());
  return cache[name] = std::move(j);
}

std::string onmt_lm_heed() {
  static std::string path;
  if (!path.empty()) return path;
  convert::NeutralModel model;
  Status s = convert::ct2::read_model(shared_path("models/ct2/onmt-lm"), &model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  convert::QuantizeOptions q;  // int8: the source's int8 weights are kept bit-exactly
  s = convert::quantize_model(&model, q, nullptr);
  REQUIRE(s.is_ok());
  REQUIRE(convert::pack_model(&model, convert::WeightLayout::kAuto, nullptr, nullptr).is_ok());
  const std::string out = temp_dir() + "/onmt_lm.heed";
  s = convert::write_heed(model, out);
  REQUIRE(s.is_ok());
  path = out;
  return path;
}

std::unique_ptr<Model> open_model(const std::string& path) {
  std::unique_ptr<Model> m;
  const Status s = Model::open(path, LoadOptions{}, &m);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return m;
}

const nlohmann::json& llama2c_reference() {
  static nlohmann::json j;
  if (j.is_null()) {
    std::ifstream in(source_path("tests/fixtures/llama2c/stories260k_reference.json"));
    REQUIRE(in.good());
    in >> j;
  }
  return j;
}

}  // namespace heed::test
