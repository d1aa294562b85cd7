// The real aren CTranslate2 model (../shared) as editable variables, and a writer of a model folder
// from them (binary version 6, the aren vocabularies beside it), for tests that change one thing.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../converter/ct2_fixture.h"
#include "ct2/model_bin.h"
#include "test_paths.h"

namespace heed::test {

inline constexpr const char* kArenFolder = "models/ct2/aren-transliteration";

// The aren model's variables (float32, as stored in its binary version 2 file).
inline std::vector<ct2::Var> aren_variables() {
  convert::ct2::ModelBin bin;
  const Status s = convert::ct2::ModelBin::read(shared_path(kArenFolder) + "/model.bin", &bin);
  if (!s.is_ok()) FAIL("cannot read the aren model: " << s.message());
  std::vector<ct2::Var> vars;
  for (const auto& v : bin.variables()) {
    vars.push_back(ct2::Var{v.name, v.shape, 0, std::vector<uint8_t>(bin.data(v), bin.data(v) + v.size)});
  }
  return vars;
}

// A fresh folder with model.bin (version 6, TransformerSpec revision 5) and aren's vocabularies.
inline std::string write_aren_folder(const std::vector<ct2::Var>& vars,
                                     const std::vector<std::pair<std::string, std::string>>& aliases = {}) {
  namespace fs = std::filesystem;
  const std::string dir = temp_dir() + "/model";
  fs::create_directories(dir);
  for (const char* f : {"source_vocabulary.txt", "target_vocabulary.txt"}) {
    fs::copy_file(shared_path(kArenFolder) + "/" + f, dir + "/" + f);
  }
  const std::vector<uint8_t> bin = ct2::model_bin(6, "TransformerSpec", 5, vars, aliases);
  std::ofstream(dir + "/model.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(bin.data()), static_cast<std::streamsize>(bin.size()));
  return dir;
}

}  // namespace heed::test
