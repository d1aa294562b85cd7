// After session creation, start()/step()/reorder() must not allocate. This program replaces the
// global allocation functions (operator new/delete and malloc/calloc/realloc, through glibc's
// __libc_* entry points) with counting versions and checks the count stays still while running.
// Under AddressSanitizer the sanitizer owns malloc, so the test is skipped there (it says so).
#include <cstddef>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "session_helpers.h"
#include "threading/thread_pool.h"
#include "tiny_model.h"

#if defined(__SANITIZE_ADDRESS__)
#define HEED_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEED_COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef HEED_COUNT_ALLOCATIONS
#if defined(__GLIBC__)
#define HEED_COUNT_ALLOCATIONS 1
#else
#define HEED_COUNT_ALLOCATIONS 0
#endif
#endif

namespace {
volatile size_t g_allocations = 0;
}

#if HEED_COUNT_ALLOCATIONS
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
void* __libc_memalign(size_t, size_t);

void* malloc(size_t n) {
  g_allocations = g_allocations + 1;
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t size) {
  g_allocations = g_allocations + 1;
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) {
  g_allocations = g_allocations + 1;
  return __libc_realloc(p, n);
}
void free(void* p) { __libc_free(p); }
}

void* operator new(size_t n) {
  g_allocations = g_allocations + 1;
  void* p = __libc_malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  g_allocations = g_allocations + 1;
  return __libc_malloc(n == 0 ? 1 : n);
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(size_t n, std::align_val_t a) {
  g_allocations = g_allocations + 1;
  void* p = __libc_memalign(static_cast<size_t>(a), n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n, std::align_val_t a) { return operator new(n, a); }
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  g_allocations = g_allocations + 1;
  return __libc_memalign(static_cast<size_t>(a), n == 0 ? 1 : n);
}
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { __libc_free(p); }
#endif

namespace heed::test {
namespace {

#if HEED_COUNT_ALLOCATIONS
void run_without_allocating(const TinyOptions& options, size_t threads, bool capture_attention = false) {
  const LoadedModel loaded = load_model(make_tiny_model(options));
  StepModelLimits limits{2, 3, 10, 8};
  limits.capture_attention = capture_attention;  // step() then also copies the cross-attention
  auto session = make_session(*loaded.model, limits, {}, threads);
  REQUIRE((session->last_attention() != nullptr) == capture_attention);
  const size_t rows = 6, V = session->vocab_size();
  // Everything the calls read is prepared before counting starts.
  const BatchStorage storage = make_batch({{3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {5, 6}});
  const TokenBatch batch = storage.batch();
  std::vector<float> log_probs(rows * V);
  std::vector<int32_t> ids(rows, 1);
  const std::vector<int32_t> parents = {1, 0, 0, 5, 3, 3};

  const size_t before = g_allocations;
  Status s = session->start(&batch, 2, 3);  // Status::ok() carries an empty string: no allocation
  for (size_t t = 0; t < 8; ++t) {
    session->step(ids.data(), rows, t, log_probs.data());
    session->reorder(parents.data(), rows);
    for (size_t r = 0; r < rows; ++r) ids[r] = static_cast<int32_t>((t * 7 + r * 3) % V);
  }
  const size_t after = g_allocations;
  REQUIRE(s.is_ok());
  CHECK(after - before == 0);
}
#endif

TEST_CASE("start, step and reorder perform no heap allocation") {
#if !HEED_COUNT_ALLOCATIONS
  WARN("allocation counting is off in this build (AddressSanitizer owns malloc, or not glibc): skipped");
  return;
#else
  const size_t probe = g_allocations;
  delete new int(1);
  REQUIRE(g_allocations == probe + 1);  // the counter works
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
  }
  threading::set_min_task_work(threading::kMinTaskWork);
#endif
}

}  // namespace
}  // namespace heed::test
