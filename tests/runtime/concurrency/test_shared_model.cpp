// Robustness on the real aren-transliteration model: one Model shared read-only by N Translator
// sessions on N threads must give bitwise the same ids and scores as one session run serially
// (kernels are deterministic per thread, sessions share no mutable state), and a long soak of
// translations through the token-id layer must keep resident memory flat and make no heap
// allocation at all (the runtime allocates nothing after session creation).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "allocation_counter.h"
#include "ct2/reader.h"
#include "heed/model.h"
#include "heed/translator.h"
#include "heed_writer.h"
#include "quantize.h"
#include "test_paths.h"

using namespace heed;

namespace {

struct Converted {
  std::vector<uint8_t> bytes;
  std::unique_ptr<Model> model;
};

// Converts the ../shared CTranslate2 model in memory, as `heed convert --quantize int8` would.
void convert_model(Converted* out) {
  convert::NeutralModel neutral;
  REQUIRE(convert::ct2::read_model(test::shared_path("models/ct2/aren-transliteration"), &neutral).is_ok());
  convert::QuantizeOptions q;
  q.type = convert::WeightType::kInt8;
  REQUIRE(convert::quantize_model(&neutral, q, nullptr).is_ok());
  REQUIRE(convert::serialize_heed(neutral, &out->bytes).is_ok());
  Status s = Model::from_bytes(out->bytes.data(), out->bytes.size(), &out->model);
  INFO(s.message());
  REQUIRE(s.is_ok());
}

TranslatorOptions session_options() {
  TranslatorOptions o;
  o.limits = StepModelLimits{1, 4, 64, 64};
  return o;
}

DecodeOptions decode_options(size_t beam) {
  DecodeOptions o;
  o.beam_size = beam;
  o.min_length = 1;
  return o;
}

// What one translation produced: the best hypothesis, compared bit for bit.
struct Result {
  std::vector<int32_t> ids;
  std::vector<float> log_probs;
  float score = 0;
  float log_prob = 0;
  bool eos = false;

