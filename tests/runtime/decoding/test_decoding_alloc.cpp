// decode() and score() must not touch the heap once the engine exists: the program links the
// counting allocator (tests/support/allocation_counter.h). Under AddressSanitizer the sanitizer
// owns the allocator, so counting is off and the test only warns.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
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

namespace {

// The toy model that raises the caller's cancel flag once it has run `cancel_after` steps, as a
// server's watcher thread would between two steps.
class CancellingModel : public ToyStepModel {
 public:
  CancellingModel(std::atomic<bool>* flag, size_t cancel_after)
      : ToyStepModel(7, StepModelLimits{3, 4, 8, 12}), flag_(flag), cancel_after_(cancel_after) {}
  void step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) override {
    ToyStepModel::step(input_ids, rows, step, log_probs);
    if (++steps == cancel_after_) flag_->store(true);
  }
  size_t steps = 0;

 private:
  std::atomic<bool>* flag_;
  size_t cancel_after_;
};

}  // namespace

// Cancelled after 3 steps, decode() stops before the 4th with kCancelled, allocating nothing
// (the status's message fits std::string's inline buffer); a passed deadline stops it before the
// first step; the engine decodes normally afterwards.
TEST_CASE("decode stops at the cancel flag or the deadline between steps", "[decoding][allocation]") {
  std::atomic<bool> cancel{false};
  CancellingModel model(&cancel, 3);
  std::unique_ptr<DecodingEngine> engine;
  REQUIRE(DecodingEngine::create(&model, DecodingLimits{}, &engine).is_ok());
  const std::vector<int32_t> ids = {3, 4, 5, 1, 6, 6, 0};
  const std::vector<size_t> offsets = {0, 3, 4, 7};
  const TokenBatch sources{ids.data(), offsets.data(), 3};
  DecodeOptions greedy, beam, late;
  greedy.min_length = beam.min_length = 8;  // no sentence ends before the flag is up
  beam.beam_size = 4;
  greedy.cancel = beam.cancel = &cancel;
  late.deadline = std::chrono::steady_clock::now() - std::chrono::milliseconds(1);
  DecodeOutput out;
  const size_t before = allocation_count();
  for (const DecodeOptions* o : {&greedy, &beam}) {
    cancel = false;
    model.steps = 0;
    const Status stopped = engine->decode(&sources, 3, *o, nullptr, &out);
    CHECK(stopped.code() == StatusCode::kCancelled);
    CHECK(model.steps == 3);
  }
  model.steps = 0;
  const Status timed_out = engine->decode(&sources, 3, late, nullptr, &out);
  CHECK(timed_out.code() == StatusCode::kDeadlineExceeded);
  CHECK(model.steps == 0);
  const size_t after = allocation_count();
#if HEED_COUNT_ALLOCATIONS
  CHECK(after == before);
#else
  (void)before, (void)after;
#endif
  cancel = false;
  greedy.cancel = nullptr;
  CHECK(engine->decode(&sources, 3, greedy, nullptr, &out).is_ok());
  CHECK(std::string(status_code_name(StatusCode::kCancelled)) == "cancelled");
}
