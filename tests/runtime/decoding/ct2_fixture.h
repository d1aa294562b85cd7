// Reads the CTranslate2 decoding fixtures (fixtures/*_ct2_*.txt, written by the scripts beside
// them from the ctranslate2 package's own outputs): sources, prefixes, configurations with their
// decoding controls, CTranslate2's hypotheses and scores.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "heed/decoding.h"
#include "heed/translator.h"
#include "test_paths.h"

namespace heed::test {

// The decoding controls of one configuration, as CTranslate2 was given them (token strings).
struct ControlSpec {
  bool disable_unk = false;
  float repetition_penalty = 1.0f;
  size_t no_repeat_ngram = 0;
  std::vector<std::vector<std::string>> suppress;
  std::vector<std::string> end;
  bool return_alternatives = false;
  std::string text;  // the CONTROL lines, for messages
};

// Token ids for a ControlSpec, kept alive while DecodeControls points to them.
struct ControlIds {
  std::vector<int32_t> suppress_ids, end_ids;
  std::vector<size_t> suppress_offsets{0};
  TokenBatch suppress;

  template <typename ToId>
  void bind(const ControlSpec& spec, ToId to_id, DecodeControls* c) {
    for (const auto& sequence : spec.suppress) {
      for (const std::string& t : sequence) suppress_ids.push_back(to_id(t));
      suppress_offsets.push_back(suppress_ids.size());
    }
    for (const std::string& t : spec.end) end_ids.push_back(to_id(t));
    for (int32_t id : suppress_ids) REQUIRE(id >= 0);
    for (int32_t id : end_ids) REQUIRE(id >= 0);
    suppress = TokenBatch{suppress_ids.data(), suppress_offsets.data(), suppress_offsets.size() - 1};
    c->disable_unk = spec.disable_unk;
    c->repetition_penalty = spec.repetition_penalty;
    c->no_repeat_ngram_size = spec.no_repeat_ngram;
    c->suppress_sequences = suppress.size > 0 ? &suppress : nullptr;
    c->end_ids = end_ids.empty() ? nullptr : end_ids.data();
    c->num_end_ids = end_ids.size();
  }
};

struct Expected {
  size_t beam, n_best, min_len, max_len;
  float penalty;
  float patience = 1.0f;
  bool use_prefix = false;
  ControlSpec controls;
  std::vector<std::vector<std::pair<std::string, float>>> hyps;  // per source
};

struct Fixture {
  std::vector<std::vector<std::string>> sources;
  std::vector<std::vector<std::string>> prefixes;
  std::vector<Expected> configs;
  std::vector<std::vector<float>> scores;
};

inline void read_control(std::istringstream& ls, ControlSpec* c) {
  std::string name, rest;
  ls >> name;
  std::getline(ls, rest);
  const std::vector<std::string> values = Translator::split_tokens(rest);
  REQUIRE(!values.empty());
  c->text += name + " " + rest + ";";
  if (name == "disable_unk") c->disable_unk = values[0] == "1";
  else if (name == "repetition_penalty") c->repetition_penalty = std::stof(values[0]);
  else if (name == "no_repeat_ngram") c->no_repeat_ngram = std::stoul(values[0]);
  else if (name == "suppress") c->suppress.push_back(values);
  else if (name == "end") c->end.push_back(values[0]);
  else if (name == "return_alternatives") c->return_alternatives = values[0] == "1";
  else FAIL("unknown CONTROL " << name);
}

inline Fixture read_fixture(const std::string& name) {
  Fixture f;
  std::ifstream in(source_path("tests/runtime/decoding/fixtures/" + name));
  REQUIRE(in);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string head;
    ls >> head;
    if (head == "SOURCE" || head == "PREFIX") {
      size_t i;
      ls >> i;
      std::string rest;
      std::getline(ls, rest);
      (head == "SOURCE" ? f.sources : f.prefixes).push_back(Translator::split_tokens(rest));
    } else if (head == "CONFIG") {
      Expected e;
      ls >> e.beam >> e.n_best >> e.penalty >> e.min_len >> e.max_len;
      int use_prefix = 0;
      if (ls >> e.patience >> use_prefix) e.use_prefix = use_prefix != 0;
      e.hyps.resize(f.sources.size());
      f.configs.push_back(e);
    } else if (head == "CONTROL") {
      read_control(ls, &f.configs.back().controls);
    } else if (head == "SCORE") {
      size_t i;
      ls >> i;
      std::vector<float> v;
      float x;
      while (ls >> x) v.push_back(x);
      f.scores.push_back(v);
    } else {
      const size_t a = line.find(" ||| "), b = line.rfind(" ||| ");
      REQUIRE(a != std::string::npos);
      const size_t i = std::stoul(line.substr(0, a));
      f.configs.back().hyps.at(i).push_back({line.substr(a + 5, b - a - 5), std::stof(line.substr(b + 5))});
    }
  }
  return f;
}

}  // namespace heed::test
