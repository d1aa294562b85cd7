// Every converter input is read through one checked reader (converter/source_files.h): a FIFO or a
// symlink to /dev/zero in place of a model's file is refused at once with one line, instead of
// blocking forever or reading until memory runs out. One case per input file of the Hugging Face
// and PyTorch readers (the other readers had their own checks before).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "formats.h"
#include "neutral_model.h"
#include "test_paths.h"

namespace fs = std::filesystem;
using heed::convert::NeutralModel;
using heed::convert::SourceFormat;

namespace {

// A copy of fixture folder `fixture` with `file` replaced by a FIFO or a symlink to /dev/zero.
std::string hostile_copy(const std::string& fixture, const std::string& file, bool fifo, int n) {
  const std::string dir = heed::test::temp_dir() + "/hostile_" + std::to_string(n);
  fs::remove_all(dir);
  fs::copy(heed::test::source_path(fixture), dir, fs::copy_options::recursive);
  const std::string path = dir + "/" + file;
  fs::remove(path);
  if (fifo) {
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  } else {
    fs::create_symlink("/dev/zero", path);
  }
  return dir;
}

void expect_refused(const char* format_name, const std::string& fixture, const std::string& file, int* n) {
  const SourceFormat* format = nullptr;
  REQUIRE(heed::convert::find_format(format_name, &format).is_ok());
  for (bool fifo : {true, false}) {
    INFO(format_name << ": " << file << (fifo ? " as a FIFO" : " as a symlink to /dev/zero"));
    const std::string dir = hostile_copy(fixture, file, fifo, (*n)++);
    NeutralModel model;
    const heed::Status s = format->read(dir, &model);
    CHECK_FALSE(s.is_ok());
    CHECK(s.message().find("is not a regular file") != std::string::npos);
    CHECK(s.message().find('\n') == std::string::npos);
  }
}

}  // namespace

TEST_CASE("a FIFO or /dev/zero in place of a model file is refused at once", "[converter][hostile]") {
  int n = 0;
  for (const char* file : {"config.json", "vocab.txt"}) expect_refused("hf-bert", "tests/fixtures/hf-bert/model", file, &n);
  for (const char* file : {"vocab.json", "merges.txt"}) expect_refused("hf-gpt2", "tests/fixtures/hf-gpt2", file, &n);
  for (const char* file : {"vocab.json", "source.spm", "target.spm"}) {
    expect_refused("hf-marian", "tests/fixtures/marian/tiny-en-de", file, &n);
  }
  for (const char* file : {"config.json", "model.safetensors"}) {
    expect_refused("torch-seq2seq", "tests/fixtures/rnn/luong_general", file, &n);
  }
}

TEST_CASE("a truncated or random SentencePiece model is refused at conversion", "[converter][hostile]") {
  const SourceFormat* marian = nullptr;
  REQUIRE(heed::convert::find_format("hf-marian", &marian).is_ok());
  std::mt19937 rng(7);
  for (const char* file : {"source.spm", "target.spm"}) {
    for (int variant = 0; variant < 6; ++variant) {
      const std::string dir = heed::test::temp_dir() + "/spm_" + std::to_string(variant);
      fs::remove_all(dir);
      fs::copy(heed::test::source_path("tests/fixtures/marian/tiny-en-de"), dir, fs::copy_options::recursive);
      const std::string path = dir + "/" + file;
      std::string bytes;
      {
        std::ifstream in(path, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
      if (variant < 3) {
        bytes.resize(bytes.size() * (variant + 1) / 4);  // truncated to 1/4, 1/2, 3/4
      } else {
        for (char& c : bytes) c = static_cast<char>(rng());  // random bytes of the same size
      }
      std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
      INFO(file << " variant " << variant);
      NeutralModel model;
      const heed::Status s = marian->read(dir, &model);
      CHECK_FALSE(s.is_ok());
      CHECK(s.message().find(file) != std::string::npos);
      CHECK(s.message().find('\n') == std::string::npos);
    }
  }
}
