// Fuzz target: bytes as an Argos Translate package (.argosmodel) through `heed convert --from
// argos`'s code: argos::read_model (minizip's zip parsing, entry name checks, extraction into a
// temporary folder, metadata.json, the CTranslate2 reader on the extracted model/, the
// SentencePiece model check), then quantize_model, serialize_heed and Model::from_bytes
// (convert_and_load.h). fuzz/make_seeds.py seeds it with tests/fixtures/argos' package (deflated,
// stored, and without its top folder).
//
// Properties: no crash or undefined behaviour; every refusal is one line; whatever the writer
// produces loads; and the reader's temporary folder is gone after every input, accepted or not
// (TMPDIR points at a folder of the fuzzer's own that must stay empty).
#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "argos/reader.h"
#include "convert_and_load.h"
#include "fuzz_support.h"

namespace {

constexpr const char* kTarget = "fuzz_argos_convert";
std::string package_path;
std::string tmp_dir;

bool tmp_empty() {
  DIR* d = ::opendir(tmp_dir.c_str());
  if (!d) return false;
  bool empty = true;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") empty = false;
  }
  ::closedir(d);
  return empty;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  package_path = heed::fuzz::scratch_dir() + "/package.argosmodel";
  tmp_dir = heed::fuzz::scratch_dir() + "/tmp";
  ::mkdir(tmp_dir.c_str(), 0700);
  ::setenv("TMPDIR", tmp_dir.c_str(), 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  heed::fuzz::write_file(package_path, data, size);
  // Caps far below the defaults: a few MB is all a fuzz input may inflate to.
  heed::convert::argos::PackageLimits limits;
  limits.max_entries = 256;
  limits.max_entry_bytes = 16 << 20;
  limits.max_total_bytes = 32 << 20;
  limits.max_in_memory_bytes = 4 << 20;
  heed::convert::NeutralModel model;
  const heed::Status s = heed::convert::argos::read_model(package_path, limits, &model);
  if (!tmp_empty()) heed::fuzz::invariant_broken(kTarget, "the reader left files in its temporary folder");
  if (!s.is_ok()) {
    heed::fuzz::check_refusal(kTarget, s);
    return 0;
  }
  heed::fuzz::convert_and_load(kTarget, &model, size);
  return 0;
}
