// Embedding performs no heap allocation per call once the Embedder exists (token-id layer):
// counted with the replacing allocator of tests/support, for float32 and int8 weights, pooled
// both ways, on 1 and 3 threads, sentences short and long enough for blocks of attention rows
// (XNNPACK's float32 layers and the attention kernel's block path included). Skipped (and said so) under sanitizers.
#include <vector>

#include <catch2/catch.hpp>

#include "allocation_counter.h"
#include "bert_fixture.h"
#include "threading/thread_pool.h"

namespace heed::test {
namespace {

#if HEED_COUNT_ALLOCATIONS
void embed_without_allocating(const std::string& path, size_t threads) {
  auto e = open_embedder(path, 4, threads);
  const auto& ref = bert_reference();
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  for (size_t i : {0, 1, 2, 8}) {  // sentence 8 (34 tokens) takes two blocks of attention query rows
    const auto s = ref["ids_uncased"][i].get<std::vector<int32_t>>();
    ids.insert(ids.end(), s.begin(), s.end());
    offsets.push_back(ids.size());
  }
  std::vector<float> out(4 * e->dimension());
  const TokenBatch batch{ids.data(), offsets.data(), 4};
  const size_t before = heed::test::allocation_count();
  const Status a = e->embed_ids(batch, Pooling::kMean, true, out.data());
  const Status b = e->embed_ids(batch, Pooling::kCls, false, out.data());
  const size_t after = heed::test::allocation_count();
  REQUIRE(a.is_ok());
  REQUIRE(b.is_ok());
  CHECK(after - before == 0);
}
#endif

TEST_CASE("embedding performs no heap allocation per call") {
#if !HEED_COUNT_ALLOCATIONS
  WARN("allocation counting is unavailable in this build (sanitizer or non-glibc): skipped");
#else
  REQUIRE(heed::test::allocation_counter_works());
  threading::set_min_task_work(1);
  for (size_t threads : {1, 3}) {
    embed_without_allocating(bert_heed(convert::WeightType::kFloat32), threads);
    embed_without_allocating(bert_heed(convert::WeightType::kInt8), threads);
  }
  threading::set_min_task_work(threading::kMinTaskWork);
#endif
}

}  // namespace
}  // namespace heed::test