  bool operator==(const Result& o) const {
    return ids == o.ids && eos == o.eos && log_probs.size() == o.log_probs.size() &&
           std::memcmp(log_probs.data(), o.log_probs.data(), log_probs.size() * sizeof(float)) == 0 &&
           std::memcmp(&score, &o.score, sizeof score) == 0 && std::memcmp(&log_prob, &o.log_prob, sizeof log_prob) == 0;
  }
};

// ~30 fixed sources: the two known words plus pseudo-random ones (fixed seed, lengths 1..12)
// drawn from the source vocabulary, special tokens left out.
std::vector<std::vector<int32_t>> make_sources(const Translator& t) {
  std::vector<std::vector<int32_t>> sources;
  for (const char* word : {"آ ت ز م و ن", "آ ز ا"}) {
    std::vector<int32_t> ids;
    REQUIRE(t.source_ids(Translator::split_tokens(word), &ids).is_ok());
    sources.push_back(ids);
  }
  const Vocabulary& vocab = t.source_vocabulary();
  REQUIRE(vocab.size() > 8);
  std::mt19937 rng(20261122u);
  std::uniform_int_distribution<size_t> length(1, 12);
  std::uniform_int_distribution<int32_t> token(0, static_cast<int32_t>(vocab.size()) - 1);
  while (sources.size() < 30) {
    std::vector<std::string> tokens;
    const size_t n = length(rng);
    while (tokens.size() < n) {
      const std::string& tok = vocab.token(token(rng));
      if (tok.empty() || tok[0] == '<') continue;  // <unk>, <s>, </s>, <blank>
      tokens.push_back(tok);
    }
    std::vector<int32_t> ids;
    REQUIRE(t.source_ids(tokens, &ids).is_ok());
    sources.push_back(ids);
  }
  return sources;
}

// Translates one source; returns false on error (callable off the main thread: no REQUIRE).
bool translate_one(Translator& t, const std::vector<int32_t>& src, size_t beam, Result* r) {
  size_t offsets[2] = {0, src.size()};
  const TokenBatch batch{src.data(), offsets, 1};
  DecodeOutput out;
  if (!t.translate(batch, decode_options(beam), nullptr, &out).is_ok() || out.count(0) < 1) return false;
  const Hypothesis& h = out.at(0, 0);
  r->ids.assign(h.ids, h.ids + h.length);
  r->log_probs.assign(h.token_log_probs, h.token_log_probs + h.num_log_probs);
  r->score = h.score;
  r->log_prob = h.log_prob;
  r->eos = h.finished_with_eos;
  return true;
}

constexpr size_t kBeams[2] = {1, 4};

// results[b][i]: source i with beam kBeams[b].
using Results = std::vector<std::vector<Result>>;

Results serial_results(Translator& t, const std::vector<std::vector<int32_t>>& sources) {
  Results results(2, std::vector<Result>(sources.size()));
  for (size_t b = 0; b < 2; ++b)
    for (size_t i = 0; i < sources.size(); ++i) REQUIRE(translate_one(t, sources[i], kBeams[b], &results[b][i]));
  return results;
}

long resident_pages() {
  long size = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  if (std::fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  std::fclose(f);
  return resident;
}

}  // namespace

TEST_CASE("one model shared by 4 sessions on 4 threads gives the serial results bitwise", "[concurrency]") {
  Converted c;
  convert_model(&c);
  std::unique_ptr<Translator> serial;
  REQUIRE(Translator::create(*c.model, session_options(), &serial).is_ok());
  const std::vector<std::vector<int32_t>> sources = make_sources(*serial);
  const Results expected = serial_results(*serial, sources);
  // The known word must transliterate to something (guards against an all-empty comparison).
  REQUIRE_FALSE(expected[0][0].ids.empty());

  constexpr size_t kThreads = 4, kPasses = 2;
  std::vector<std::unique_ptr<Translator>> sessions(kThreads);
  for (auto& s : sessions) REQUIRE(Translator::create(*c.model, session_options(), &s).is_ok());

  std::vector<size_t> mismatches(kThreads, 0), failures(kThreads, 0), done(kThreads, 0);
  std::vector<std::thread> threads;
  for (size_t k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      std::vector<size_t> order(sources.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::mt19937 rng(static_cast<unsigned>(1000 + k));  // a different order per thread
      Result r;
      for (size_t pass = 0; pass < kPasses; ++pass) {
        std::shuffle(order.begin(), order.end(), rng);
        for (size_t i : order)
          for (size_t b = 0; b < 2; ++b) {
            // Alternate beam order too, so neighbouring threads run different searches.
            const size_t bb = (k + pass) % 2 == 0 ? b : 1 - b;
            if (!translate_one(*sessions[k], sources[i], kBeams[bb], &r)) {
              ++failures[k];
              continue;
            }
            if (!(r == expected[bb][i])) ++mismatches[k];
            ++done[k];
          }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (size_t k = 0; k < kThreads; ++k) {
    INFO("thread " << k);
    CHECK(failures[k] == 0);
    CHECK(mismatches[k] == 0);
    CHECK(done[k] == kPasses * sources.size() * 2);
  }
}

TEST_CASE("a soak of translations keeps resident and heap memory flat", "[concurrency][soak]") {
  Converted c;
  convert_model(&c);
  std::unique_ptr<Translator> t;
  REQUIRE(Translator::create(*c.model, session_options(), &t).is_ok());
  const std::vector<std::vector<int32_t>> sources = make_sources(*t);

  constexpr size_t kWarmup = 200, kTotal = 1000;
  std::vector<size_t> offsets_storage(2);
  DecodeOutput out;
  long resident_after_warmup = 0;
  size_t allocations_after_warmup = 0;
  size_t failures = 0;
  for (size_t n = 0; n < kTotal; ++n) {
    if (n == kWarmup) {
      resident_after_warmup = resident_pages();  // reading /proc allocates: before the count starts
      allocations_after_warmup = test::allocation_count();
    }
    // The token-id layer: no allocation here, the sources are built before the loop.
    const std::vector<int32_t>& src = sources[n % sources.size()];
    offsets_storage[0] = 0;
    offsets_storage[1] = src.size();
    const TokenBatch batch{src.data(), offsets_storage.data(), 1};
    if (!t->translate(batch, decode_options(n % 2 == 0 ? 1 : 4), nullptr, &out).is_ok()) ++failures;
  }
  // Counted, not read from mallinfo2: glibc's figure moves with its free lists (chunks held in the
  // per-thread cache count as in use), which made that check fail now and then under qemu.
  const size_t allocations = test::allocation_count() - allocations_after_warmup;
  const long resident_end = resident_pages();
  CHECK(failures == 0);

  REQUIRE(resident_after_warmup > 0);
  const long page = sysconf(_SC_PAGESIZE);
  const long growth = (resident_end - resident_after_warmup) * page;
  INFO("resident growth " << growth << " bytes over " << (kTotal - kWarmup) << " translations");
  CHECK(growth < 1024 * 1024);

  if (!HEED_COUNT_ALLOCATIONS) {
    WARN("sanitizer build: the allocation count is skipped, the sanitizer owns malloc");
  } else {
    REQUIRE(test::allocation_counter_works());
    INFO("heap allocations over " << (kTotal - kWarmup) << " translations after a warm-up of " << kWarmup);
    CHECK(allocations == 0);
  }
}
