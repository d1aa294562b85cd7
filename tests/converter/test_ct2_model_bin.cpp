// converter/ct2/model_bin: every binary version, aliases, and clean errors on truncated or corrupt
// files. Files are built by the test's own writer (ct2_fixture.h) or are the real shared models.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "ct2/model_bin.h"
#include "ct2_fixture.h"
#include "test_paths.h"

using heed::StatusCode;
using heed::convert::ct2::DType;
using heed::convert::ct2::ModelBin;
namespace fx = heed::test::ct2;

namespace {

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<fx::Var> sample_vars() {
  std::vector<fx::Var> vars;
  vars.push_back(fx::f32_var("a/weight", {2, 3}, {1, 2, 3, 4, 5, -6.5f}));
  vars.push_back(fx::Var{"a/weight_q", {2, 2}, 1, {0x7f, 0x81, 0x00, 0x05}});       // int8
  vars.push_back(fx::Var{"b/int16", {3}, 2, {0x01, 0x00, 0xff, 0xff, 0x10, 0x27}});  // 1, -1, 10000
  vars.push_back(fx::i8_scalar("flag", 1));
  return vars;
}

}  // namespace

TEST_CASE("model.bin of every binary version parses to the same variables", "[ct2][model_bin]") {
  for (uint32_t version = 1; version <= 6; ++version) {
    CAPTURE(version);
    const auto vars = sample_vars();
    std::vector<std::pair<std::string, std::string>> aliases;
    if (version >= 3) aliases.emplace_back("c/weight", "a/weight");
    ModelBin bin;
    heed::Status s = ModelBin::parse(fx::model_bin(version, "TransformerSpec", 5, vars, aliases), "test.bin", &bin);
    REQUIRE(s.is_ok());
    CHECK(bin.binary_version() == version);
    CHECK(bin.spec_name() == (version >= 2 ? "TransformerSpec" : ""));
    CHECK(bin.spec_revision() == (version >= 2 ? 5u : 1u));
    REQUIRE(bin.variables().size() == vars.size());
    const DType expected[] = {DType::F32, DType::I8, DType::I16, DType::I8};
    for (size_t i = 0; i < vars.size(); ++i) {
      const auto& v = bin.variables()[i];
      CHECK(v.name == vars[i].name);
      CHECK(v.shape == vars[i].shape);
      CHECK(v.dtype == expected[i]);
      REQUIRE(v.size == vars[i].bytes.size());
      CHECK(std::vector<uint8_t>(bin.data(v), bin.data(v) + v.size) == vars[i].bytes);
    }
    if (version >= 3) {
      const auto* aliased = bin.find("c/weight");
      REQUIRE(aliased);
      CHECK(aliased->name == "a/weight");
      CHECK(bin.alias_target("c/weight") == "a/weight");
      CHECK(bin.alias_target("c/weight_scale") == "a/weight_scale");  // scales follow their weight
    }
    CHECK(bin.find("missing") == nullptr);
  }
}

TEST_CASE("model.bin v4+ dtype ids cover float16, bfloat16 and int32", "[ct2][model_bin]") {
  std::vector<fx::Var> vars = {
      fx::Var{"h", {2}, 4, {0x00, 0x3c, 0x00, 0xc0}},  // f16 1, -2
      fx::Var{"b", {1}, 5, {0x80, 0x3f}},              // bf16 1
      fx::Var{"n", {}, 3, {7, 0, 0, 0}},               // int32 7
  };
  ModelBin bin;
  REQUIRE(ModelBin::parse(fx::model_bin(6, "TransformerDecoderSpec", 7, vars), "t", &bin).is_ok());
  CHECK(bin.variables()[0].dtype == DType::F16);
  CHECK(bin.variables()[1].dtype == DType::BF16);
  CHECK(bin.variables()[2].dtype == DType::I32);
  CHECK(bin.variables()[2].shape.empty());
}

