// Reproducers of what fuzzing found (scripts/fuzz.sh, docs/security.md), each rebuilt as the
// smallest input that shows the problem, with the result heed must give for it now.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "aren_folder.h"
#include "ct2/model_bin.h"
#include "ct2/reader.h"
#include "heed/tokenizer.h"
#include "safetensors.h"
#include "tokenizer/byte_bpe.h"
#include "tokenizer/sentencepiece_charsmap.h"

namespace heed::test {
namespace {

namespace fx = heed::test::ct2;

// Protocol-buffer encoding, enough to write SentencePiece ModelProto bytes by hand.
std::string varint(uint64_t v) {
  std::string out;
  do {
    out += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return out;
}
std::string field(int number, const std::string& bytes) { return varint(number << 3 | 2) + varint(bytes.size()) + bytes; }
std::string field(int number, uint64_t value) { return varint(number << 3) + varint(value); }
std::string float_field(int number, float value) {
  std::string out = varint(number << 3 | 5);
  out.append(reinterpret_cast<const char*>(&value), 4);  // little-endian hosts and targets only
  return out;
}
// ModelProto.pieces (1) {piece (1), score (2), type (3)}.
std::string sp_piece(const std::string& piece, float score, int type = 1) {
  return field(1, field(1, piece) + float_field(2, score) + field(3, static_cast<uint64_t>(type)));
}

// llama2.c's merge loop (run.c encode), the specification ByteBpe's heap must match: rescan all
// pairs, merge the best-scoring one (the first on ties), until none is a piece.
std::vector<int32_t> llama2c_merges(std::vector<int32_t> t, const std::vector<std::string>& tokens,
                                    const std::vector<float>& scores) {
  while (true) {
    float best = 0;
    int best_id = -1;
    size_t at = 0;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      const std::string pair = tokens[static_cast<size_t>(t[i])] + tokens[static_cast<size_t>(t[i + 1])];
      for (size_t id = 0; id < tokens.size(); ++id) {
        if (tokens[id] != pair) continue;
        if (best_id < 0 || scores[id] > best) best = scores[id], best_id = static_cast<int>(id), at = i;
        break;  // the first id of a piece, like the tokenizer's lookup
      }
    }
    if (best_id < 0) return t;
    t[at] = best_id;
    t.erase(t.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  }
}

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

// fuzz_ct2_model_bin: a variable named "" and an alias pointing at it passed the parse, but the
// alias did not resolve (lookups use "" for "no alias"). Empty names and targets are refused.
TEST_CASE("fuzz: empty variable names and alias names or targets are refused", "[robustness][fuzz]") {
  const fx::Var one{"w", {1}, 0, {0, 0, 128, 63}};
  const std::vector<std::pair<std::vector<fx::Var>, std::vector<std::pair<std::string, std::string>>>> cases = {
      {{one, fx::Var{"", {1}, 0, {0, 0, 128, 63}}}, {}},
      {{one}, {{"a", ""}}},
      {{one}, {{"", "w"}}},
  };
  for (const auto& [vars, aliases] : cases) {
    convert::ct2::ModelBin parsed;
    const Status s = convert::ct2::ModelBin::parse(fx::model_bin(6, "TransformerSpec", 5, vars, aliases), "model.bin", &parsed);
    INFO(s.message());
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("empty name") != std::string::npos);
  }
  convert::ct2::ModelBin parsed;
  REQUIRE(convert::ct2::ModelBin::parse(fx::model_bin(6, "TransformerSpec", 5, {one}, {{"a", "w"}}), "model.bin", &parsed).is_ok());
  CHECK(parsed.find("a") == parsed.find("w"));
  CHECK(parsed.find("a") != nullptr);
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
  CHECK(s.message().size() == Status::kMaxMessageBytes + 3);
  CHECK(s.message().compare(s.message().size() - 3, 3, "...") == 0);
  CHECK(s.message().rfind("model.bin is corrupt at offset ", 0) == 0);
}

// fuzz_sentencepiece_model, first seconds: a SentencePiece model with a piece that starts with a
// NUL byte (not empty, so the library's own check passes, but zero-length as a C string) made its
// trie builder throw Darts::Details::Exception out of create_sentencepiece_tokenizer, terminating
// the process: a crafted .heed file with such a tokenizer killed `heed translate`.
TEST_CASE("fuzz: a SentencePiece piece starting with NUL is refused, not thrown", "[robustness][fuzz]") {
  const std::string model = sp_piece("<unk>", 0, 2) + sp_piece(std::string("\0a", 2), -1) + sp_piece("a", -2) +
                            field(2, field(3, uint64_t{1})) +  // trainer_spec.model_type: unigram
                            field(3, field(1, std::string("identity")));  // normalizer_spec.name
  std::unique_ptr<Tokenizer> tokenizer;
  const Status s = create_sentencepiece_tokenizer(model.data(), model.size(), {"<unk>", "a"}, TokenizerOptions{}, &tokenizer);
  INFO(s.message());
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message().rfind("the embedded SentencePiece model is unusable: ", 0) == 0);
  CHECK(s.message().find("zero-length key") != std::string::npos);
  CHECK(!has_control_bytes(s.message()));
  CHECK(tokenizer == nullptr);
}

// fuzz_sentencepiece_model, CI run of 2026-11-23: a model whose normalization table (the
// precompiled charsmap: a Darts trie + NUL-terminated replacements) pointed outside itself made
// libsentencepiece read out of bounds while encoding (SEGV in Normalizer::NormalizePrefix); the
// library only checks the trie's declared size. heed walks every reachable trie state first.
namespace {
uint32_t trie_unit(uint32_t label, bool leaf, uint32_t offset) { return label | (leaf ? 1u << 8 : 0u) | offset << 10; }
// [uint32 trie bytes][256 units][replacements]: byte 'a' -> leaf whose value unit (at 'a' ^ 1) holds
// `value`, an offset into the replacement strings.
std::string charsmap(uint32_t value, const std::string& replacements, uint32_t a_offset = 1) {
  std::vector<uint32_t> units(256, 0);
  units['a'] = trie_unit('a', true, a_offset);
  units['a' ^ 1] = (1u << 31) | value;
  const uint32_t bytes = static_cast<uint32_t>(units.size() * 4);
  std::string blob(reinterpret_cast<const char*>(&bytes), 4);  // little-endian hosts and targets only
  blob.append(reinterpret_cast<const char*>(units.data()), bytes);
  return blob + replacements;
}
}  // namespace

TEST_CASE("fuzz: SentencePiece normalization tables that point outside themselves are refused", "[robustness][fuzz]") {
  using tokenizer::check_precompiled_charsmap;
  CHECK(check_precompiled_charsmap("").is_ok());                                      // no table
  CHECK(check_precompiled_charsmap(charsmap(0, std::string("b\0", 2))).is_ok());      // 'a' -> "b"
  CHECK(check_precompiled_charsmap(charsmap(2, std::string("b\0c\0", 4))).is_ok());   // 'a' -> "c"
  const std::string bad[] = {
      charsmap(2, std::string("b\0", 2)),          // replacement offset past the strings
      charsmap(0, "b"),                            // replacement without its NUL
      charsmap(0, std::string("b\0", 2), 300),     // child state outside the trie
      std::string("\x08\0\0\0\0\0\0\0", 8),        // trie size larger than the table
      std::string("\x04\0\0\0\0\x04\0\0", 8) + "x", // root offset 1 (x 1024): outside a 1-unit trie
  };
  for (const std::string& table : bad) {
    const Status s = check_precompiled_charsmap(table);
    INFO(s.message());
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("normalization") != std::string::npos);
  }
  // Through the tokenizer: the table is checked before the library loads (and self-tests) the model.
  const std::string model = sp_piece("<unk>", 0, 2) + sp_piece("a", -1) + field(2, field(3, uint64_t{1})) +
                            field(3, field(1, std::string("custom")) + field(2, bad[0]));
  std::unique_ptr<Tokenizer> tokenizer;
  const Status s = create_sentencepiece_tokenizer(model.data(), model.size(), {"<unk>", "a"}, TokenizerOptions{}, &tokenizer);
  INFO(s.message());
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message().rfind("the embedded SentencePiece model is unusable: ", 0) == 0);
  CHECK(s.message().find("replacement strings") != std::string::npos);
  CHECK(tokenizer == nullptr);
  // The same model with a sound table loads and normalizes 'a' to "b" (an unknown piece here).
  const std::string good = sp_piece("<unk>", 0, 2) + sp_piece("a", -1) + field(2, field(3, uint64_t{1})) +
                           field(3, field(1, std::string("custom")) + field(2, charsmap(0, std::string("b\0", 2))));
  REQUIRE(create_sentencepiece_tokenizer(good.data(), good.size(), {"<unk>", "a"}, TokenizerOptions{}, &tokenizer).is_ok());
  std::vector<std::string> pieces;
  REQUIRE(tokenizer->encode_pieces("a", &pieces).is_ok());
  CHECK(std::find(pieces.begin(), pieces.end(), "a") == pieces.end());
}

