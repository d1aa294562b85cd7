// Generation performs no heap allocation per call or per token once the Generator (its session
// and decoding engine) exists: the program links the counting allocator
// (tests/support/allocation_counter.h) and checks that the count stays still across whole
// generate() calls, streaming callback included. Under AddressSanitizer the sanitizer owns
// malloc, so the test is skipped there (it says so).
#include <cstddef>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "allocation_counter.h"
#include "generate_fixture.h"
#include "heed/generator.h"
#include "threading/thread_pool.h"


namespace heed::test {
namespace {

#if HEED_COUNT_ALLOCATIONS
struct Counter {
  size_t tokens = 0;
  size_t bytes = 0;
};

bool on_token(void* user, int32_t, std::string_view piece) {
  auto& c = *static_cast<Counter*>(user);
  ++c.tokens;
  c.bytes += piece.size();
  return true;
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
  const size_t before = heed::test::allocation_count();
  const Status a = g->generate(prompt.data(), prompt.size(), greedy, &on_token, &counter, &out);
  const Status b = g->generate(prompt.data(), prompt.size(), sampling, &on_token, &counter, &out);
  const size_t after = heed::test::allocation_count();
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
  REQUIRE(heed::test::allocation_counter_works());
  SECTION("stories260K float32") { generate_without_allocating(stories260k_heed(convert::WeightType::kFloat32), "Once upon"); }
  SECTION("stories260K int8") { generate_without_allocating(stories260k_heed(convert::WeightType::kInt8), ""); }
  SECTION("Hugging Face Llama (SentencePiece) float32 and int8") {
    generate_without_allocating(hf_heed("hf-llama", convert::WeightType::kFloat32), "I was a boy");
    generate_without_allocating(hf_heed("hf-llama", convert::WeightType::kInt8), "The school");
  }
  SECTION("Hugging Face GPT-2 float32 and int8") {
    generate_without_allocating(hf_heed("hf-gpt2", convert::WeightType::kFloat32), "I was a boy");
    generate_without_allocating(hf_heed("hf-gpt2", convert::WeightType::kInt8), "I");
  }
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
