// Generation performs no heap allocation per call or per token once the Generator (its session
// and decoding engine) exists: this program replaces the global allocation functions with
// counting versions (as tests/transformer/test_no_allocation.cpp does) and checks that the count
// stays still across whole generate() calls, streaming callback included. Under AddressSanitizer
// the sanitizer owns malloc, so the test is skipped there (it says so).
#include <cstddef>
#include <cstdlib>
#include <new>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "generate_fixture.h"
#include "heed/generator.h"
#include "threading/thread_pool.h"

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
struct Counter {
  size_t tokens = 0;
  size_t bytes = 0;
};

void on_token(void* user, int32_t, std::string_view piece) {
  auto& c = *static_cast<Counter*>(user);
  ++c.tokens;
  c.bytes += piece.size();
}

void generate_without_allocating(const std::string& path, const std::string& prompt_text, size_t threads = 1) {
  std::unique_ptr<Generator> g;
  GeneratorOptions options;
  options.threads = threads;
  REQUIRE(Generator::open(path, options, &g).is_ok());
  std::vector<int32_t> prompt;
  REQUIRE(g->encode(prompt_text, &prompt).is_ok());
  GenerateOptions greedy;
  greedy.max_new_tokens = 40;
  GenerateOptions sampling = greedy;
  sampling.temperature = 0.8f;
  sampling.top_k = 20;
  sampling.top_p = 0.9f;
  sampling.seed = 3;
  Counter counter;
  Generation out;
  const size_t before = g_allocations;
  const Status a = g->generate(prompt.data(), prompt.size(), greedy, &on_token, &counter, &out);
  const Status b = g->generate(prompt.data(), prompt.size(), sampling, &on_token, &counter, &out);
  const size_t after = g_allocations;
  REQUIRE(a.is_ok());
  REQUIRE(b.is_ok());
  CHECK(counter.tokens > 10);
  CHECK(after - before == 0);
}
#endif

TEST_CASE("generation performs no heap allocation per token") {
#if !HEED_COUNT_ALLOCATIONS
  WARN("allocation counting is unavailable in this build (sanitizer or non-glibc): skipped");
#else
  const size_t probe = g_allocations;
  delete new int(1);
  REQUIRE(g_allocations == probe + 1);  // the counter works
  SECTION("stories260K float32") { generate_without_allocating(stories260k_heed(convert::WeightType::kFloat32), "Once upon"); }
  SECTION("stories260K int8") { generate_without_allocating(stories260k_heed(convert::WeightType::kInt8), ""); }
  SECTION("onmt-lm") { generate_without_allocating(onmt_lm_heed(), "However , in an interview , Bloom has said"); }
  SECTION("2 and 3 threads, every loop split") {
    threading::set_min_task_work(1);
    for (size_t threads : {2, 3}) {
      generate_without_allocating(stories260k_heed(convert::WeightType::kFloat32), "Once upon", threads);
      generate_without_allocating(stories260k_heed(convert::WeightType::kInt8), "", threads);
    }
    threading::set_min_task_work(threading::kMinTaskWork);
  }
#endif
}

}  // namespace
}  // namespace heed::test