// fuzz_text_input, first seconds: a 40 KB prompt did not finish encoding within libFuzzer's 30 s,
// because the byte BPE merge loop (llama2.c's) rescans every pair after each merge: quadratic in
// the text length. The heap-based merge must give exactly llama2.c's merges; random vocabularies
// with many tied scores, checked against the rescanning loop above.
TEST_CASE("fuzz: byte BPE merges like llama2.c's loop, long text included", "[robustness][fuzz]") {
  std::mt19937 rng(20261122);
  for (int vocab_round = 0; vocab_round < 20; ++vocab_round) {
    std::vector<std::string> tokens = {"<unk>", "<s>", "</s>", " ", "a", "b", "c"};
    const char alphabet[] = " abc";
    for (int i = 0; i < 60; ++i) {
      std::string piece;
      const int length = 2 + static_cast<int>(rng() % 4);
      for (int k = 0; k < length; ++k) piece += alphabet[rng() % 4];
      tokens.push_back(piece);  // duplicates allowed: the first id wins in both
    }
    std::vector<float> scores(tokens.size());
    for (float& f : scores) f = -static_cast<float>(rng() % 5);  // ties are common
    tokenizer::ByteBpe bpe;
    REQUIRE(tokenizer::ByteBpe::create(tokens, scores, 0, 1, 2, &bpe).is_ok());
    for (int text_round = 0; text_round < 20; ++text_round) {
      std::string text;
      const size_t length = rng() % 120;
      for (size_t k = 0; k < length; ++k) text += alphabet[rng() % 4];
      std::vector<int32_t> ids;
      REQUIRE(bpe.encode(text, false, false, &ids).is_ok());
      std::vector<int32_t> start;
      if (!text.empty()) start.push_back(3);
      for (char ch : text) start.push_back(ch == ' ' ? 3 : 4 + (ch - 'a'));
      INFO("text '" << text << "'");
      CHECK(ids == llama2c_merges(start, tokens, scores));
    }
  }
  // A 1 MiB line (the fuzzer's largest input) encodes; the old loop took hours on it.
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>", " ", "a", "b", "ab", " ab", "abab", "ba"};
  tokenizer::ByteBpe bpe;
  REQUIRE(tokenizer::ByteBpe::create(tokens, {0, 0, 0, 0, 0, 0, -1, -2, -3, -1}, 0, 1, 2, &bpe).is_ok());
  std::string text;
  while (text.size() < (1u << 20)) text += "ab";
  std::vector<int32_t> ids;
  REQUIRE(bpe.encode(text, false, false, &ids).is_ok());
  // " ab ab ab ...": "ab" pairs first (all at -1, left to right), then " ab" at the front (-2), then
  // "abab" (-3) pairs the remaining "ab"s left to right: " ab", then (2^19 - 1) / 2 "abab" and one "ab".
  REQUIRE(ids.size() == 1 + (text.size() / 2 - 1) / 2 + 1);
  CHECK(ids.front() == 7);
  CHECK(ids[1] == 8);
  CHECK(ids.back() == 6);
  // NaN scores are refused: with them "the best pair" depends on the order pairs are visited.
  std::vector<float> nan_scores(tokens.size(), 0.0f);
  nan_scores[6] = std::nanf("");
  tokenizer::ByteBpe bad;
  const Status s = tokenizer::ByteBpe::create(tokens, nan_scores, 0, 1, 2, &bad);
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message() == "byte BPE tokenizer: token 6 has a NaN merge score");
}

