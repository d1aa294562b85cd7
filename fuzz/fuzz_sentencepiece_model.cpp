// Fuzz target: arbitrary bytes as the SentencePiece model embedded in a .heed file's tokenizer
// section, through create_sentencepiece_tokenizer (the only way heed hands such bytes to the
// SentencePiece library). The bytes are refused with one line, or the tokenizer encodes and decodes
// a few fixed sentences; every id it returns lies inside the vocabulary. fuzz/make_seeds.py seeds
// it with the Marian fixture's source.spm and target.spm and small models cut from them.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "heed/tokenizer.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_sentencepiece_model: invariant broken: %s\n", what.c_str());
  std::abort();
}

void check_message(const heed::Status& s) {
  if (s.message().empty() || s.message().find('\n') != std::string::npos) {
    fail("error message empty or not one line: " + s.message());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A small vocabulary with an unknown id, so every piece maps somewhere.
  std::vector<std::string> vocabulary = {"<unk>", "</s>", "<pad>", "\xE2\x96\x81", "a", "\xE2\x96\x81" "a", "e", "s"};
  heed::TokenizerOptions options;
  options.unk_id = 0;
  options.special_ids = {1, 2};
  options.language_code_prefix = size % 2 == 1;
  std::unique_ptr<heed::Tokenizer> tokenizer;
  heed::Status s = heed::create_sentencepiece_tokenizer(data, size, vocabulary, options, &tokenizer);
  if (!s.is_ok()) {
    check_message(s);
    return 0;
  }
  const char* texts[] = {"", "a sentence, with punctuation.", ">>de<< Hallo Welt", "\xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80",
                         "bad \xFF\xFE utf-8 \xC3", "  spaces\t\tand\ttabs  "};
  std::vector<int32_t> ids;
  std::string text;
  for (const char* t : texts) {
    s = tokenizer->encode(t, &ids);
    if (!s.is_ok()) {
      check_message(s);
      continue;
    }
    for (int32_t id : ids) {
      if (id < 0 || static_cast<size_t>(id) >= vocabulary.size()) fail("id outside the vocabulary");
    }
    s = tokenizer->decode(ids.data(), ids.size(), &text);
    if (!s.is_ok()) check_message(s);
  }
  return 0;
}
