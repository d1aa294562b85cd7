// WordPiece tokenization against Hugging Face's BertTokenizer: the ids it gave for the fixture's
// sentences (accents, punctuation, CJK, unknown and over-long words, control characters), for
// the uncased rules the model was converted with and for the cased ones, and truncation.
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "bert_fixture.h"
#include "heed/tokenizer.h"
#include "test_paths.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/wordpiece.h"

namespace heed::test {
namespace {

std::vector<std::string> fixture_vocab() {
  std::ifstream in(source_path("tests/fixtures/hf-bert/model/vocab.txt"));
  REQUIRE(in.good());
  std::vector<std::string> v;
  std::string line;
  while (std::getline(in, line)) v.push_back(line);
  return v;
}

// [CLS] + ids + [SEP], as BertTokenizer returns input_ids.
std::vector<int32_t> with_specials(const Tokenizer& t, const std::vector<int32_t>& ids) {
  std::vector<int32_t> out{t.id("[CLS]")};
  out.insert(out.end(), ids.begin(), ids.end());
  out.push_back(t.id("[SEP]"));
  return out;
}

TEST_CASE("WordPiece ids equal BertTokenizer's (uncased and cased rules)") {
  const auto& ref = bert_reference();
  for (const bool cased : {false, true}) {
    tokenizer::WordPieceOptions wp;
    wp.lowercase = !cased;
    wp.strip_accents = !cased;
    wp.never_split = {"[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"};  // BertTokenizer's special tokens
    TokenizerOptions options;
    options.unk_id = 1;
    std::unique_ptr<Tokenizer> t;
    REQUIRE(tokenizer::create_wordpiece_tokenizer(fixture_vocab(), wp, options, &t).is_ok());
    const auto& expected_all = ref[cased ? "ids_cased" : "ids_uncased"];
    for (size_t i = 0; i < ref["sentences"].size(); ++i) {
      const std::string text = ref["sentences"][i].get<std::string>();
      std::vector<int32_t> ids;
      REQUIRE(t->encode(text, &ids).is_ok());
      INFO((cased ? "cased: " : "uncased: ") << text);
      CHECK(with_specials(*t, ids) == expected_all[i].get<std::vector<int32_t>>());
    }
  }
}

TEST_CASE("the converted model's tokenizer and the Embedder's encode() match BertTokenizer") {
  const auto& ref = bert_reference();
  auto e = open_embedder(bert_heed(convert::WeightType::kFloat32));
  for (size_t i = 0; i < ref["sentences"].size(); ++i) {
    std::vector<int32_t> ids;
    REQUIRE(e->encode(ref["sentences"][i].get<std::string>(), &ids).is_ok());
    CHECK(ids == ref["ids_uncased"][i].get<std::vector<int32_t>>());
  }
  // Truncation to max_length keeps [CLS], the first pieces and [SEP].
  EmbedderOptions options;
  options.max_length = ref["truncated"]["max_length"].get<size_t>();
  std::unique_ptr<Embedder> short_embedder;
  REQUIRE(Embedder::open(bert_heed(convert::WeightType::kFloat32), options, &short_embedder).is_ok());
  std::vector<int32_t> ids;
  REQUIRE(short_embedder->encode(ref["truncated"]["text"].get<std::string>(), &ids).is_ok());
  CHECK(ids == ref["truncated"]["ids"].get<std::vector<int32_t>>());
}

TEST_CASE("special tokens: leftmost occurrence, then the longest token there") {
  const tokenizer::SpecialTokens specials({"ab", "abc", "", "b", "ab"});
  const auto at = [&](std::string_view text, size_t from) {
    const auto m = specials.find(text, from);
    return std::vector<size_t>{m.at, m.length, m.index};
  };
  CHECK(at("xxabcab", 0) == std::vector<size_t>{2, 3, 1});
  CHECK(at("xxabcab", 3) == std::vector<size_t>{3, 1, 3});
  CHECK(at("xxabcab", 4) == std::vector<size_t>{5, 2, 0});
  CHECK(at("aaac", 0)[0] == std::string_view::npos);
  CHECK(tokenizer::SpecialTokens(std::vector<std::string>{}).find("ab", 0).at == std::string_view::npos);
}

// A megabyte of [MASK] used to take one search of the rest of the text per special token per
// [MASK]: 16.9 s with BERT's five special tokens, hours with the 200 more here (absent from the
// text). A linear split takes well under a second; the bound is generous for slow machines.
TEST_CASE("WordPiece splits a megabyte of special tokens in linear time") {
  tokenizer::WordPieceOptions wp;
  wp.never_split = {"[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"};
  for (int i = 0; i < 200; ++i) wp.never_split.push_back("[unused" + std::to_string(i) + "]");
  TokenizerOptions options;
  options.unk_id = 1;
  std::unique_ptr<Tokenizer> t;
  REQUIRE(tokenizer::create_wordpiece_tokenizer(fixture_vocab(), wp, options, &t).is_ok());
  std::string text;
  while (text.size() < (size_t{1} << 20)) text += "[MASK]";
  const size_t masks = text.size() / 6;
  text += " s [MASK]";
  const auto start = std::chrono::steady_clock::now();
  std::vector<int32_t> ids;
  REQUIRE(t->encode(text, &ids).is_ok());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(120));
  REQUIRE(ids.size() == masks + 2);
  for (size_t i = 0; i <= masks; ++i) REQUIRE(ids[i == masks ? masks + 1 : i] == t->id("[MASK]"));
  CHECK(ids[masks] == t->id("s"));
}

TEST_CASE("WordPiece: greedy longest match, unknown words, decoding, bad input") {
  tokenizer::WordPieceOptions wp;
  wp.max_chars_per_word = 9;
  TokenizerOptions options;
  options.unk_id = 0;
  std::unique_ptr<Tokenizer> t;
  REQUIRE(tokenizer::create_wordpiece_tokenizer({"[UNK]", "un", "##aff", "##able", "una", "##ff", "!", "a"}, wp,
                                                options, &t)
              .is_ok());
  std::vector<std::string> pieces;
  REQUIRE(t->encode_pieces("Unaffable!", &pieces).is_ok());
  // "una" is the longest first piece, then "##ff" + "##able": longest match first, no backtracking.
  CHECK(pieces == std::vector<std::string>{"una", "##ff", "##able", "!"});
  REQUIRE(t->encode_pieces("unx aaaaaaaaaa a", &pieces).is_ok());
  CHECK(pieces == std::vector<std::string>{"[UNK]", "[UNK]", "a"});  // no split; over 9 characters
  std::string text;
  const int32_t ids[] = {4, 5, 3, 6};
  REQUIRE(t->decode(ids, 4, &text).is_ok());
  CHECK(text == "unaffable !");
  const Status bad = t->encode_pieces(std::string("caf\xC3", 4), &pieces);
  CHECK(bad.code() == StatusCode::kInvalidArgument);
  CHECK(bad.message().find("UTF-8") != std::string::npos);
  std::unique_ptr<Tokenizer> none;
  CHECK_FALSE(tokenizer::create_wordpiece_tokenizer({"a", "b"}, wp, options, &none).is_ok());
}

}  // namespace
}  // namespace heed::test

