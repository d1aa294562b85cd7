// Reproducers of what fuzzing found (scripts/fuzz.sh, docs/security.md), each rebuilt as the
// smallest input that shows the problem, with the result heed must give for it now.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "aren_folder.h"
#include "ct2/model_bin.h"
#include "ct2/one_line.h"
#include "ct2/reader.h"

namespace heed::test {
namespace {

namespace fx = heed::test::ct2;

bool has_control_bytes(const std::string& s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

}  // namespace

// fuzz_ct2_convert, first minute: a model.bin whose variable name held a newline (and other raw
// bytes) produced an error message of several lines, breaking `heed convert`'s one-line errors
// and letting a file write terminal escapes to the user's screen.
TEST_CASE("fuzz: names with control bytes are escaped in model.bin errors", "[robustness][fuzz]") {
  const std::string evil = "evil\nname\x1b[31m\x7f";
  // Shape [4] of float32 with only 3 bytes: corrupt right after the name was read.
  const std::vector<uint8_t> bin = fx::model_bin(6, "TransformerSpec", 5, {fx::Var{evil, {4}, 0, {1, 2, 3}}});
  convert::ct2::ModelBin parsed;
  const Status s = convert::ct2::ModelBin::parse(bin, "model.bin", &parsed);
  INFO(s.message());
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(!has_control_bytes(s.message()));
  CHECK(s.message().find("variable 'evil\\x0aname\\x1b[31m\\x7f' has 3 bytes of float32 for shape [4]") !=
        std::string::npos);
}

TEST_CASE("fuzz: names with control bytes are escaped in read_model errors", "[robustness][fuzz]") {
  std::vector<fx::Var> vars = aren_variables();
  vars.push_back(fx::f32_var("encoder/extra\r\nline", {1}, {0.5f}));
  const std::string dir = write_aren_folder(vars);
  convert::NeutralModel model;
  const Status s = convert::ct2::read_model(dir, &model);
  INFO(s.message());
  CHECK(s.code() == StatusCode::kUnsupportedModel);
  CHECK(!has_control_bytes(s.message()));
  CHECK(s.message().find("unknown variable 'encoder/extra\\x0d\\x0aline'") != std::string::npos);
}

TEST_CASE("fuzz: a 60 KiB variable name gives a bounded message", "[robustness][fuzz]") {
  const std::string huge(60000, 'n');
  const std::vector<uint8_t> bin = fx::model_bin(6, "S", 1, {fx::Var{huge, {4}, 0, {1, 2, 3}}});
  convert::ct2::ModelBin parsed;
  const Status s = convert::ct2::ModelBin::parse(bin, "model.bin", &parsed);
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message().size() == convert::ct2::kMaxMessageBytes + 3);
  CHECK(s.message().compare(s.message().size() - 3, 3, "...") == 0);
  CHECK(s.message().rfind("model.bin is corrupt at offset ", 0) == 0);
}

TEST_CASE("one_line keeps printable text and UTF-8 as they are", "[robustness][fuzz]") {
  CHECK(convert::ct2::one_line("plain 'name' \xd8\xa2 ok") == "plain 'name' \xd8\xa2 ok");
  CHECK(convert::ct2::one_line(std::string("a\0b\tc", 5)) == "a\\x00b\\x09c");
  const Status ok = convert::ct2::one_line(Status::ok());
  CHECK(ok.is_ok());
}

}  // namespace heed::test
