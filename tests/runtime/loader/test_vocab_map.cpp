// Valid vocabulary maps load, at the edges of every rule the loader checks (the broken ones are
// crafted corruptions in corrupt_files.cpp), and the writer stores a NeutralModel's map as given.
#include <catch2/catch.hpp>

#include "corrupt_files.h"
#include "heed/model.h"
#include "heed_writer.h"
#include "loader/model_index.h"
#include "sample_model.h"

namespace heed::test {
namespace {

std::vector<int64_t> values(const flatbuffers::Vector<int32_t>* v) { return {v->begin(), v->end()}; }
std::vector<int64_t> values(const flatbuffers::Vector<uint32_t>* v) { return {v->begin(), v->end()}; }

Status load_with(const fb::VocabMapT& map, std::unique_ptr<Model>* model, std::vector<uint8_t>* bytes) {
  *bytes = repack(sample_model_bytes(), [&](fb::ModelT& m) { m.vocab_map = std::make_unique<fb::VocabMapT>(map); });
  return Model::from_bytes(bytes->data(), bytes->size(), model);
}

}  // namespace

TEST_CASE("the writer stores the vocabulary map, read back through the index", "[loader][vmap]") {
  convert::NeutralModel neutral = make_sample_model();
  neutral.vocab_map = sample_vocab_map();
  std::vector<uint8_t> bytes;
  Status s = convert::serialize_heed(neutral, &bytes);
  INFO(s.message());
  REQUIRE(s.is_ok());
  std::unique_ptr<Model> model;
  s = Model::from_bytes(bytes.data(), bytes.size(), &model);
  REQUIRE(s.is_ok());
  const fb::VocabMap* map = file_index(*model).vocab_map();
  REQUIRE(map);
  CHECK(map->max_ngram() == 2);
  CHECK(values(map->key_offsets()) == std::vector<int64_t>{0, 1, 3, 4});
  CHECK(values(map->key_ids()) == std::vector<int64_t>{1, 1, 2, 3});
  CHECK(values(map->target_offsets()) == std::vector<int64_t>{0, 2, 3, 5});
  CHECK(values(map->target_ids()) == std::vector<int64_t>{4, 5, 6, 7, 8});
  CHECK(values(map->always()) == std::vector<int64_t>{2});
}

TEST_CASE("a file without a vocabulary map has none", "[loader][vmap]") {
  const std::vector<uint8_t> bytes = sample_model_bytes();
  std::unique_ptr<Model> model;
  REQUIRE(Model::from_bytes(bytes.data(), bytes.size(), &model).is_ok());
  CHECK(file_index(*model).vocab_map() == nullptr);
}

TEST_CASE("vocabulary maps at the edges of the rules load", "[loader][vmap]") {
  fb::VocabMapT map = sample_vocab_map();
  std::unique_ptr<Model> model;
  std::vector<uint8_t> bytes;
  SECTION("the last id of each vocabulary, a longer max_ngram than any key, no always") {
    map.key_ids = {1, 1, 2, 9};
    map.target_ids = {0, 9, 6, 7, 8};
    map.max_ngram = 5;
    map.always.clear();
    const Status s = load_with(map, &model, &bytes);
    INFO(s.message());
    CHECK(s.is_ok());
  }
  SECTION("a key without candidates, and no keys at all") {
    map.target_offsets = {0, 2, 2, 5};
    map.target_ids = {4, 5, 7, 8, 9};
    CHECK(load_with(map, &model, &bytes).is_ok());
    fb::VocabMapT always_only;
    always_only.max_ngram = 1;
    always_only.key_offsets = {0};
    always_only.target_offsets = {0};
    always_only.always = {3, 4};
    const Status s = load_with(always_only, &model, &bytes);
    INFO(s.message());
    CHECK(s.is_ok());
    REQUIRE(file_index(*model).vocab_map());
    CHECK(file_index(*model).vocab_map()->key_ids()->size() == 0);
  }
}

}  // namespace heed::test