namespace heed::test {
namespace {

// Arbitrary bytes (ASCII, multi-byte characters, combining marks, CJK, invalid sequences, NULs)
// through the converted model's tokenizer and the Embedder: either ids inside the vocabulary that
// embed to finite numbers, or a one-line error. Seeded, so every target sees the same inputs.
TEST_CASE("arbitrary bytes: valid ids or a one-line error, never a crash") {
  auto e = open_embedder(bert_heed(convert::WeightType::kInt8), 2);
  const char* fragments[] = {"a", "Z", " ", "\t", "\n", ".", "##", "[UNK]", "\xC3\xA9", "e\xCC\x81", "\xE4\xB8\xAD",
                             "\xF0\x9F\x99\x82", "\xC3", "\xFF", "\xED\xA0\x80", "" /* a NUL byte */,
                             "\xE2\x80\xA8", "\xC2\xA0", "\xEF\xBF\xBD", "\xCE\xA3"};
  uint64_t state = 12345;
  const auto next = [&]() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(state >> 33);
  };
  std::vector<int32_t> ids;
  std::vector<float> out;
  for (int round = 0; round < 400; ++round) {
    std::string text;
    const size_t n = next() % 40;
    for (size_t i = 0; i < n; ++i) {
      const size_t f = next() % (sizeof(fragments) / sizeof(fragments[0]));
      if (f == 15) {
        text.push_back('\0');
      } else {
        text += fragments[f];
      }
    }
    const Status s = e->encode(text, &ids);
    if (!s.is_ok()) {
      CHECK(s.message().find('\n') == std::string::npos);
      CHECK(s.message().find("UTF-8") != std::string::npos);
      continue;
    }
    REQUIRE(ids.size() <= e->max_length());
    REQUIRE(e->embed_text({text}, Pooling::kMean, true, &out).is_ok());
    for (float x : out) REQUIRE(std::isfinite(x));
  }
}

}  // namespace
}  // namespace heed::test