TEST_CASE("corrupt model.bin files give clear errors", "[ct2][model_bin]") {
  ModelBin bin;
  SECTION("future binary version") {
    auto bytes = fx::model_bin(6, "TransformerSpec", 1, sample_vars());
    bytes[0] = 7;
    heed::Status s = ModelBin::parse(bytes, "m.bin", &bin);
    CHECK(s.code() == StatusCode::kUnsupportedVersion);
    CHECK(s.message().find("binary version 7") != std::string::npos);
  }
  SECTION("unknown dtype id") {
    auto bytes = fx::model_bin(6, "S", 1, {fx::Var{"x", {1}, 9, {0}}});
    heed::Status s = ModelBin::parse(bytes, "m.bin", &bin);
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("unknown dtype id 9") != std::string::npos);
  }
  SECTION("byte count that does not match the shape") {
    auto bytes = fx::model_bin(6, "S", 1, {fx::Var{"x", {3}, 0, std::vector<uint8_t>(8)}});
    heed::Status s = ModelBin::parse(bytes, "m.bin", &bin);
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("'x'") != std::string::npos);
  }
  SECTION("dims whose product overflows") {
    auto bytes = fx::model_bin(6, "S", 1, {fx::Var{"x", {0xffffffffu, 0xffffffffu, 0xffffffffu}, 0, {}}});
    CHECK(ModelBin::parse(bytes, "m.bin", &bin).code() == StatusCode::kInvalidFile);
  }
  SECTION("absurd variable count") {
    auto bytes = fx::model_bin(6, "S", 1, {});
    const size_t count_at = 4 + 2 + 2 + 4;
    bytes[count_at + 3] = 0x7f;
    heed::Status s = ModelBin::parse(bytes, "m.bin", &bin);
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("variables") != std::string::npos);
  }
  SECTION("alias to a missing variable") {
    auto bytes = fx::model_bin(5, "S", 1, sample_vars(), {{"z", "nowhere"}});
    heed::Status s = ModelBin::parse(bytes, "m.bin", &bin);
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("nowhere") != std::string::npos);
  }
  SECTION("bytes after the last record") {
    auto bytes = fx::model_bin(6, "S", 1, sample_vars());
    bytes.push_back(0);
    CHECK(ModelBin::parse(bytes, "m.bin", &bin).code() == StatusCode::kInvalidFile);
  }
  SECTION("old element width that is not 1, 2 or 4") {
    fx::Writer w;
    w.u32(2);
    w.str("TransformerBase");
    w.u32(2);
    w.u32(1);
    w.str("x");
    w.u8(1);
    w.u32(1);
    w.u8(8);  // width 8
    w.u32(1);
    w.put("12345678", 8);
    heed::Status s = ModelBin::parse(w.bytes, "m.bin", &bin);
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("element width 8") != std::string::npos);
  }
  SECTION("name without its NUL") {
    auto bytes = fx::model_bin(6, "S", 1, {fx::f32_var("x", {1}, {1})});
    // The name "x" + NUL follows version, spec ("S" + NUL), revision and count.
    const size_t name_at = 4 + 2 + 2 + 4 + 4 + 2;
    REQUIRE(bytes[name_at] == 'x');
    bytes[name_at + 1] = 'y';
    CHECK(ModelBin::parse(bytes, "m.bin", &bin).code() == StatusCode::kInvalidFile);
  }
}

TEST_CASE("a truncated real model.bin fails cleanly at every cut", "[ct2][model_bin]") {
  for (const char* model : {"models/ct2/aren-transliteration-i8/model.bin", "models/ct2/onmt-lm/model.bin"}) {
    const std::vector<uint8_t> full = read_bytes(heed::test::shared_path(model));
    REQUIRE(full.size() > 1000);
    ModelBin whole;
    REQUIRE(ModelBin::parse(full, model, &whole).is_ok());
    // Every cut in the header region (names, ranks, dims, dtypes), then a stride through the rest.
    std::vector<size_t> cuts;
    for (size_t n = 0; n < 4096; ++n) cuts.push_back(n);
    for (size_t n = 4096; n < full.size(); n += 4099) cuts.push_back(n);
    cuts.push_back(full.size() - 1);
    for (size_t n : cuts) {
      ModelBin bin;
      heed::Status s = ModelBin::parse(std::vector<uint8_t>(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)), "cut.bin", &bin);
      INFO("cut at " << n << ": " << s.message());
      REQUIRE(!s.is_ok());
      CHECK(s.code() == StatusCode::kInvalidFile);
      CHECK(s.message().find("cut.bin") == 0);
      CHECK(s.message().find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("the real models' variables are where an independent scan finds them", "[ct2][model_bin]") {
  const std::string path = heed::test::shared_path("models/ct2/aren-transliteration/model.bin");
  const std::vector<uint8_t> file = read_bytes(path);
  ModelBin bin;
  REQUIRE(ModelBin::read(path, &bin).is_ok());
  CHECK(bin.binary_version() == 2);
  CHECK(bin.spec_name() == "TransformerBase");
  CHECK(bin.spec_revision() == 2);
  size_t total = 0;
  for (const auto& v : bin.variables()) {
    std::vector<uint32_t> shape;
    std::vector<uint8_t> values;
    uint8_t width = 0;
    REQUIRE(fx::scan_variable(file, 2, v.name, &shape, &values, &width));
    CHECK(shape == v.shape);
    CHECK(width == 4);
    CHECK(std::vector<uint8_t>(bin.data(v), bin.data(v) + v.size) == values);
    total += v.size;
  }
  // encoder: embeddings + 6 x 12 + final norm 2; decoder: embeddings + 6 x 20 + final norm 2 + projection 2
  CHECK(bin.variables().size() == (1 + 6 * 12 + 2) + (1 + 6 * 20 + 2 + 2));
  CHECK(total > 700000);
}
