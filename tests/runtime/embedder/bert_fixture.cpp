#include "bert_fixture.h"

#include <fstream>
#include <map>

#include <catch2/catch.hpp>

#include "heed_writer.h"
#include "hf_bert/reader.h"
#include "pack.h"
#include "test_paths.h"

namespace heed::test {

std::string bert_heed(convert::WeightType type) {
  static std::map<int, std::string> cache;
  const auto it = cache.find(static_cast<int>(type));
  if (it != cache.end()) return it->second;
  convert::NeutralModel model;
  Status s = convert::hf_bert::read_model(source_path("tests/fixtures/hf-bert/model"), &model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  convert::QuantizeOptions q;
  q.type = type;
  REQUIRE(convert::quantize_model(&model, q, nullptr).is_ok());
  REQUIRE(convert::pack_model(&model, convert::WeightLayout::kAuto, nullptr, nullptr).is_ok());
  const std::string out = temp_dir() + "/bert_" + convert::weight_type_name(type) + ".heed";
  s = convert::write_heed(model, out);
  INFO(s.message());
  REQUIRE(s.is_ok());
  cache[static_cast<int>(type)] = out;
  return out;
}

const nlohmann::json& bert_reference() {
  static const nlohmann::json j = [] {
    std::ifstream in(source_path("tests/fixtures/hf-bert/reference.json"));
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
  }();
  return j;
}

std::unique_ptr<Embedder> open_embedder(const std::string& path, size_t max_batch, size_t threads) {
  EmbedderOptions options;
  options.max_batch = max_batch;
  options.threads = threads;
  std::unique_ptr<Embedder> e;
  const Status s = Embedder::open(path, options, &e);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return e;
}

}  // namespace heed::test
