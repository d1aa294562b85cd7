// The writer refuses inconsistent models (naming the tensor) and writes files atomically.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "loader/model_index.h"
#include "heed_writer.h"
#include "sample_model.h"
#include "test_paths.h"

namespace heed::test {
namespace {

Status serialize(const convert::NeutralModel& m) {
  std::vector<uint8_t> bytes{1, 2, 3};
  Status s = convert::serialize_heed(m, &bytes);
  if (!s.is_ok()) CHECK(bytes.empty());  // nothing half-built is handed out
  return s;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("the writer refuses inconsistent models", "[writer]") {
  using convert::NeutralModel;
  const char* per_row = "decoder.layers.0.ffn.in.weight";
  struct Case {
    const char* what;
    std::function<void(NeutralModel&)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"duplicate name", [](NeutralModel& m) { m.tensors.push_back(m.tensors[0]); },
       "tensor 'encoder.embeddings' appears twice"},
      {"bytes do not match the shape", [](NeutralModel& m) { m.find("encoder.embeddings")->bytes.pop_back(); },
       "tensor 'encoder.embeddings': has 319 bytes but its shape needs 320 (80 F32)"},
      {"zero dimension", [](NeutralModel& m) { m.find("encoder.embeddings")->shape = {0, 8}; },
       "tensor 'encoder.embeddings': zero dimension in its shape"},
      {"empty shape", [](NeutralModel& m) { m.find("encoder.embeddings")->shape.clear(); },
       "tensor 'encoder.embeddings': empty shape"},
      {"missing scales", [&](NeutralModel& m) { m.find(per_row)->scales = "gone"; },
       "tensor 'decoder.layers.0.ffn.in.weight': scales tensor 'gone' is missing"},
      {"wrong scale count", [&](NeutralModel& m) { m.find(std::string(per_row) + ".scales")->bytes.resize(15 * 4); },
       "tensor 'decoder.layers.0.ffn.in.weight': scales tensor 'decoder.layers.0.ffn.in.weight.scales' has 15 values"
       " but PerRow quantization needs 16"},
      {"per-group count", [](NeutralModel& m) { m.find("decoder.layers.0.ffn.out.weight")->group_size = 8; },
       "PerGroup quantization needs 16"},
      {"scales not f32", [&](NeutralModel& m) { m.find(per_row)->scales = "encoder.norm.gamma"; },
       "scales tensor 'encoder.norm.gamma' is not F32"},
      {"int8 without scales", [&](NeutralModel& m) { m.find(per_row)->quantization = fb::Quantization::None; },
       "tensor 'decoder.layers.0.ffn.in.weight': int8 tensor without quantization scales"},
      {"f32 quantized", [](NeutralModel& m) { m.find("encoder.embeddings")->quantization = fb::Quantization::PerRow; },
       "tensor 'encoder.embeddings': F32 tensor cannot be quantized"},
      {"no config", [](NeutralModel& m) { m.config.Reset(); }, "model has no family configuration"},
      {"duplicate metadata", [](NeutralModel& m) { m.metadata.push_back({"license", "x"}); },
       "metadata key 'license' appears twice"},
      // Caught by the loader's checks, which the writer runs on its own output.
      {"bad hyperparameters",
       [](NeutralModel& m) { m.config.AsTransformerEncoderDecoder()->decoder->num_kv_heads = 3; },
       "the model is inconsistent: decoder: num_kv_heads 3 does not divide num_heads 2"},
      {"special id outside vocabulary", [](NeutralModel& m) { m.tokenizer.bos_id = 40; },
       "the model is inconsistent: tokenizer: bos_id 40 is outside the vocabulary (10 tokens)"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    NeutralModel m = make_sample_model();
    c.edit(m);
    const Status s = serialize(m);
    CHECK(s.code() == StatusCode::kInvalidArgument);
    CHECK(s.message().find(c.message) != std::string::npos);
    INFO("message: " << s.message());
    CHECK(s.message().find('\n') == std::string::npos);
  }
}

TEST_CASE("write_file_atomically writes, replaces, and leaves no temporary file", "[writer]") {
  const std::string dir = temp_dir();
  const std::string path = dir + "/model.heed";
  const std::vector<uint8_t> first = sample_model_bytes();
  REQUIRE(convert::write_file_atomically(path, first).is_ok());
  CHECK(read_file(path) == first);
  const std::vector<uint8_t> second(1000, 7);
  REQUIRE(convert::write_file_atomically(path, second).is_ok());
  CHECK(read_file(path) == second);
  CHECK(files_in(dir) == std::vector<std::string>{"model.heed"});
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & S_IRUSR) != 0);
}

TEST_CASE("write_file_atomically reports unusable destinations", "[writer]") {
  const std::string dir = temp_dir();
  const std::vector<uint8_t> bytes(100, 1);

  const std::string missing = dir + "/no/such/folder/model.heed";
  Status s = convert::write_file_atomically(missing, bytes);
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message() == missing + ": cannot write: folder '" + dir + "/no/such/folder' does not exist");

  // A regular file where a folder should be: fails for every user, root included.
  const std::string file = dir + "/plain";
  std::ofstream(file) << "x";
  s = convert::write_file_atomically(file + "/model.heed", bytes);
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message() == file + "/model.heed: cannot create a file in '" + file + "': Not a directory");

  // A read-only folder (root may write anyway, so only checked when the permission holds).
  const std::string ro = dir + "/readonly";
  std::filesystem::create_directory(ro);
  ::chmod(ro.c_str(), 0555);
  if (::access(ro.c_str(), W_OK) != 0) {
    s = convert::write_file_atomically(ro + "/model.heed", bytes);
    CHECK(s.code() == StatusCode::kIoError);
    CHECK(s.message() == ro + "/model.heed: cannot create a file in '" + ro + "': Permission denied");
  }
  ::chmod(ro.c_str(), 0755);
  CHECK(files_in(ro).empty());
  CHECK(files_in(dir) == std::vector<std::string>{"plain", "readonly"});

  // A folder where the file should be: refused before anything is written.
  const std::string target = dir + "/target";
  std::filesystem::create_directories(target + "/inside");
  s = convert::write_file_atomically(target, bytes);
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message() == target + ": exists and is not a regular file (refusing to replace it)");
  CHECK(files_in(dir) == std::vector<std::string>{"plain", "readonly", "target"});
}

}  // namespace heed::test
