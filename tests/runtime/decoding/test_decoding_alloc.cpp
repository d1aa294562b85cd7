// decode() and score() must not touch the heap once the engine exists: the program links the
// counting allocator (tests/support/allocation_counter.h). Under AddressSanitizer the sanitizer
// owns the allocator, so counting is off and the test only warns.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "allocation_counter.h"
#include "heed/decoding.h"
#include "toy_model.h"

using namespace heed;
using namespace heed::test;

TEST_CASE("decode and score allocate nothing after creation", "[decoding][allocation]") {
#if !HEED_COUNT_ALLOCATIONS
  WARN("built with AddressSanitizer: allocation counting is disabled in this build");
  return;
#else
  ToyStepModel model(7, StepModelLimits{3, 4, 8, 12});
  std::unique_ptr<DecodingEngine> engine;
  REQUIRE(DecodingEngine::create(&model, DecodingLimits{}, &engine).is_ok());
  const std::vector<int32_t> ids = {3, 4, 5, 1, 6, 6, 0};
  const std::vector<size_t> offsets = {0, 3, 4, 7};
  const TokenBatch sources{ids.data(), offsets.data(), 3};
  const std::vector<int32_t> prefix_ids = {4, 3, 3};
  const std::vector<size_t> prefix_offsets = {0, 1, 1, 3};
  const TokenBatch prefixes{prefix_ids.data(), prefix_offsets.data(), 3};

  DecodeOptions greedy, beam, sample;
  beam.beam_size = 4;
  beam.n_best = 3;
  beam.min_length = 2;
  sample.sampling_top_k = 3;
  sample.sampling_top_p = 0.9f;
  sample.seed = 5;
  DecodeOutput out;
  ScoreOutput scores;

  REQUIRE(allocation_counter_works());
  const size_t before = allocation_count();
  bool ok = true;
  for (int round = 0; round < 3; ++round) {
    ok = ok && engine->decode(&sources, 3, greedy, nullptr, &out).is_ok();
    ok = ok && engine->decode(&sources, 3, beam, &prefixes, &out).is_ok();
    ok = ok && engine->decode(&sources, 3, sample, nullptr, &out).is_ok();
    ok = ok && engine->score(&sources, prefixes, &scores).is_ok();
  }
  const size_t after = allocation_count();
  CHECK(ok);
  CHECK(after == before);
  CHECK(model.contract_violations == 0);
#endif
}
