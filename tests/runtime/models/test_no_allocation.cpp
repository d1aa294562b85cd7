// After session creation, start()/step()/reorder() must not allocate. The program links the
// counting allocator (tests/support/allocation_counter.h) and checks the count stays still while
// running. Under AddressSanitizer the sanitizer owns malloc, so the test is skipped there (it says so).
#include <cstddef>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "allocation_counter.h"
#include "session_helpers.h"
#include "threading/thread_pool.h"
#include "tiny_model.h"


namespace heed::test {
namespace {

#if HEED_COUNT_ALLOCATIONS
// A vocabulary map for the tiny model: source 3 -> targets 4 5, 5 6 -> 7, always 8.
fb::VocabMapT tiny_vocab_map() {
  fb::VocabMapT map;
  map.max_ngram = 2;
  map.key_offsets = {0, 1, 3};
  map.key_ids = {3, 5, 6};
  map.target_offsets = {0, 2, 3};
  map.target_ids = {4, 5, 7};
  map.always = {8};
  return map;
}

// `vmap`: the file has tiny_vocab_map() and each batch is restricted to it (restrict_vocabulary
// gathers the projection's rows and every step scatters the candidates' log-probs).
void run_without_allocating(const TinyOptions& options, size_t threads, bool capture_attention = false,
                            Backend backend = Backend::kAuto, bool vmap = false) {
  convert::NeutralModel model = make_tiny_model(options);
  if (vmap) model.vocab_map = tiny_vocab_map();
  const LoadedModel loaded = load_model(model);
  StepModelLimits limits{2, 3, 10, 8};
  limits.capture_attention = capture_attention;
  limits.backend = backend;  // step() then also copies the cross-attention
  auto session = make_session(*loaded.model, limits, {}, threads);
  REQUIRE((session->last_attention() != nullptr) == capture_attention);
  const size_t rows = 6, V = session->vocab_size();
  // Everything the calls read is prepared before counting starts.
  const BatchStorage storage = make_batch({{3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {5, 6}});
  const TokenBatch batch = storage.batch();
  std::vector<float> log_probs(rows * V);
  std::vector<int32_t> ids(rows, 1);
  const std::vector<int32_t> parents = {1, 0, 0, 5, 3, 3};
  const std::vector<int32_t> keep = {3, 4, 5};  // sentence 0 finished: sentence 1's rows move up
  size_t ranked = 0;

  const size_t before = heed::test::allocation_count();
  Status s = session->start(&batch, 2, 3);  // Status::success() carries an empty string: no allocation
  if (s.is_ok() && vmap) s = session->restrict_vocabulary(&batch, nullptr);
  for (size_t t = 0; t < 8; ++t) {
    session->step(ids.data(), rows, t, log_probs.data());
    session->reorder(parents.data(), rows);
    for (size_t r = 0; r < rows; ++r) ids[r] = static_cast<int32_t>((t * 7 + r * 3) % V);
  }
  // What the decoding engine adds around the steps: the candidates ranked on the session's
  // threads, a finished sentence dropped, and steps over the rows left.
  session->parallel_for(rows, [](void* count, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) __atomic_add_fetch(static_cast<size_t*>(count), 1, __ATOMIC_RELAXED);
  }, &ranked);
  const bool compacted = session->compact_rows(keep.data(), keep.size());
  if (s.is_ok()) s = session->start(&batch, 2, 3);
  for (size_t t = 0; t < 3; ++t) {
    if (t == 1 && !session->compact_rows(keep.data(), keep.size())) break;
    session->step(ids.data(), t == 0 ? rows : keep.size(), t, log_probs.data());
    session->reorder(parents.data(), t == 0 ? rows : keep.size());
  }
  const size_t after = heed::test::allocation_count();
  REQUIRE(s.is_ok());
  CHECK(after - before == 0);
  CHECK(ranked == rows);
  CHECK(compacted);
}
#endif

TEST_CASE("start, step and reorder perform no heap allocation") {
#if !HEED_COUNT_ALLOCATIONS
  WARN("allocation counting is off in this build (AddressSanitizer owns malloc, or not glibc): skipped");
  return;
#else
  REQUIRE(heed::test::allocation_counter_works());
  TinyOptions f32;
  TinyOptions i8;
  i8.quantize = true;
  i8.gated_ffn = true;
  i8.num_kv_heads = 2;
  // Threads: the pool is started at creation; with the split threshold at 1 every GEMM and
  // attention loop of the tiny model is shared out, so pthreadpool's dispatch is counted too.
  threading::set_min_task_work(1);
  for (size_t threads : {1, 2, 3}) {
    INFO("threads " << threads);
    run_without_allocating(f32, threads);
    run_without_allocating(f32, threads, /*capture_attention=*/true);
    run_without_allocating(i8, threads);
    // The f32 GEMM backends: XNNPACK packs its weights at creation; its setup and run per call
    // must not allocate (auto above already takes it for the 6-row steps).
    run_without_allocating(f32, threads, false, Backend::kHeed);
    if (built_with_xnnpack()) run_without_allocating(f32, threads, false, Backend::kXnnpack);
    // The vocabulary shortlist: gathered once per batch into the arena, scattered every step.
    run_without_allocating(i8, threads, false, Backend::kAuto, /*vmap=*/true);
    run_without_allocating(f32, threads, false, Backend::kAuto, /*vmap=*/true);
  }
  threading::set_min_task_work(threading::kMinTaskWork);
#endif
}

}  // namespace
}  // namespace heed::test
