// Embedding (also with MPNet's relative position bias), classifying and filling masks perform no
// heap allocation per call once the Embedder, Classifier or MaskFiller exists (token-id layer): counted with the replacing allocator of
// tests/support, for float32 and int8 weights, on 1 and 3 threads, sentences short and long enough
// for blocks of attention rows (XNNPACK's float32 layers and the attention kernel's block path
// included). Skipped (and said so) under sanitizers.
#include <vector>

#include <catch2/catch.hpp>

#include "allocation_counter.h"
#include "bert_fixture.h"
#include "heed/encoder_tasks.h"
#include "threading/thread_pool.h"

namespace heed::test {
namespace {

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

// The fixture's masked sentences (heads.json) as one batch.
struct HeadBatch {
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  HeadBatch(const nlohmann::json& sentences, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const auto s = sentences[i].get<std::vector<int32_t>>();
      ids.insert(ids.end(), s.begin(), s.end());
      offsets.push_back(ids.size());
    }
  }
  TokenBatch batch(size_t n) const { return TokenBatch{ids.data(), offsets.data(), n}; }
};

void heads_without_allocating(convert::WeightType type, size_t threads) {
  auto c = open_task<Classifier>(bert_folder_heed("classifier", type), 4, threads);
  auto f = open_task<MaskFiller>(bert_folder_heed("mlm", type), 4, threads);
  const HeadBatch classify(heads_reference()["classify"]["ids"], 4), fill(heads_reference()["fill_mask"]["ids"], 4);
  std::vector<float> scores(4 * c->num_labels()), logits(5 * f->vocab_size());
  std::vector<MaskCandidate> top(5 * 5);
  size_t masks = 0;
  const size_t before = heed::test::allocation_count();
  const Status a = c->classify_ids(classify.batch(4), scores.data());
  const Status b = f->fill_ids(fill.batch(4), 5, top.data(), top.size(), &masks);
  const Status d = f->mask_logits(fill.batch(4), logits.data(), logits.size(), &masks);
  const size_t after = heed::test::allocation_count();
  REQUIRE(a.is_ok());
  REQUIRE(b.is_ok());
  REQUIRE(d.is_ok());
  CHECK(masks == 4);
  CHECK(after - before == 0);
}

// run(path-maker type, threads) for float32 and int8 weights on 1 and 3 threads, tasks split finely.
template <typename Run>
void for_weights_and_threads(Run run) {
#if !HEED_COUNT_ALLOCATIONS
  (void)run;
  WARN("allocation counting is unavailable in this build (sanitizer or non-glibc): skipped");
#else
  REQUIRE(heed::test::allocation_counter_works());
  threading::set_min_task_work(1);
  for (size_t threads : {1, 3}) {
    for (auto type : {convert::WeightType::kFloat32, convert::WeightType::kInt8}) run(type, threads);
  }
  threading::set_min_task_work(threading::kMinTaskWork);
#endif
}

TEST_CASE("classifying and filling masks perform no heap allocation per call") {
  for_weights_and_threads(heads_without_allocating);
}

TEST_CASE("embedding performs no heap allocation per call") {
  for_weights_and_threads([](convert::WeightType type, size_t threads) { embed_without_allocating(bert_heed(type), threads); });
}

// MPNet's relative position bias: each call fills its by-distance table in the session's arena.
TEST_CASE("embedding with a relative position bias performs no heap allocation per call") {
  for_weights_and_threads([](convert::WeightType type, size_t threads) {
    embed_without_allocating(bert_relative_bias_heed(type), threads);
  });
}

}  // namespace
}  // namespace heed::test
