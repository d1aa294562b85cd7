// heed's tokenizers against MarianTokenizer: the SentencePiece models embedded in the converted
// fixture must give exactly the pieces and ids transformers recorded, and decoding must give the
// library's text. Also each side's vocabulary against vocab.json, the whitespace tokenizer, OPUS-MT
// language tags and error cases.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>

#include "heed/tokenizer.h"
#include "marian_fixture.h"
#include "tokenizer/language_code.h"

using heed::test::converted_marian;
using heed::test::ints;
using heed::test::marian_fixture_dir;
using heed::test::marian_reference;

namespace {

std::unique_ptr<heed::Tokenizer> tokenizer(heed::TokenizerSide side) {
  std::unique_ptr<heed::Tokenizer> t;
  const heed::Status s = heed::create_tokenizer(*converted_marian(heed::convert::WeightType::kFloat32).model, side, &t);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return t;
}

std::vector<std::string> strings(const nlohmann::json& array) {
  std::vector<std::string> v;
  for (const auto& x : array) v.push_back(x.get<std::string>());
  return v;
}

}  // namespace

TEST_CASE("marian tokenizer: source pieces and ids equal MarianTokenizer's") {
  const auto source = tokenizer(heed::TokenizerSide::kSource);
  const int32_t eos = marian_reference()["eos_id"].get<int32_t>();
  for (const auto& c : marian_reference()["sentences"]) {
    const std::string text = c["text"].get<std::string>();
    INFO("'" << text << "'");
    std::vector<std::string> pieces;
    REQUIRE(source->encode_pieces(text, &pieces).is_ok());
    CHECK(pieces == strings(c["pieces"]));
    std::vector<int32_t> ids;
    REQUIRE(source->encode(text, &ids).is_ok());
    ids.push_back(eos);  // MarianTokenizer appends </s>
    CHECK(ids == ints(c["ids"]));
  }
}

TEST_CASE("marian tokenizer: target side encodes and decodes like MarianTokenizer") {
  const auto target = tokenizer(heed::TokenizerSide::kTarget);
  const int32_t eos = marian_reference()["eos_id"].get<int32_t>();
  for (const auto& c : marian_reference()["targets"]) {
    const std::string text = c["text"].get<std::string>();
    INFO("'" << text << "'");
    std::vector<int32_t> ids;
    REQUIRE(target->encode(text, &ids).is_ok());
    ids.push_back(eos);
    CHECK(ids == ints(c["ids"]));
    const std::vector<int32_t> expected = ints(c["ids"]);
    std::string decoded;
    REQUIRE(target->decode(expected.data(), expected.size(), &decoded).is_ok());
    CHECK(decoded == c["decoded"].get<std::string>());
    // Detokenization inverts tokenization of normalized text.
    CHECK(decoded == text);
  }
}

TEST_CASE("marian tokenizer: each side's vocabulary is vocab.json in id order; pieces come with their ids") {
  const heed::Model& model = *converted_marian(heed::convert::WeightType::kFloat32).model;
  CHECK(heed::has_source_side(model));
  std::ifstream file(marian_fixture_dir() + "/vocab.json");
  const nlohmann::json vocab = nlohmann::json::parse(file);
  std::vector<std::string> expected(vocab.size());
  for (const auto& [token, id] : vocab.items()) expected.at(id.get<size_t>()) = token;
  for (const auto side : {heed::TokenizerSide::kSource, heed::TokenizerSide::kTarget}) {
    std::vector<std::string> tokens;
    REQUIRE(heed::tokenizer_vocabulary(model, side, &tokens).is_ok());
    CHECK(tokens == expected);
  }
  const auto source = tokenizer(heed::TokenizerSide::kSource);
  for (const auto& c : marian_reference()["sentences"]) {
    std::vector<std::string> pieces;
    std::vector<int32_t> ids, expected_ids = ints(c["ids"]);
    expected_ids.pop_back();  // MarianTokenizer's </s>
    REQUIRE(source->encode_with_pieces(c["text"].get<std::string>(), &pieces, &ids).is_ok());
    CHECK(pieces == strings(c["pieces"]));
    CHECK(ids == expected_ids);
  }
}

TEST_CASE("marian tokenizer: decoding generated ids gives the library's text (start, </s>, <pad> skipped)") {
  const auto target = tokenizer(heed::TokenizerSide::kTarget);
  for (const auto& c : marian_reference()["sentences"]) {
    for (const char* key : {"greedy", "beam4"}) {
      const std::vector<int32_t> ids = ints(c[key]);
      std::string text;
      REQUIRE(target->decode(ids.data(), ids.size(), &text).is_ok());
      INFO(key << " of '" << c["text"].get<std::string>() << "'");
      CHECK(text == c[std::string(key) + "_text"].get<std::string>());
    }
  }
}

