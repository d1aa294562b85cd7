// After an RNN session is created, start()/step()/reorder() must not allocate: the program links
// the counting allocator (tests/support/allocation_counter.h; glibc, not under AddressSanitizer,
// which owns malloc: there the test says it is skipped).
#include <cstddef>
#include <vector>

#include "allocation_counter.h"
#include "heed/decoding.h"
#include "models/step_model_factory.h"
#include "threading/thread_pool.h"
#include "zoo_fixture.h"

TEST_CASE("RNN sessions: start, step and reorder perform no heap allocation") {
#if !HEED_COUNT_ALLOCATIONS
  WARN("allocation counting is off in this build (AddressSanitizer or not glibc): skipped");
#else
  REQUIRE(heed::test::allocation_counter_works());
  heed::threading::set_min_task_work(1);  // with threads, every GEMM of the small models is split
  for (size_t threads : {1, 2, 3}) {
    for (const char* variant :
         {"luong_general", "bahdanau_gru_additive", "luong_local_p", "luong_location", "tutorial_gru_none_relu"}) {
      for (auto type : {heed::convert::WeightType::kFloat32, heed::convert::WeightType::kInt8}) {
        INFO(variant << ", threads " << threads);
        const heed::test::ZooModel z = heed::test::load_zoo(variant, type);
        std::unique_ptr<heed::StepModel> m;
        REQUIRE(heed::create_step_model(*z.model, {2, 3, 16, 10}, {}, &m, threads).is_ok());
        const heed::test::Sources src({{10, 11, 12, 13}, {20, 21, 22, 23, 24, 25, 26}});
        const heed::TokenBatch b = src.batch();
        const size_t rows = 6;
        std::vector<float> lp(rows * m->vocab_size());
        std::vector<int32_t> ids(rows, m->bos_id());
        const std::vector<int32_t> parents = {1, 0, 0, 5, 3, 3};
        const size_t before = heed::test::allocation_count();
        const heed::Status s = m->start(&b, 2, 3);
        for (size_t t = 0; t < 10; ++t) {
          m->step(ids.data(), rows, t, lp.data());
          m->reorder(parents.data(), rows);
          for (size_t r = 0; r < rows; ++r) ids[r] = static_cast<int32_t>(4 + (t * 7 + r * 3) % 20);
        }
        const size_t after = heed::test::allocation_count();
        REQUIRE(s.is_ok());
        CHECK(after == before);
      }
    }
  }
  heed::threading::set_min_task_work(heed::threading::kMinTaskWork);
#endif
}

TEST_CASE("RNN decoding with attention capture performs no heap allocation") {
#if !HEED_COUNT_ALLOCATIONS
  WARN("allocation counting is off in this build (AddressSanitizer or not glibc): skipped");
#else
  const heed::test::ZooModel z = heed::test::load_zoo("luong_general");
  heed::StepModelLimits limits{2, 3, 16, 10};
  limits.capture_attention = true;
  std::unique_ptr<heed::StepModel> m;
  REQUIRE(heed::create_step_model(*z.model, limits, {}, &m).is_ok());
  std::unique_ptr<heed::DecodingEngine> engine;
  REQUIRE(heed::DecodingEngine::create(m.get(), heed::DecodingLimits{}, &engine).is_ok());
  const heed::test::Sources src({{10, 11, 12, 13}, {20, 21, 22, 23, 24, 25, 26}});
  const heed::TokenBatch b = src.batch();
  for (size_t beam : {size_t{1}, size_t{3}}) {
    heed::DecodeOptions o;
    o.beam_size = beam;
    o.n_best = beam > 1 ? 2 : 1;
    heed::DecodeOutput out;
    const size_t before = heed::test::allocation_count();
    const heed::Status s = engine->decode(&b, 2, o, nullptr, &out);
    const size_t after = heed::test::allocation_count();
    REQUIRE(s.is_ok());
    CHECK(after == before);
    REQUIRE(out.at(0, 0).attention != nullptr);
  }
#endif
}
