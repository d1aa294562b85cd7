// heed convert --vmap: CTranslate2's vocabulary mapping text (n-grams, the always line, dropped
// tokens, merged duplicates, CRLF, a missing tab) parsed into the VocabMap table, and a real model
// converted with a map whose table is read back from the written file.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "convert.h"
#include "formats.h"
#include "heed/model.h"
#include "loader/model_index.h"
#include "test_paths.h"
#include "vocab_map.h"

using heed::Status;
using heed::StatusCode;
using heed::convert::VocabMapSummary;
namespace fb = heed::fb;

namespace {

// Source ids: <unk> 0, a 1, b 2, c 3, d 4. Target ids: <unk> 0, x 1, y 2, z 3.
fb::TokenizerT tokenizer() {
  fb::TokenizerT tok;
  tok.source_vocabulary = std::make_unique<fb::VocabularyT>();
  tok.source_vocabulary->tokens = {"<unk>", "a", "b", "c", "d"};
  tok.target_vocabulary = std::make_unique<fb::VocabularyT>();
  tok.target_vocabulary->tokens = {"<unk>", "x", "y", "z"};
  return tok;
}

fb::VocabMapT parse_ok(const std::string& text, VocabMapSummary* summary, const fb::TokenizerT& tok = tokenizer()) {
  fb::VocabMapT map;
  const Status s = heed::convert::parse_vocab_map(text, "vmap.txt", tok, &map, summary);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return map;
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST_CASE("vmap: n-grams, the always line, duplicates merged, keys sorted by ids", "[convert][vmap]") {
  VocabMapSummary summary;
  const fb::VocabMapT map = parse_ok(
      "b a\tz y\n"
      "a\ty\n"
      "\tx z\n"
      "a\tx y\n"
      "b\tz\n"
      "b a c\tx\n"
      "\tz\n",
      &summary);
  // Keys [a] [b] [b a] [b a c]: a prefix sorts first, `a` merged from two lines.
  CHECK(map.max_ngram == 3);
  CHECK(map.key_offsets == std::vector<uint32_t>{0, 1, 2, 4, 7});
  CHECK(map.key_ids == std::vector<int32_t>{1, 2, 2, 1, 2, 1, 3});
  CHECK(map.target_offsets == std::vector<uint32_t>{0, 2, 3, 5, 6});
  CHECK(map.target_ids == std::vector<int32_t>{1, 2, 3, 2, 3, 1});
  CHECK(map.always == std::vector<int32_t>{1, 3});
  CHECK(summary.keys == 4);
  CHECK(summary.max_ngram == 3);
  CHECK(summary.candidates == 6);
  CHECK(summary.always == 2);
  CHECK(summary.dropped_ngrams == 0);
  CHECK(summary.dropped_targets == 0);
}

TEST_CASE("vmap: unknown source tokens drop the n-gram, unknown target tokens are dropped", "[convert][vmap]") {
  VocabMapSummary summary;
  const fb::VocabMapT map = parse_ok(
      "a q\tx\n"        // q is not a source token: the line goes
      "Q\ty\n"          // neither is Q
      "a\tx nope y\n"   // nope is not a target token
      "c\tnope none\n"  // no candidate left: the key is not written
      "d\ty  z \n",     // doubled and trailing spaces separate no token
      &summary);
  CHECK(map.key_ids == std::vector<int32_t>{1, 4});
  CHECK(map.key_offsets == std::vector<uint32_t>{0, 1, 2});
  CHECK(map.target_ids == std::vector<int32_t>{1, 2, 2, 3});
  CHECK(map.target_offsets == std::vector<uint32_t>{0, 2, 4});
  CHECK(map.max_ngram == 1);
  CHECK(map.always.empty());
  CHECK(summary.keys == 2);
  CHECK(summary.dropped_ngrams == 2);
  CHECK(summary.dropped_targets == 3);
}

TEST_CASE("vmap: CRLF line ends and empty lines", "[convert][vmap]") {
  VocabMapSummary crlf_summary, lf_summary;
  const fb::VocabMapT crlf = parse_ok("\r\na b\tx y\r\n\r\n\tz\r\nb\ty", &crlf_summary);
  const fb::VocabMapT lf = parse_ok("a b\tx y\n\tz\n\nb\ty\n", &lf_summary);
  CHECK(crlf == lf);
  CHECK(crlf.key_ids == std::vector<int32_t>{1, 2, 2});
  CHECK(crlf.target_ids == std::vector<int32_t>{1, 2, 2});  // y found: no '\r' left on it
  CHECK(crlf.always == std::vector<int32_t>{3});
  CHECK(crlf_summary.dropped_targets == 0);
}

TEST_CASE("vmap: a line without a tab is an error naming it", "[convert][vmap]") {
  fb::VocabMapT map;
  VocabMapSummary summary;
  const Status s = heed::convert::parse_vocab_map("a\tx\n\r\nb x\n", "vmap.txt", tokenizer(), &map, &summary);
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message() == "vmap.txt:3: no tab between the source n-gram and its target tokens");
}

TEST_CASE("vmap: a shared vocabulary maps the source tokens too", "[convert][vmap]") {
  fb::TokenizerT tok;
  tok.shared_vocabulary = true;
  tok.target_vocabulary = std::make_unique<fb::VocabularyT>();
  tok.target_vocabulary->tokens = {"<unk>", "x", "y", "z"};
  VocabMapSummary summary;
  const fb::VocabMapT map = parse_ok("y x\tz\n", &summary, tok);
  CHECK(map.key_ids == std::vector<int32_t>{2, 1});
  CHECK(map.target_ids == std::vector<int32_t>{3});
}

TEST_CASE("vmap: only translation models take one", "[convert][vmap]") {
  heed::convert::NeutralModel model;
  model.config.Set(fb::TransformerDecoderOnlyT());
  model.tokenizer = tokenizer();
  const std::string path = heed::test::temp_dir() + "/lm_vmap.txt";
  write_text(path, "a\tx\n");
  VocabMapSummary summary;
  const Status s = heed::convert::add_vocab_map(path, &model, &summary);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() ==
        "--vmap: a vocabulary shortlist needs a translation model (a Transformer encoder-decoder), not "
        "TransformerDecoderOnly");
  CHECK(!model.vocab_map);
}

