// A .heed file from a newer heed: whatever else changed in it (a model family, a dtype, a field this
// version has never heard of), the error is the version one, naming both versions.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "heed/model.h"
#include "loader/model_index.h"
#include "test_paths.h"

namespace heed::test {
namespace {

// A size-prefixed index a later format might write, built field by field: family 9 (not in this
// schema), a tensor of dtype 9, and an extra root field in vtable slot 20.
std::vector<uint8_t> future_file(uint32_t format_version) {
  flatbuffers::FlatBufferBuilder b;
  const auto name = b.CreateString("future.tensor");
  const auto shape = b.CreateVector(std::vector<uint32_t>{4});
  fb::TensorBuilder tb(b);
  tb.add_name(name);
  tb.add_shape(shape);
  tb.add_dtype(static_cast<fb::DType>(9));
  tb.add_size(4);
  const auto tensor = tb.Finish();
  const auto tensors = b.CreateVector(std::vector<flatbuffers::Offset<fb::Tensor>>{tensor});
  const flatbuffers::uoffset_t config_start = b.StartTable();
  const flatbuffers::Offset<void> config(b.EndTable(config_start));

  fb::ModelBuilder mb(b);
  mb.add_format_version(format_version);
  mb.add_config_type(static_cast<fb::ModelConfig>(9));
  mb.add_config(config);
  mb.add_tensors(tensors);
  mb.add_weights_size(64);
  mb.fbb_.AddElement<uint64_t>(flatbuffers::FieldIndexToOffset(20), 0x1234567890ull, 0);
  fb::FinishSizePrefixedModelBuffer(b, mb.Finish());

  std::vector<uint8_t> file(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  file.resize((file.size() + 63) / 64 * 64 + 64, 0);  // padding, then a 64-byte weight segment
  return file;
}

Status load(const std::vector<uint8_t>& bytes) {
  std::unique_ptr<Model> model;
  return Model::from_bytes(bytes.data(), bytes.size(), &model);
}

}  // namespace

TEST_CASE("a newer format version is reported as such, whatever else the file holds", "[robustness][version]") {
  // Read as format 1, the same index is refused for its unknown family: the unknowns are really there.
  const Status as_v1 = load(future_file(1));
  CHECK(as_v1.code() == StatusCode::kInvalidFile);
  CHECK(as_v1.message() == "<memory>: unknown model family 9");

  for (uint32_t version : {3u, 1000u, 0xffffffffu}) {
    const Status s = load(future_file(version));
    CHECK(s.code() == StatusCode::kUnsupportedVersion);
    CHECK(s.message() == "<memory>: format version " + std::to_string(version) +
                             " is newer than this heed reads (2); update heed");
  }
}

TEST_CASE("a newer format version through Model::open names the file", "[robustness][version]") {
  const std::string path = temp_dir() + "/future.heed";
  const std::vector<uint8_t> bytes = future_file(3);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  for (bool use_mmap : {true, false}) {
    LoadOptions options;
    options.use_mmap = use_mmap;
    std::unique_ptr<Model> model;
    const Status s = Model::open(path, options, &model);
    CHECK(s.code() == StatusCode::kUnsupportedVersion);
    CHECK(s.message() == path + ": format version 3 is newer than this heed reads (2); update heed");
    CHECK(!model);
  }
}

}  // namespace heed::test
