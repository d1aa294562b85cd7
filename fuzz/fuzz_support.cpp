#include "fuzz_support.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace heed::fuzz {

namespace {

struct Scratch {
  std::string path;
  Scratch() {
    std::string base = "/tmp";
    if (const char* t = std::getenv("TMPDIR"); t && *t) {
      base = t;
    } else if (::access("/dev/shm", W_OK) == 0) {
      base = "/dev/shm";  // tmpfs: the fuzzers write files on every input
    }
    std::string templ = base + "/heed-fuzz-XXXXXX";
    if (!::mkdtemp(templ.data())) {
      std::perror("heed fuzz: mkdtemp");
      std::abort();
    }
    path = templ;
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

}  // namespace

const std::string& scratch_dir() {
  static Scratch scratch;
  return scratch.path;
}

void write_file(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(("heed fuzz: cannot write " + path).c_str());
    std::abort();
  }
}

std::vector<Part> split_parts(const uint8_t* data, size_t size) {
  std::vector<Part> parts;
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  size_t start = 0;
  while (start <= all.size()) {
    size_t end = all.find(kPartSeparator, start);
    if (end == std::string_view::npos) end = all.size();
    const std::string_view part = all.substr(start, end - start);
    if (!part.empty()) parts.push_back({static_cast<uint8_t>(part[0]), part.substr(1)});
    start = end + kPartSeparator.size();
  }
  return parts;
}

}  // namespace heed::fuzz
