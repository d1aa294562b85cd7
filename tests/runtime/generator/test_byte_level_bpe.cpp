// GPT-2's byte-level BPE merges (runtime/src/tokenizer/byte_level_bpe.cpp) against the reference
// loop of GPT2Tokenizer.bpe(), written out here: find the adjacent pair with the best rank, merge
// each of its occurrences left to right, repeat. Random merge lists include orders no trained
// list has (a merged pair ranked before the pair that made it), where the heap must still wait
// for the loop's next scan. The fixture's real merges are checked against transformers' ids in
// test_hf_causal_lm.cpp.
#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "heed/tokenizer.h"
#include "tokenizer/byte_level_bpe.h"

namespace heed::test {
namespace {

std::vector<std::string> reference_bpe(const std::string& word, const std::vector<std::string>& merges) {
  std::map<std::pair<std::string, std::string>, int> ranks;
  for (size_t r = 0; r < merges.size(); ++r) {
    const size_t space = merges[r].find(' ');
    ranks.emplace(std::make_pair(merges[r].substr(0, space), merges[r].substr(space + 1)), static_cast<int>(r));
  }
  std::vector<std::string> symbols;
  for (char c : word) symbols.emplace_back(1, c);
  while (symbols.size() > 1) {
    int best = INT_MAX;
    std::pair<std::string, std::string> pair;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto it = ranks.find({symbols[i], symbols[i + 1]});
      if (it != ranks.end() && it->second < best) best = it->second, pair = it->first;
    }
    if (best == INT_MAX) break;
    std::vector<std::string> merged;
    for (size_t i = 0; i < symbols.size();) {
      if (i + 1 < symbols.size() && symbols[i] == pair.first && symbols[i + 1] == pair.second) {
        merged.push_back(pair.first + pair.second);
        i += 2;
      } else {
        merged.push_back(symbols[i++]);
      }
    }
    symbols = std::move(merged);
  }
  return symbols;
}

std::unique_ptr<Tokenizer> make(const std::vector<std::string>& merges) {
  std::unique_ptr<Tokenizer> t;
  REQUIRE(tokenizer::create_byte_level_bpe_tokenizer({"a", "b", "c"}, merges, TokenizerOptions{}, &t).is_ok());
  return t;
}

TEST_CASE("byte-level BPE merges equal GPT2Tokenizer's loop on random merge lists and words") {
  std::mt19937 rng(20261123);
  const std::string alphabet = "abc";
  size_t cases = 0, shuffled = 0;
  for (int round = 0; round < 300; ++round) {
    // Merges build on symbols that exist: each pairs two known symbols into a new one.
    std::vector<std::string> symbols = {"a", "b", "c"};
    std::vector<std::string> merges;
    const int n = 1 + static_cast<int>(rng() % 24);
    for (int m = 0; m < n; ++m) {
      const std::string& x = symbols[rng() % symbols.size()];
      const std::string& y = symbols[rng() % symbols.size()];
      const std::string line = x + " " + y;
      if (std::find(merges.begin(), merges.end(), line) != merges.end()) continue;
      merges.push_back(line);
      symbols.push_back(x + y);
    }
    // Half the lists in a random order: merged pairs may then outrank their parts.
    if (round % 2 == 1) {
      std::shuffle(merges.begin(), merges.end(), rng);
      ++shuffled;
    }
    const auto tok = make(merges);
    for (int w = 0; w < 20; ++w) {
      std::string word;
      const size_t length = 1 + rng() % 40;
      for (size_t i = 0; i < length; ++i) word += alphabet[rng() % alphabet.size()];
      std::vector<std::string> pieces;
      REQUIRE(tok->encode_pieces(word, &pieces).is_ok());
      INFO("word " << word);
      REQUIRE(pieces == reference_bpe(word, merges));
      ++cases;
    }
  }
  CHECK(cases == 6000);
  CHECK(shuffled == 150);
}

TEST_CASE("byte-level BPE merges a 100,000-letter word") {
  // One pre-tokenized word: the reference loop would scan it once per merge (~87,000 scans).
  const auto tok = make({"a b", "ab ab", "abab abab"});
  std::string word;
  for (int i = 0; i < 50000; ++i) word += "ab";
  std::vector<std::string> pieces;
  REQUIRE(tok->encode_pieces(word, &pieces).is_ok());
  REQUIRE(pieces.size() == 12500);
  CHECK(std::all_of(pieces.begin(), pieces.end(), [](const std::string& p) { return p == "abababab"; }));
}

}  // namespace
}  // namespace heed::test
