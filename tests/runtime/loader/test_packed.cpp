// The Packed16x4 weight layout: what the converter's pack step writes (checked byte by byte against
// the layout's address formula from kernels.h, written out independently here), what the loader
// resolves (row sums), and crafted broken packed files, each refused with a one-line message.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <memory>

#include "corrupt_files.h"
#include "heed/model.h"
#include "loader/model_index.h"
#include "heed_writer.h"
#include "pack.h"
#include "sample_model.h"

namespace heed::test {
namespace {

const char* const kPerRow = "decoder.layers.0.ffn.in.weight";      // int8 [16, 8], per row
const char* const kPerTensor = "decoder.output.weight";             // int8 [3, 5], one scale
const char* const kPerGroup = "decoder.layers.0.ffn.out.weight";    // int8 [8, 16], groups of 5

convert::NeutralModel packed_sample(size_t* packed = nullptr) {
  convert::NeutralModel m = make_sample_model();
  REQUIRE(convert::pack_model(&m, convert::WeightLayout::kAuto, packed, nullptr).is_ok());
  return m;
}

std::vector<uint8_t> packed_sample_bytes() {
  std::vector<uint8_t> bytes;
  const Status s = convert::serialize_heed(packed_sample(), &bytes);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return bytes;
}

fb::TensorT& tensor(fb::ModelT& m, const std::string& name) {
  for (auto& t : m.tensors) {
    if (t->name == name) return *t;
  }
  FAIL("no tensor " << name);
  throw std::logic_error("unreachable");
}

Status load(const std::vector<uint8_t>& bytes) {
  std::unique_ptr<Model> model;
  return Model::from_bytes(bytes.data(), bytes.size(), &model);
}

}  // namespace

TEST_CASE("pack_model packs the per-row and per-tensor .weight matrices only", "[loader][packed]") {
  const convert::NeutralModel original = make_sample_model();
  size_t packed = 0;
  const convert::NeutralModel m = packed_sample(&packed);
  CHECK(packed == 2);
  CHECK(m.find(kPerGroup)->layout == fb::Layout::RowMajor);
  CHECK(m.find("encoder.embeddings")->layout == fb::Layout::RowMajor);
  for (const char* name : {kPerRow, kPerTensor}) {
    INFO(name);
    const convert::NeutralTensor& before = *original.find(name);
    const convert::NeutralTensor& after = *m.find(name);
    REQUIRE(after.layout == fb::Layout::Packed16x4);
    CHECK(after.shape == before.shape);
    const size_t n = before.shape[0], k = before.shape[1];
    const size_t n16 = (n + 15) / 16 * 16, k4 = (k + 3) / 4 * 4;
    REQUIRE(after.bytes.size() == n16 * k4);
    // Every byte of the padded [n16, k4] matrix: the value at (r, c), zero outside [n, k].
    for (size_t r = 0; r < n16; ++r) {
      for (size_t c = 0; c < k4; ++c) {
        const size_t at = ((r / 16) * (k4 / 4) + c / 4) * 64 + (r % 16) * 4 + c % 4;
        const uint8_t want = r < n && c < k ? before.bytes[r * k + c] : 0;
        REQUIRE(after.bytes[at] == want);
      }
    }
    const convert::NeutralTensor* sums = m.find(after.row_sums);
    REQUIRE(sums != nullptr);
    CHECK(after.row_sums == std::string(name) + ".row_sums");
    REQUIRE(sums->dtype == fb::DType::I32);
    REQUIRE(sums->shape == std::vector<uint32_t>{static_cast<uint32_t>(n)});
    for (size_t r = 0; r < n; ++r) {
      int32_t want = 0;
      for (size_t c = 0; c < k; ++c) want += static_cast<int8_t>(before.bytes[r * k + c]);
      int32_t got = 0;
      std::memcpy(&got, sums->bytes.data() + 4 * r, 4);
      CHECK(got == want);
    }
  }
}

TEST_CASE("row-major layout packs nothing", "[loader][packed]") {
  convert::NeutralModel m = make_sample_model();
  size_t packed = 7;
  REQUIRE(convert::pack_model(&m, convert::WeightLayout::kRowMajor, &packed, nullptr).is_ok());
  CHECK(packed == 0);
  for (const auto& t : m.tensors) CHECK(t.layout == fb::Layout::RowMajor);
}

TEST_CASE("a packed file loads with its row sums resolved", "[loader][packed]") {
  const std::vector<uint8_t> bytes = packed_sample_bytes();
  std::unique_ptr<Model> model;
  const Status s = Model::from_bytes(bytes.data(), bytes.size(), &model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  const TensorView* w = find_tensor(*model, kPerRow);
  REQUIRE(w != nullptr);
  CHECK(w->layout == fb::Layout::Packed16x4);
  CHECK(w->size_bytes == 16 * 8);
  const TensorView* sums = find_tensor(*model, std::string(kPerRow) + ".row_sums");
  REQUIRE(sums != nullptr);
  CHECK(w->row_sums == sums->as<int32_t>());
  CHECK(find_tensor(*model, kPerGroup)->row_sums == nullptr);
  const TensorView* t = find_tensor(*model, kPerTensor);
  CHECK(t->layout == fb::Layout::Packed16x4);
  CHECK(t->size_bytes == 16 * 8);  // [3, 5] padded to [16, 8]
  CHECK(t->row_sums != nullptr);
}

TEST_CASE("crafted broken packed files are refused with one-line messages", "[loader][packed][corrupt]") {
  const std::vector<uint8_t> valid = packed_sample_bytes();
  const std::string row_sums = std::string(kPerRow) + ".row_sums";
  struct Case {
    const char* what;
    std::function<void(fb::ModelT&)> edit;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"f32 tensor marked packed", [](fb::ModelT& m) { tensor(m, "encoder.embeddings").layout = fb::Layout::Packed16x4; },
       "layout Packed16x4 needs int8 values, not F32"},
      {"per-group tensor marked packed", [](fb::ModelT& m) { tensor(m, kPerGroup).layout = fb::Layout::Packed16x4; },
       "needs per-row or per-tensor scales (or per-group ones of its activation block's size), not PerGroup"},
      {"per-group tensor packed with another activation block",
       [](fb::ModelT& m) {
         tensor(m, kPerGroup).layout = fb::Layout::Packed16x4;
         tensor(m, kPerGroup).activation_block = 16;  // its groups are 5 values
       },
       "not PerGroup"},
      {"activation block on a row-major tensor", [](fb::ModelT& m) { tensor(m, kPerGroup).activation_block = 16; },
       "activation block 16 (only packed int8 weights have one, a multiple of 16)"},
      {"activation block not a multiple of 16", [](fb::ModelT& m) { tensor(m, kPerRow).activation_block = 24; },
       "activation block 24 (only packed int8 weights have one, a multiple of 16)"},
      {"packed 3-D shape", [](fb::ModelT& m) { tensor(m, kPerRow).shape = {4, 4, 8}; },
       "layout Packed16x4 needs a 2-D shape"},
      {"packed size of the row-major form",
       [](fb::ModelT& m) { tensor(m, kPerTensor).size = 15; },
       "does not match its packed 16x4 shape [3, 5] (128 bytes)"},
      {"packed shape that needs more bytes", [](fb::ModelT& m) { tensor(m, kPerRow).shape = {17, 8}; },
       "does not match its packed 16x4 shape [17, 8] (256 bytes)"},
      {"packed shape whose padded size wraps 64 bits",
       [](fb::ModelT& m) { tensor(m, kPerRow).shape = {0xFFFFFFFFu, 0xFFFFFFFFu}; }, "shape is too large"},
      {"no row sums named", [](fb::ModelT& m) { tensor(m, kPerRow).row_sums.clear(); },
       "has layout Packed16x4 but names no row sums tensor"},
      {"row sums missing", [](fb::ModelT& m) { tensor(m, kPerRow).row_sums = "nope"; },
       "row sums tensor 'nope' is missing"},
      {"row sums not int32", [](fb::ModelT& m) { tensor(m, kPerRow).row_sums = "decoder.output.bias"; },
       "row sums tensor 'decoder.output.bias' is F32"},
      {"row sums of another tensor (wrong shape)",
       [](fb::ModelT& m) { tensor(m, kPerRow).row_sums = std::string(kPerTensor) + ".row_sums"; },
       "has shape [3], expected [16]"},
      {"row sums on a row-major tensor", [row_sums](fb::ModelT& m) { tensor(m, kPerGroup).row_sums = row_sums; },
       "names a row sums tensor but its layout is not Packed16x4"},
      {"packed marked row-major keeps its row sums", [](fb::ModelT& m) { tensor(m, kPerRow).layout = fb::Layout::RowMajor; },
       "names a row sums tensor but its layout is not Packed16x4"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const Status s = load(repack(valid, c.edit));
    INFO(s.message());
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find(c.message) != std::string::npos);
    CHECK(s.message().find('\n') == std::string::npos);
  }
}

TEST_CASE("the writer refuses inconsistent packed tensors", "[writer][packed]") {
  {
    convert::NeutralModel m = packed_sample();
    m.find(kPerRow)->row_sums = "nope";
    const Status s = [&] { std::vector<uint8_t> b; return convert::serialize_heed(m, &b); }();
    CHECK(s.message().find("row sums tensor 'nope' is missing") != std::string::npos);
  }
  {
    convert::NeutralModel m = packed_sample();
    m.find(kPerRow)->bytes.resize(64);
    const Status s = [&] { std::vector<uint8_t> b; return convert::serialize_heed(m, &b); }();
    CHECK(s.message().find("has 64 bytes") != std::string::npos);
  }
  {
    convert::NeutralModel m = make_sample_model();
    m.find(kPerGroup)->layout = fb::Layout::Packed16x4;
    m.find(kPerGroup)->row_sums = "x";
    const Status s = [&] { std::vector<uint8_t> b; return convert::serialize_heed(m, &b); }();
    CHECK(s.message().find("only 2-D int8 with per-row or per-tensor scales (or per-group ones of its activation "
                           "block's size) can be packed") != std::string::npos);
  }
}

}  // namespace heed::test
