// End to end: the converted aren models translate the examples of CTranslate2's own test suite
// (the model authors' expected outputs), in every weight type.
#include <catch2/catch.hpp>

#include "ct2/reader.h"
#include "heed/translator.h"
#include "heed_writer.h"
#include "quantize.h"
#include "test_paths.h"

TEST_CASE("converted aren models transliterate like CTranslate2", "[ct2][convert][e2e]") {
  for (const char* source : {"models/ct2/aren-transliteration", "models/ct2/aren-transliteration-i8"}) {
    for (auto type : {heed::convert::WeightType::kFloat32, heed::convert::WeightType::kFloat16,
                      heed::convert::WeightType::kInt8}) {
      INFO(source << " as " << heed::convert::weight_type_name(type));
      heed::convert::NeutralModel model;
      REQUIRE(heed::convert::ct2::read_model(heed::test::shared_path(source), &model).is_ok());
      heed::convert::QuantizeOptions options;
      options.type = type;
      REQUIRE(heed::convert::quantize_model(&model, options, nullptr).is_ok());
      const std::string path = heed::test::temp_dir() + "/aren.heed";
      REQUIRE(heed::convert::write_heed(model, path).is_ok());

      std::unique_ptr<heed::Translator> translator;
      heed::Status s = heed::Translator::open(path, heed::TranslatorOptions(), &translator);
      INFO(s.message());
      REQUIRE(s.is_ok());
      std::vector<std::vector<heed::TranslationHypothesis>> out;
      heed::DecodeOptions decode;
      decode.beam_size = 2;
      s = translator->translate_tokens({{"آ", "ت", "ز", "م", "و", "ن"}, {"آ", "ز", "ا"}}, decode, nullptr, &out);
      INFO(s.message());
      REQUIRE(s.is_ok());
      REQUIRE(out.size() == 2);
      CHECK(out[0][0].tokens == std::vector<std::string>{"a", "t", "z", "m", "o", "n"});
      CHECK(out[1][0].tokens == std::vector<std::string>{"a", "z", "z", "a"});
    }
  }
}
