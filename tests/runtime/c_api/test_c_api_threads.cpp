// The C API from several threads at once, as heed.h allows: one heed_model shared by 4 threads,
// each with its own heed_translator, translating the same names in different orders. Every result
// must equal the one-thread result; under ThreadSanitizer (the host-tsan preset) any data race
// between the translators fails the run.
#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include "ct2/reader.h"
#include "heed/heed.h"
#include "heed_writer.h"
#include "test_paths.h"

namespace {

const std::vector<std::string> kNames = {"آ ت ز م و ن", "آ ز ا", "ب ي ر ن ا ر د", "م ح م د", "ع ب د ا ل ل ه"};

std::string translate(heed_translator* t, const std::string& text, size_t beam) {
  char out[256];
  size_t length = 0;
  if (heed_translate_text(t, text.c_str(), beam, out, sizeof out, &length) != HEED_OK) {
    return std::string("error: ") + heed_translator_last_error(t);
  }
  return out;
}

}  // namespace

TEST_CASE("C API: one model, four threads, a translator each", "[c_api][threads]") {
  heed::convert::NeutralModel neutral;
  REQUIRE(heed::convert::ct2::read_model(heed::test::shared_path("models/ct2/aren-transliteration"), &neutral).is_ok());
  const std::string path = heed::test::temp_dir() + "/aren.heed";
  REQUIRE(heed::convert::write_heed(neutral, path).ok());
  heed_model* model = nullptr;
  char error[256];
  REQUIRE(heed_model_open(path.c_str(), &model, error, sizeof error) == HEED_OK);

  heed_translator* serial = nullptr;
  REQUIRE(heed_translator_create(model, nullptr, &serial) == HEED_OK);
  std::vector<std::string> expected;
  for (size_t beam : {1, 4}) {
    for (const std::string& name : kNames) expected.push_back(translate(serial, name, beam));
  }
  heed_translator_free(serial);
  CHECK(expected[0] == "a t z m o n");

  constexpr size_t kThreads = 4, kRounds = 3;
  std::vector<size_t> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (size_t k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      heed_translator* t = nullptr;
      if (heed_translator_create(model, nullptr, &t) != HEED_OK) {
        mismatches[k] = 1000;
        return;
      }
      for (size_t round = 0; round < kRounds; ++round) {
        for (size_t j = 0; j < expected.size(); ++j) {
          const size_t i = (j + k * 3 + round) % expected.size();  // a different order per thread
          const size_t beam = i < kNames.size() ? 1 : 4;
          if (translate(t, kNames[i % kNames.size()], beam) != expected[i]) ++mismatches[k];
        }
      }
      heed_translator_free(t);
    });
  }
  for (auto& th : threads) th.join();
  for (size_t k = 0; k < kThreads; ++k) CHECK(mismatches[k] == 0);
  heed_model_free(model);
}
