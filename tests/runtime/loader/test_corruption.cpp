// Broken files: every crafted corruption gives its own status code and one-line message (both
// from memory and from disk, mmap and read fallback); every truncation and thousands of random
// byte flips either load cleanly or fail with a status. Under ASan+UBSan this also proves the
// loader never reads outside the file.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <random>

#include "corrupt_files.h"
#include "heed/model.h"
#include "loader/model_index.h"
#include "sample_model.h"
#include "test_paths.h"

namespace heed::test {
namespace {

bool one_line(const std::string& m) { return !m.empty() && m.find('\n') == std::string::npos; }

// Reads every byte every view points at, so ASan flags a view outside the buffer.
unsigned touch_all(const Model& model) {
  unsigned sum = 0;
  for (const auto& v : file_tensors(model)) {
    const auto* p = static_cast<const uint8_t*>(v.data);
    for (uint64_t i = 0; i < v.size_bytes; ++i) sum += p[i];
    for (size_t i = 0; i < v.num_scales; ++i) sum += v.scales[i] > 0.0f;
  }
  return sum;
}

// from_bytes on a heap copy of exactly `size` bytes (so ASan sees any read past it).
Status load_exact(const uint8_t* bytes, size_t size, std::unique_ptr<Model>* model) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size == 0 ? 1 : size]);
  if (size) std::memcpy(copy.get(), bytes, size);
  Status s = Model::from_bytes(copy.get(), size, model);
  // from_bytes keeps pointers into aligned memory; drop the model before its bytes go.
  if (s.is_ok() && reinterpret_cast<uintptr_t>(copy.get()) % 64 == 0) {
    touch_all(**model);
    model->reset();
  }
  return s;
}

}  // namespace

TEST_CASE("the sample model itself loads", "[loader][corrupt]") {
  const std::vector<uint8_t> valid = sample_model_bytes();
  std::unique_ptr<Model> model;
  const Status s = load_exact(valid.data(), valid.size(), &model);
  INFO(s.message());
  CHECK(s.is_ok());
}

TEST_CASE("each crafted corruption is rejected with its own message", "[loader][corrupt]") {
  const std::vector<uint8_t> valid = sample_model_bytes();
  const std::string dir = temp_dir();
  const auto cases = corrupt_files(valid);
  REQUIRE(cases.size() > 30);
  for (const CorruptFile& c : cases) {
    SECTION(c.name) {
      std::unique_ptr<Model> model;
      const Status s = load_exact(c.bytes.data(), c.bytes.size(), &model);
      INFO("message: " << s.message());
      CHECK(s.code() == c.code);
      CHECK(one_line(s.message()));
      CHECK(s.message().rfind("<memory>: ", 0) == 0);
      CHECK(s.message().find(c.message_contains) != std::string::npos);

      const std::string path = dir + "/" + c.name + ".heed";
      std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(c.bytes.data()), c.bytes.size());
      for (bool use_mmap : {true, false}) {
        LoadOptions options;
        options.use_mmap = use_mmap;
        const Status f = Model::open(path, options, &model);
        INFO("use_mmap " << use_mmap << " message: " << f.message());
        CHECK(model == nullptr);
        CHECK(f.code() == c.code);
        CHECK(f.message().rfind(path + ": ", 0) == 0);
        CHECK(f.message().find(c.message_contains) != std::string::npos);
      }
    }
  }
}

TEST_CASE("the crafted files differ from the valid one only where intended", "[loader][corrupt]") {
  // A repack without edits must give a file the loader accepts with identical tensors, otherwise
  // the crafted cases above could fail for a reason other than their edit.
  const std::vector<uint8_t> valid = sample_model_bytes();
  const std::vector<uint8_t> same = repack(valid, [](fb::ModelT&) {});
  std::unique_ptr<Model> a, b;
  REQUIRE(Model::from_bytes(valid.data(), valid.size(), &a).is_ok());
  const Status s = Model::from_bytes(same.data(), same.size(), &b);
  INFO(s.message());
  REQUIRE(s.is_ok());
  REQUIRE(file_tensors(*a).size() == file_tensors(*b).size());
  for (size_t i = 0; i < file_tensors(*a).size(); ++i) {
    CHECK(file_tensors(*a)[i].name == file_tensors(*b)[i].name);
    CHECK(std::memcmp(file_tensors(*a)[i].data, file_tensors(*b)[i].data, file_tensors(*a)[i].size_bytes) == 0);
  }
}

TEST_CASE("every truncation of a valid file is rejected", "[loader][corrupt]") {
  const std::vector<uint8_t> valid = sample_model_bytes();
  for (size_t size = 0; size < valid.size(); ++size) {
    std::unique_ptr<Model> model;
    const Status s = load_exact(valid.data(), size, &model);
    INFO("truncated to " << size << " of " << valid.size() << " bytes: " << s.message());
    REQUIRE(s.code() == StatusCode::kInvalidFile);
    REQUIRE(one_line(s.message()));
  }
}

TEST_CASE("truncated files on disk are rejected through mmap and read", "[loader][corrupt]") {
  const std::vector<uint8_t> valid = sample_model_bytes();
  const std::string path = temp_dir() + "/truncated.heed";
  for (size_t size = 0; size < valid.size(); size += 37) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(valid.data()), size);
    for (bool use_mmap : {true, false}) {
      std::unique_ptr<Model> model;
      LoadOptions options;
      options.use_mmap = use_mmap;
      const Status s = Model::open(path, options, &model);
      INFO("size " << size << " mmap " << use_mmap << ": " << s.message());
      REQUIRE(s.code() == StatusCode::kInvalidFile);
    }
  }
}

TEST_CASE("random byte flips load cleanly or fail with a status", "[loader][corrupt]") {
  const std::vector<uint8_t> valid = sample_model_bytes();
  uint32_t index_size = 0;
  std::memcpy(&index_size, valid.data(), 4);
  const size_t index_end = 4 + size_t{index_size};
  int rejected = 0, accepted = 0;
  for (uint32_t seed = 0; seed < 3000; ++seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> bytes = valid;
    const int flips = 1 + static_cast<int>(seed % 4);
    for (int k = 0; k < flips; ++k) {
      // Mostly in the index, where a flip changes structure; sometimes anywhere.
      const size_t limit = rng() % 8 == 0 ? bytes.size() : index_end;
      bytes[rng() % limit] ^= static_cast<uint8_t>(1 + rng() % 255);
    }
    std::unique_ptr<Model> model;
    const Status s = load_exact(bytes.data(), bytes.size(), &model);
    INFO("seed " << seed << ": " << s.message());
    if (s.is_ok()) {
      ++accepted;
      if (model) touch_all(*model);
    } else {
      ++rejected;
      REQUIRE((s.code() == StatusCode::kInvalidFile || s.code() == StatusCode::kUnsupportedVersion));
      REQUIRE(one_line(s.message()));
    }
  }
  // Both outcomes happen: flips in tensor data or padding are harmless, flips in the index mostly not.
  CHECK(rejected > 1000);
  CHECK(accepted > 0);
}

}  // namespace heed::test
