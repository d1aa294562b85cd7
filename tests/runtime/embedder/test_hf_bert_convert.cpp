// `--from hf-bert` on copies of the fixture folder changed one way each: BertForMaskedLM-style
// "bert." keys with an MLM head (dropped by name), sentence-transformers' pooling config, casing
// from tokenizer_config.json, and clear errors for what heed cannot or must not convert.
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <catch2/catch.hpp>

#include "bert_fixture.h"
#include "heed_writer.h"
#include "hf_bert/reader.h"
#include "test_paths.h"

namespace fs = std::filesystem;

namespace heed::test {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string fixture_copy(const std::string& name) {
  const std::string dir = temp_dir() + "/" + name;
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(source_path("tests/fixtures/hf-bert/model"))) {
    fs::copy_file(entry.path(), dir + "/" + entry.path().filename().string(), fs::copy_options::overwrite_existing);
  }
  return dir;
}

// Rewrites a JSON file of the folder with `edit`.
void edit_json(const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(read_text(path));
  edit(j);
  write_text(path, j.dump());
}

// Rewrites model.safetensors' JSON header with `edit` (the data stays as it is).
void edit_safetensors(const std::string& dir, const std::function<void(nlohmann::json&)>& edit) {
  const std::string path = dir + "/model.safetensors";
  const std::string bytes = read_text(path);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
  nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
  edit(header);
  const std::string text = header.dump();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xFF);
  write_text(path, out + text + bytes.substr(8 + n));
}

std::string metadata(const convert::NeutralModel& m, const std::string& key) {
  for (const auto& [k, v] : m.metadata) {
    if (k == key) return v;
  }
  return "<absent>";
}

Status convert_dir(const std::string& dir, convert::NeutralModel* out) { return convert::hf_bert::read_model(dir, out); }

TEST_CASE("hf-bert: BertForMaskedLM keys ('bert.' prefix, MLM head) give the same encoder") {
  convert::NeutralModel plain;
  REQUIRE(convert_dir(source_path("tests/fixtures/hf-bert/model"), &plain).is_ok());
  const std::string dir = fixture_copy("mlm");
  edit_safetensors(dir, [](nlohmann::json& h) {
    nlohmann::json renamed = nlohmann::json::object();
    for (auto it = h.begin(); it != h.end(); ++it) renamed[it.key() == "__metadata__" ? it.key() : "bert." + it.key()] = it.value();
    renamed["cls.predictions.bias"] = h["embeddings.LayerNorm.bias"];  // a task head: left out by name
    h = renamed;
  });
  convert::NeutralModel mlm;
  const Status s = convert_dir(dir, &mlm);
  INFO(s.message());
  REQUIRE(s.is_ok());
  REQUIRE(mlm.tensors.size() == plain.tensors.size());
  for (const auto& t : plain.tensors) {
    const convert::NeutralTensor* other = mlm.find(t.name);
    REQUIRE(other != nullptr);
    CHECK(other->bytes == t.bytes);
  }
  CHECK(plain.find("pooler.dense.weight") == nullptr);
  CHECK(metadata(plain, "tokenizer.do_lower_case") == "true");
  CHECK(metadata(plain, "embedding.pooling") == "<absent>");
}

TEST_CASE("hf-bert: sentence-transformers pooling and casing are recorded and used") {
  const std::string dir = fixture_copy("st");
  fs::create_directories(dir + "/1_Pooling");
  write_text(dir + "/1_Pooling/config.json", R"({"word_embedding_dimension": 64, "pooling_mode_cls_token": true,
             "pooling_mode_mean_tokens": false})");
  edit_json(dir + "/tokenizer_config.json", [](nlohmann::json& j) { j["do_lower_case"] = false; });
  convert::NeutralModel model;
  REQUIRE(convert_dir(dir, &model).is_ok());
  CHECK(metadata(model, "embedding.pooling") == "cls");
  CHECK(metadata(model, "tokenizer.do_lower_case") == "false");
  const std::string path = temp_dir() + "/st.heed";
  REQUIRE(convert::write_heed(model, path).is_ok());
  auto e = open_embedder(path);
  CHECK(e->default_pooling() == Pooling::kCls);
  // Cased: the text keeps its capitals and accents, as BertTokenizer(do_lower_case=False) does.
  const auto& ref = bert_reference();
  for (size_t i = 0; i < ref["sentences"].size(); ++i) {
    std::vector<int32_t> ids;
    REQUIRE(e->encode(ref["sentences"][i].get<std::string>(), &ids).is_ok());
    CHECK(ids == ref["ids_cased"][i].get<std::vector<int32_t>>());
  }
}

TEST_CASE("hf-bert: broken or unsupported folders are clear errors") {
  convert::NeutralModel m;
  SECTION("not a BERT") {
    const std::string dir = fixture_copy("gpt2");
    edit_json(dir + "/config.json", [](nlohmann::json& j) { j["model_type"] = "gpt2"; });
    const Status s = convert_dir(dir, &m);
    CHECK(s.code() == StatusCode::kUnsupportedModel);
    CHECK(s.message().find("model_type 'gpt2'") != std::string::npos);
    CHECK_FALSE(convert::hf_bert::looks_like_model(dir));
  }
  SECTION("relative positions") {
    const std::string dir = fixture_copy("relative");
    edit_json(dir + "/config.json", [](nlohmann::json& j) { j["position_embedding_type"] = "relative_key"; });
    CHECK(convert_dir(dir, &m).message().find("relative_key") != std::string::npos);
  }
  SECTION("only pytorch_model.bin") {
    const std::string dir = fixture_copy("bin");
    fs::rename(dir + "/model.safetensors", dir + "/pytorch_model.bin");
    CHECK(convert_dir(dir, &m).message().find("safe_serialization=True") != std::string::npos);
  }
  SECTION("a tensor heed does not know") {
    const std::string dir = fixture_copy("extra");
    edit_safetensors(dir, [](nlohmann::json& h) { h["encoder.adapter.weight"] = h["embeddings.LayerNorm.bias"]; });
    const Status s = convert_dir(dir, &m);
    CHECK(s.message().find("encoder.adapter.weight") != std::string::npos);
    CHECK(s.message().find("refusing to drop") != std::string::npos);
  }
  SECTION("a missing tensor") {
    const std::string dir = fixture_copy("missing");
    edit_safetensors(dir, [](nlohmann::json& h) { h.erase("encoder.layer.1.output.dense.bias"); });
    CHECK(convert_dir(dir, &m).message().find("missing tensor 'encoder.layer.1.output.dense.bias'") != std::string::npos);
  }
  SECTION("a wrong shape") {
    const std::string dir = fixture_copy("shape");
    edit_json(dir + "/config.json", [](nlohmann::json& j) { j["intermediate_size"] = 64; });
    CHECK(convert_dir(dir, &m).message().find("has shape") != std::string::npos);
  }
  SECTION("a vocab.txt longer than the embeddings") {
    const std::string dir = fixture_copy("vocab");
    write_text(dir + "/vocab.txt", read_text(dir + "/vocab.txt") + "extra1\nextra2\n");
    CHECK(convert_dir(dir, &m).message().find("entries, but the model's embeddings have only") != std::string::npos);
  }
  SECTION("a special token missing from vocab.txt") {
    const std::string dir = fixture_copy("special");
    edit_json(dir + "/tokenizer_config.json", [](nlohmann::json& j) { j["cls_token"] = "<s>"; });
    CHECK(convert_dir(dir, &m).message().find("'<s>' (cls_token) is missing") != std::string::npos);
  }
}

}  // namespace
}  // namespace heed::test
