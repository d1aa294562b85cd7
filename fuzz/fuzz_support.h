// Helpers shared by the fuzz targets: a private scratch folder for readers that only take paths,
// and the container format of multi-file inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace heed::fuzz {

// A folder private to this process (under $TMPDIR, else /dev/shm when present, else /tmp), created
// on first use and removed with its files when the process exits normally.
const std::string& scratch_dir();

// Replaces `path` with exactly these bytes; aborts (a fuzzer bug, not a finding) when it cannot.
void write_file(const std::string& path, const uint8_t* data, size_t size);
inline void write_file(const std::string& path, std::string_view text) {
  write_file(path, reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

// Multi-file inputs (fuzz_ct2_convert): parts separated by kPartSeparator; the first byte of each
// part picks its file name from a fixed list (so the fuzzer cannot write outside the scratch
// folder), the rest is the content. fuzz/make_seeds.py writes seeds in this format.
inline constexpr std::string_view kPartSeparator = "\n=HEED-FUZZ-PART=\n";
struct Part {
  uint8_t name_index;
  std::string_view content;
};
std::vector<Part> split_parts(const uint8_t* data, size_t size);

}  // namespace heed::fuzz