TEST_CASE("marian tokenizer: OPUS-MT language tags follow MarianTokenizer's >>.+<< rule") {
  // Expected values from Python's re.match / re.sub with the same pattern.
  struct Case {
    const char* text;
    const char* code;
    const char* rest;
  };
  const Case cases[] = {
      {">>deu<< Hello world", ">>deu<<", " Hello world"},
      {">>fr<<Bonjour", ">>fr<<", "Bonjour"},
      {"no code here", "", "no code here"},
      {">><< empty", "", ">><< empty"},
      {">>a<< x >>b<< y", ">>a<< x >>b<<", " y"},
      {"mid >>de<< text", "", "mid  text"},
      {">>x<<<", ">>x<<<", ""},
      {">>de<<\n>>fr<< line", ">>de<<", "\n line"},
      {">>>>", "", ">>>>"},
  };
  for (const Case& c : cases) {
    std::string code, rest;
    heed::split_language_code(c.text, &code, &rest);
    INFO(c.text);
    CHECK(code == c.code);
    CHECK(rest == c.rest);
  }
  const auto source = tokenizer(heed::TokenizerSide::kSource);
  std::vector<std::string> tagged, plain;
  REQUIRE(source->encode_pieces(">>deu<< Hello", &tagged).is_ok());
  REQUIRE(source->encode_pieces(" Hello", &plain).is_ok());
  REQUIRE(!tagged.empty());
  CHECK(tagged[0] == ">>deu<<");
  CHECK(std::vector<std::string>(tagged.begin() + 1, tagged.end()) == plain);
  std::vector<int32_t> ids;
  REQUIRE(source->encode(">>deu<< Hello", &ids).is_ok());
  CHECK(ids[0] == marian_reference()["unk_id"].get<int32_t>());  // not in this model's vocabulary
}

TEST_CASE("whitespace tokenizer: splits on runs of blanks, maps unknown tokens to unk, joins with spaces") {
  heed::TokenizerOptions options;
  options.unk_id = 0;
  options.special_ids = {0, 1, 2};
  std::unique_ptr<heed::Tokenizer> t;
  REQUIRE(heed::create_whitespace_tokenizer({"<unk>", "<s>", "</s>", "a", "b", "c"}, options, &t).is_ok());
  std::vector<int32_t> ids;
  REQUIRE(t->encode("  a\tb  zz c \n", &ids).is_ok());
  CHECK(ids == std::vector<int32_t>{3, 4, 0, 5});
  std::vector<std::string> pieces;
  REQUIRE(t->encode_with_pieces("  a\tb  zz c \n", &pieces, &ids).is_ok());
  CHECK(pieces == std::vector<std::string>{"a", "b", "zz", "c"});  // the unknown piece beside <unk>'s id
  CHECK(ids == std::vector<int32_t>{3, 4, 0, 5});
  const std::vector<int32_t> out = {1, 3, 5, 4, 2};
  std::string text;
  REQUIRE(t->decode(out.data(), out.size(), &text).is_ok());
  CHECK(text == "a c b");
  const int32_t bad = 6;
  CHECK(t->decode(&bad, 1, &text).code() == heed::StatusCode::kInvalidArgument);

  options.unk_id = -1;
  REQUIRE(heed::create_whitespace_tokenizer({"a"}, options, &t).is_ok());
  const heed::Status s = t->encode("a b", &ids);
  CHECK(s.code() == heed::StatusCode::kInvalidArgument);
  CHECK(s.message().find("'b'") != std::string::npos);
}

TEST_CASE("sentencepiece tokenizer: unusable model bytes are an error") {
  std::unique_ptr<heed::Tokenizer> t;
  const std::string garbage = "this is not a sentencepiece model";
  const heed::Status s = heed::create_sentencepiece_tokenizer(garbage.data(), garbage.size(), {"a"}, {}, &t);
  CHECK(s.code() == heed::StatusCode::kInvalidFile);
  CHECK(heed::create_sentencepiece_tokenizer(nullptr, 0, {"a"}, {}, &t).code() == heed::StatusCode::kInvalidArgument);
}

// Each ">>" used to search the rest of its line for the line's end and its last "<<": a megabyte
// line of ">>" took hours. Linear, it is milliseconds; the bound is generous for slow machines.
TEST_CASE("OPUS-MT language tags: a megabyte line of '>>' splits in linear time") {
  std::string text(size_t{1} << 20, '>');
  text += "x<<y\n>>";
  const auto start = std::chrono::steady_clock::now();
  std::string code, rest;
  heed::split_language_code(text, &code, &rest);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(120));
  CHECK(code == text.substr(0, (size_t{1} << 20) + 3));  // greedy: the whole line up to its "<<"
  CHECK(rest == "y\n>>");
}