TEST_CASE("vmap: aren converted with a map, read back from the written file", "[convert][vmap]") {
  const std::string dir = heed::test::temp_dir();
  const std::string vmap = dir + "/aren_vmap.txt";
  // Source ids (source_vocabulary.txt): م 13, ح 23, د 14; target ids: a 3, e 4, m 13, h 12, d 15.
  write_text(vmap,
             "م\tm\n"
             "م ح\tm h a\n"
             "د\td e\n"
             "\ta e\n"
             "ZZ\ta\n"
             "ح\th QQ\n");
  const heed::convert::SourceFormat* format = nullptr;
  REQUIRE(heed::convert::find_format("ct2", &format).is_ok());
  heed::convert::ConvertOptions options;
  options.vmap = vmap;
  heed::convert::ConvertSummary summary;
  const std::string out = dir + "/aren_vmap.heed";
  Status s = heed::convert::convert_file(*format, heed::test::shared_path("models/ct2/aren-transliteration"), out,
                                         options, &summary);
  INFO(s.message());
  REQUIRE(s.is_ok());
  CHECK(summary.vmap.keys == 4);
  CHECK(summary.vmap.dropped_ngrams == 1);
  CHECK(summary.vmap.dropped_targets == 1);

  std::unique_ptr<heed::Model> model;
  s = heed::Model::open(out, heed::LoadOptions(), &model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  const fb::VocabMap* map = file_index(*model).vocab_map();
  REQUIRE(map);
  auto values = [](const auto* v) { return std::vector<int64_t>(v->begin(), v->end()); };
  CHECK(map->max_ngram() == 2);
  // The keys sorted by ids: [م] [م ح] [د] [ح] = [13] [13 23] [14] [23].
  CHECK(values(map->key_ids()) == std::vector<int64_t>{13, 13, 23, 14, 23});
  CHECK(values(map->key_offsets()) == std::vector<int64_t>{0, 1, 3, 4, 5});
  CHECK(values(map->target_ids()) == std::vector<int64_t>{13, 3, 12, 13, 4, 15, 12});
  CHECK(values(map->target_offsets()) == std::vector<int64_t>{0, 1, 4, 6, 7});
  CHECK(values(map->always()) == std::vector<int64_t>{3, 4});
}

TEST_CASE("vmap: refused on a language model and from a folder", "[convert][vmap]") {
  const std::string dir = heed::test::temp_dir();
  const heed::convert::SourceFormat* format = nullptr;
  REQUIRE(heed::convert::find_format("ct2", &format).is_ok());
  heed::convert::ConvertOptions options;
  options.vmap = dir + "/lm_vmap.txt";
  write_text(options.vmap, "a\tb\n");
  heed::convert::ConvertSummary summary;
  Status s = heed::convert::convert_file(*format, heed::test::shared_path("models/ct2/onmt-lm"), dir + "/lm.heed",
                                         options, &summary);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("--vmap: a vocabulary shortlist needs a translation model") == 0);
  struct stat st {};
  CHECK(::stat((dir + "/lm.heed").c_str(), &st) != 0);

  options.vmap = dir;  // a folder: the checked reader refuses it
  s = heed::convert::convert_file(*format, heed::test::shared_path("models/ct2/aren-transliteration"),
                                  dir + "/aren.heed", options, &summary);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "'" + dir + "' is not a regular file");
}
