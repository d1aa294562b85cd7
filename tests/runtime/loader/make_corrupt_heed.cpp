// Writes the sample model (valid.heed), every crafted corruption (corrupt_NAME.heed) and a valid
// model whose names and metadata hold terminal control bytes (hostile_names.heed) into a folder,
// for the `heed inspect` command-line test (inspect_cli_test.sh).
#include <cstdio>
#include <exception>
#include <fstream>

#include "corrupt_files.h"
#include "heed_writer.h"
#include "sample_model.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_corrupt_heed FOLDER\n");
    return 2;
  }
  try {
    const std::string dir = argv[1];
    auto write = [&](const std::string& name, const std::vector<uint8_t>& bytes) {
      std::ofstream out(dir + "/" + name + ".heed", std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      if (!out) throw std::runtime_error("cannot write " + dir + "/" + name + ".heed");
    };
    const std::vector<uint8_t> valid = heed::test::sample_model_bytes();
    write("valid", valid);
    for (const auto& c : heed::test::corrupt_files(valid)) write("corrupt_" + c.name, c.bytes);

    // Valid, but its producer, metadata and one tensor name carry a screen clear, a carriage
    // return, a newline, an OSC title sequence ending in BEL, an 8-bit CSI, a UTF-8 C1 control,
    // invalid UTF-8 and a backslash; the text report must show them escaped.
    heed::convert::NeutralModel hostile = heed::test::make_sample_model();
    hostile.producer.source_name = "evil\x1b[2J\rname\n";
    hostile.metadata.push_back({"note\x1b]0;title\x07", "fake\nline \x9b" "31m \xc2\x9b \\ caf\xc3\xa9"});
    heed::convert::NeutralTensor extra = hostile.tensors.front();
    extra.name = "zz.\x1b[31mred\x7f";
    hostile.tensors.push_back(extra);
    std::vector<uint8_t> hostile_bytes;
    const heed::Status s = heed::convert::serialize_heed(hostile, &hostile_bytes);
    if (!s.is_ok()) throw std::runtime_error("hostile_names: " + s.message());
    write("hostile_names", hostile_bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_corrupt_heed: %s\n", e.what());
    return 1;
  }
  return 0;
}