TEST_CASE("Status messages keep printable text and UTF-8 as they are", "[robustness][fuzz]") {
  CHECK(Status(StatusCode::kInvalidFile, "plain 'name' \xd8\xa2 ok").message() == "plain 'name' \xd8\xa2 ok");
  CHECK(invalid_file(std::string("a\0b\tc\x7f", 6)).message() == "a\\x00b\\x09c\\x7f");
  CHECK(Status::success().message().empty());
}

TEST_CASE("Status messages are cut at a character boundary", "[robustness][fuzz]") {
  // 999 ASCII bytes then two-byte characters: the cut may not split one.
  const std::string text = std::string(Status::kMaxMessageBytes - 1, 'a') + "\xd8\xa2\xd8\xa2\xd8\xa2";
  const std::string m = invalid_file(text).message();
  CHECK(m == std::string(Status::kMaxMessageBytes - 1, 'a') + "\xd8\xa2...");
}

// fuzz_safetensors (CI, 17,394 executions): a tensor name holding a newline (JSON "\n") went into
// the message of a refused tensor, which then spanned two lines. Every Status now escapes
// control bytes, so all readers keep the one-line promise.
TEST_CASE("fuzz: a safetensors tensor name with a newline gives a one-line message", "[robustness][fuzz]") {
  const std::string header = R"({"a\nb":{"dtype":"Q7","shape":[1],"data_offsets":[0,1]}})";
  std::vector<uint8_t> bytes(8, 0);
  bytes[0] = static_cast<uint8_t>(header.size());
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.push_back(0);
  convert::SafetensorsFile file;
  const Status s = convert::SafetensorsFile::parse(bytes, "x.safetensors", &file);
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message() == "x.safetensors: tensor 'a\\x0ab': unknown dtype 'Q7'");
}

}  // namespace heed::test
