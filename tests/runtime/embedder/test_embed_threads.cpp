// Threads that take whole encoder groups (blocks/encoder.cpp): each group through every layer on
// one thread, in that thread's own per-layer buffers, gives the bits one thread gives. Labelled
// "threads", so ThreadSanitizer runs it too.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "bert_fixture.h"

namespace heed::test {

TEST_CASE("threads taking whole encoder groups give the same bits as one thread") {
  // 24 sentences of 64 tokens: six groups of four sentences (blocks/encoder.h), so 2 and 3 threads
  // take whole groups through every layer, each in its own per-layer buffers (int8: heed's
  // kernels, attention in bfloat16 where the CPU has it; float32 runs them only where XNNPACK does
  // not take its layers).
  constexpr size_t kSentences = 24;
  const UniformBatch uniform(kSentences, 64);
  const TokenBatch batch = uniform.view();
  // Also with MPNet's relative position bias, whose table every thread reads.
  for (auto type : {convert::WeightType::kInt8, convert::WeightType::kFloat32}) {
    for (const std::string& path : {bert_heed(type), bert_relative_bias_heed(type)}) {
      auto one = open_embedder(path, kSentences, 1);
      std::vector<float> expected(kSentences * one->dimension()), got(expected.size());
      REQUIRE(one->embed_ids(batch, Pooling::kMean, false, expected.data()).is_ok());
      for (size_t threads : {2, 3}) {
        auto many = open_embedder(path, kSentences, threads);
        REQUIRE(many->embed_ids(batch, Pooling::kMean, false, got.data()).is_ok());
        INFO(path << ": " << threads << " threads" << (type == convert::WeightType::kInt8 ? " int8" : " float32"));
        CHECK(got == expected);
      }
    }
  }
}

}  // namespace heed::test
