// decode() and score() must not touch the heap once the engine exists. This program replaces
// malloc/calloc/realloc and operator new with counting versions. Under AddressSanitizer the
// sanitizer owns the allocator, so the replacement is compiled out and the test only warns.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "heed/decoding.h"
#include "toy_model.h"

#if defined(__SANITIZE_ADDRESS__)
#define HEED_COUNT_ALLOCATIONS 0
#else
#define HEED_COUNT_ALLOCATIONS 1
#endif

namespace {
std::atomic<bool> g_counting{false};
std::atomic<size_t> g_allocations{0};
inline void note() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#if HEED_COUNT_ALLOCATIONS
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);

void* malloc(size_t n) {
  note();
  return __libc_malloc(n);
}
void* calloc(size_t a, size_t b) {
  note();
  return __libc_calloc(a, b);
}
void* realloc(void* p, size_t n) {
  note();
  return __libc_realloc(p, n);
}
void* memalign(size_t a, size_t n) {
  note();
  return __libc_memalign(a, n);
}
void* aligned_alloc(size_t a, size_t n) {
  note();
  return __libc_memalign(a, n);
}
int posix_memalign(void** out, size_t a, size_t n) {
  note();
  *out = __libc_memalign(a, n);
  return *out ? 0 : 12;  // ENOMEM
}
void free(void* p) { __libc_free(p); }
}

void* operator new(size_t n) {
  note();
  if (void* p = __libc_malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, size_t) noexcept { __libc_free(p); }
#endif

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

  // Sanity: the counter works.
  g_counting = true;
  std::unique_ptr<int> probe(new int(3));
  g_counting = false;
  REQUIRE(g_allocations.load() == 1);
  g_allocations = 0;

  g_counting = true;
  bool ok = true;
  for (int round = 0; round < 3; ++round) {
    ok = ok && engine->decode(&sources, 3, greedy, nullptr, &out).is_ok();
    ok = ok && engine->decode(&sources, 3, beam, &prefixes, &out).is_ok();
    ok = ok && engine->decode(&sources, 3, sample, nullptr, &out).is_ok();
    ok = ok && engine->score(&sources, prefixes, &scores).is_ok();
  }
  g_counting = false;
  CHECK(ok);
  CHECK(g_allocations.load() == 0);
  CHECK(model.contract_violations == 0);
#endif
}
