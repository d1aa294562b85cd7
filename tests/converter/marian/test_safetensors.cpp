// The safetensors reader: values and shapes of a file built here byte by byte, every kind of
// corruption reported as invalid_file naming the problem, and the fixture's real file.
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "marian_fixture.h"
#include "safetensors.h"

namespace {

using heed::convert::SafetensorsFile;

// [u64 header length][header][data]
std::vector<uint8_t> make_file(const std::string& header, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> bytes;
  bytes.reserve(8 + header.size() + data.size());
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<uint8_t>(n >> (8 * i)));
  for (char c : header) bytes.push_back(static_cast<uint8_t>(c));
  for (uint8_t b : data) bytes.push_back(b);
  return bytes;
}

std::vector<uint8_t> float_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

heed::Status parse(const std::string& header, const std::vector<uint8_t>& data, SafetensorsFile* out) {
  return SafetensorsFile::parse(make_file(header, data), "test.safetensors", out);
}

}  // namespace

TEST_CASE("safetensors: reads f32, f16 and bf16 tensors and metadata") {
  std::vector<uint8_t> data = float_bytes({1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -0.5f});
  // f16 1.0 = 0x3C00, -2.5 = 0xC100; bf16 3.0 = 0x4040
  for (uint16_t h : {0x3C00, 0xC100, 0x4040}) {
    data.push_back(static_cast<uint8_t>(h & 0xFF));
    data.push_back(static_cast<uint8_t>(h >> 8));
  }
  const std::string header =
      R"({"__metadata__":{"format":"pt"},)"
      R"("w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
      R"("h":{"dtype":"F16","shape":[2],"data_offsets":[24,28]},)"
      R"("b":{"dtype":"BF16","shape":[1],"data_offsets":[28,30]}})";
  SafetensorsFile file;
  const heed::Status status = parse(header, data, &file);
  INFO(status.message());
  REQUIRE(status.is_ok());
  CHECK(file.tensors().size() == 3);
  CHECK(file.metadata().at("format") == "pt");
  const auto* w = file.find("w");
  REQUIRE(w != nullptr);
  CHECK(w->shape == std::vector<uint64_t>{2, 3});
  std::vector<float> v;
  REQUIRE(file.read_f32(*w, &v).is_ok());
  CHECK(v == std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -0.5f});
  REQUIRE(file.read_f32(*file.find("h"), &v).is_ok());
  CHECK(v == std::vector<float>{1.0f, -2.5f});
  REQUIRE(file.read_f32(*file.find("b"), &v).is_ok());
  CHECK(v == std::vector<float>{3.0f});
  CHECK(file.find("missing") == nullptr);
}

TEST_CASE("safetensors: corrupt files are invalid_file errors naming the problem") {
  const std::vector<uint8_t> data = float_bytes({1, 2, 3, 4});
  struct Case {
    const char* header;
    const char* message;
  };
  const Case cases[] = {
      {R"(not json)", "not a JSON object"},
      {R"([1,2])", "not a JSON object"},
      {R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,20]}})", "outside the 16 data bytes"},
      {R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})", "16 bytes for 3 F32 values"},
      {R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[8,4]}})", "outside"},
      {R"({"w":{"dtype":"Q4","shape":[4],"data_offsets":[0,16]}})", "unknown dtype"},
      {R"({"w":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}})", "non-negative"},
      {R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,16]}})", "overflows"},
      {R"({"w":{"dtype":"F32","shape":[4]}})", "data_offsets"},
      {R"({"w":{"shape":[4],"data_offsets":[0,16]}})", "dtype"},
      {R"({"__metadata__":{"format":1}})", "not a string"},
  };
  for (const Case& c : cases) {
    SafetensorsFile file;
    const heed::Status status = parse(c.header, data, &file);
    INFO(c.header << " -> " << status.message());
    CHECK(status.code() == heed::StatusCode::kInvalidFile);
    CHECK(status.message().find(c.message) != std::string::npos);
    CHECK(status.message().find("test.safetensors") == 0);
  }
}

TEST_CASE("safetensors: short files and oversized header lengths") {
  SafetensorsFile file;
  CHECK(SafetensorsFile::parse({1, 2, 3}, "x", &file).code() == heed::StatusCode::kInvalidFile);
  std::vector<uint8_t> bytes = make_file(R"({})", {});
  bytes[0] = 0xFF;  // header length beyond the file
  CHECK(SafetensorsFile::parse(bytes, "x", &file).code() == heed::StatusCode::kInvalidFile);
  bytes = make_file(R"({})", {});
  bytes[7] = 0x80;  // a length that would overflow 8 + N
  CHECK(SafetensorsFile::parse(bytes, "x", &file).code() == heed::StatusCode::kInvalidFile);
  CHECK(SafetensorsFile::read("/nonexistent/model.safetensors", &file).code() == heed::StatusCode::kIoError);
}

TEST_CASE("safetensors: every truncation of the fixture's model.safetensors is an error, never a crash") {
  std::vector<uint8_t> whole;
  {
    SafetensorsFile file;
    REQUIRE(SafetensorsFile::read(heed::test::marian_fixture_dir() + "/model.safetensors", &file).is_ok());
    const auto* shared = file.find("model.shared.weight");
    REQUIRE(shared != nullptr);
    CHECK(shared->shape == std::vector<uint64_t>{heed::test::marian_reference()["vocab_size"].get<uint64_t>(), 32});
  }
  FILE* f = std::fopen((heed::test::marian_fixture_dir() + "/model.safetensors").c_str(), "rb");
  REQUIRE(f != nullptr);
  int c;
  while ((c = std::fgetc(f)) != EOF) whole.push_back(static_cast<uint8_t>(c));
  std::fclose(f);
  // Cut inside the header, at its end, and through the data (every 997th length keeps it quick).
  for (size_t n = 0; n < whole.size(); n += (n < 20000 ? 101 : 997)) {
    SafetensorsFile file;
    std::vector<uint8_t> cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK_FALSE(SafetensorsFile::parse(std::move(cut), "cut", &file).is_ok());
  }
}
