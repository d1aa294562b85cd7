// Fuzz target: arbitrary bytes as the text files beside a CTranslate2 model.bin: config.json, a
// JSON vocabulary, a line-per-token vocabulary, and the same bytes as every vocabulary of a model
// folder. The readers take paths, so the bytes go to files in a private scratch folder.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ct2/vocabulary.h"
#include "fuzz_support.h"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_ct2_text_files: invariant broken: %s\n", what);
  std::abort();
}

void check_message(const heed::Status& s) {
  if (!s.is_ok() && (s.message().empty() || s.message().find('\n') != std::string::npos)) {
    fail("error message empty or not one line");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace ct2 = heed::convert::ct2;
  const std::string& dir = heed::fuzz::scratch_dir();
  for (const char* name : {"config.json", "vocabulary.json", "vocabulary.txt", "shared_vocabulary.txt"}) {
    heed::fuzz::write_file(dir + "/" + name, data, size);
  }

  ct2::Config config;
  check_message(ct2::read_config(dir, &config));

  std::vector<std::string> tokens;
  for (const char* name : {"vocabulary.json", "vocabulary.txt"}) {
    const heed::Status s = ct2::read_vocabulary_file(dir + "/" + name, &tokens);
    check_message(s);
    if (s.is_ok() && tokens.empty()) fail("a vocabulary was accepted without tokens");
  }

  // Folder-level lookup: vocabulary.json wins for language models, shared_vocabulary.txt serves
  // both sides of a sequence-to-sequence model; <unk> is appended when missing.
  for (bool seq2seq : {false, true}) {
    ct2::Vocabularies v;
    const heed::Status s = ct2::read_vocabularies(dir, seq2seq, config.unk_token, &v);
    check_message(s);
    if (s.is_ok()) {
      if (v.target.empty()) fail("no target tokens");
      if (seq2seq && v.source != v.target) fail("a shared vocabulary differs between the sides");
    }
  }
  return 0;
}
