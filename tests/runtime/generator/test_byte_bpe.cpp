// The byte-fallback BPE tokenizer against the NumPy reference's encodings of stories260K's
// tok512 vocabulary, and on a hand-made vocabulary whose results are worked out by hand.
#include <catch2/catch.hpp>

#include "generate_fixture.h"
#include "tokenizer/byte_bpe.h"

namespace heed::test {
namespace {

tokenizer::ByteBpe stories_tokenizer() {
  const auto model = open_model(stories260k_heed(convert::WeightType::kFloat32));
  tokenizer::ByteBpe bpe;
  const Status s = tokenizer::ByteBpe::from_index(file_index(*model).tokenizer(), &bpe);
  REQUIRE(s.is_ok());
  return bpe;
}

TEST_CASE("byte BPE encodes like the reference (tok512)") {
  const tokenizer::ByteBpe bpe = stories_tokenizer();
  REQUIRE(bpe.size() == 512);
  for (const auto& sample : llama2c_reference()["tokenizer"]) {
    const std::string text = sample["text"];
    const std::vector<int32_t> expected = sample["ids"].get<std::vector<int32_t>>();
    std::vector<int32_t> ids;
    REQUIRE(bpe.encode(text, false, false, &ids).is_ok());
    INFO("text: '" << text << "'");
    CHECK(ids == expected);
    // After BOS the dummy prefix space is dropped again: decoding gives the text back, bytes
    // outside the vocabulary included.
    CHECK(bpe.decode(ids.data(), ids.size(), bpe.bos_id()) == text);
  }
}

TEST_CASE("byte BPE adds BOS and EOS on request and decodes byte pieces") {
  const tokenizer::ByteBpe bpe = stories_tokenizer();
  std::vector<int32_t> ids;
  REQUIRE(bpe.encode("a", true, true, &ids).is_ok());
  REQUIRE(ids.size() == 3);
  CHECK(ids.front() == 1);
  CHECK(ids.back() == bpe.eos_id());
  const int32_t byte_e9 = bpe.id("<0xE9>");
  REQUIRE(byte_e9 >= 0);
  CHECK(bpe.piece(-1, byte_e9) == std::string_view("\xE9", 1));
  const int32_t the = bpe.id(" the");
  REQUIRE(the >= 0);
  CHECK(bpe.piece(1, the) == "the");     // after BOS: leading space dropped
  CHECK(bpe.piece(the, the) == " the");  // elsewhere kept
  CHECK(bpe.piece(1, 100000).empty());   // out of range: nothing
}

TEST_CASE("byte BPE merges the best-scoring pair, leftmost on ties, and falls back to <unk>") {
  // ids:                0        1      2       3    4    5    6     7     8      9
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>", " ", "a", "b", "ab", "ba", " ab", "<0x62>"};
  std::vector<float> scores = {0, 0, 0, 0, 0, 0, -1, -1, -5, 0};
  tokenizer::ByteBpe bpe;
  REQUIRE(tokenizer::ByteBpe::create(tokens, scores, 0, 1, 2, &bpe).is_ok());
  std::vector<int32_t> ids;
  // " aba": [" ", a, b, a]; "ab" and "ba" tie at -1, the leftmost ("ab") merges: [" ", ab, a];
  // then " ab" (-5) merges: [" ab", a]; " aba" is no piece.
  REQUIRE(bpe.encode("aba", false, false, &ids).is_ok());
  CHECK(ids == std::vector<int32_t>{8, 4});
  // "c" has no piece and no byte piece <0x63>: <unk>.
  ids.clear();
  REQUIRE(bpe.encode("c", false, false, &ids).is_ok());
  CHECK(ids == std::vector<int32_t>{3, 0});
  // Mismatched scores are refused.
  tokenizer::ByteBpe bad;
  CHECK(tokenizer::ByteBpe::create(tokens, {0, 1}, 0, 1, 2, &bad).code() == StatusCode::kInvalidFile);
  CHECK(tokenizer::ByteBpe::create(tokens, scores, 0, 99, 2, &bad).code() == StatusCode::kInvalidFile);
}

}  // namespace
}  // namespace heed::test

namespace heed::test {
namespace {

TEST_CASE("byte BPE behind the heed::Tokenizer interface") {
  const auto model = open_model(stories260k_heed(convert::WeightType::kFloat32));
  std::unique_ptr<Tokenizer> t;
  REQUIRE(tokenizer::create_byte_bpe_tokenizer(*model, &t).is_ok());
  for (const auto& sample : llama2c_reference()["tokenizer"]) {
    const std::string text = sample["text"];
    std::vector<int32_t> ids;
    REQUIRE(t->encode(text, &ids).is_ok());
    CHECK(ids == sample["ids"].get<std::vector<int32_t>>());
    std::string back;
    REQUIRE(t->decode(ids.data(), ids.size(), &back).is_ok());
    CHECK(back == text);
  }
  const int32_t with_bos[] = {1, 403, 407};
  std::string text;
  REQUIRE(t->decode(with_bos, 3, &text).is_ok());
  CHECK(text == "Once upon");
}

}  // namespace
}  // namespace heed::test
