// Writes the sample model (valid.heed) and every crafted corruption (NAME.heed) into a folder,
// for the `heed inspect` command-line test (inspect_cli_test.sh).
#include <cstdio>
#include <exception>
#include <fstream>

#include "corrupt_files.h"
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
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_corrupt_heed: %s\n", e.what());
    return 1;
  }
  return 0;
}
