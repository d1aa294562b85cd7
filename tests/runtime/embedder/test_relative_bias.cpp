// MPNet's relative position bias in the encoder-only session, on the BERT fixture with a bias table
// added (bert_fixture.h): a bias equal for every distance changes no softmax, so the embeddings stay
// those of the model without it, while a bias varied by distance changes them; in a batch of mixed
// lengths each sentence reads its own slice of the batch's table and gets what it gets alone; bad
// settings in the file are refused. (Agreement with transformers' MPNet: tests/python/
// test_mpnet_embed.py.)
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "bert_fixture.h"

namespace heed::test {
namespace {

// Mean-pooled embeddings of `batch` by the model at `path`.
std::vector<float> embed(const std::string& path, const TokenBatch& batch) {
  auto e = open_embedder(path, batch.size);
  std::vector<float> out(batch.size * e->dimension());
  REQUIRE(e->embed_ids(batch, Pooling::kMean, false, out.data()).is_ok());
  return out;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0.0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(static_cast<double>(a[i]) - b[i]));
  return m;
}

TEST_CASE("a relative position bias equal for every distance changes nothing; one varied by distance does") {
  const UniformBatch uniform(3, 40);  // long enough for the attention kernel's blocks of rows
  const TokenBatch batch = uniform.view();
  const auto type = convert::WeightType::kFloat32;
  const auto plain = embed(bert_heed(type), batch);
  RelativeBiasShape constant;
  constant.tag = "constant";
  constant.constant = true;
  CHECK(max_abs_diff(embed(bert_relative_bias_heed(type, constant), batch), plain) < 1e-5);
  CHECK(max_abs_diff(embed(bert_relative_bias_heed(type), batch), plain) > 1e-2);
}

TEST_CASE("with a relative position bias, a batch of mixed lengths gives what each sentence gives alone") {
  const auto& ref = bert_reference();
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  for (size_t i : {0, 8, 1, 2}) {  // sentence 8 is the longest: the others read slices of its table
    const auto s = ref["ids_uncased"][i].get<std::vector<int32_t>>();
    ids.insert(ids.end(), s.begin(), s.end());
    offsets.push_back(ids.size());
  }
  for (auto type : {convert::WeightType::kFloat32, convert::WeightType::kInt8}) {
    const std::string path = bert_relative_bias_heed(type);
    const auto together = embed(path, TokenBatch{ids.data(), offsets.data(), 4});
    const size_t d = together.size() / 4;
    for (size_t s = 0; s < 4; ++s) {
      const size_t one[] = {0, offsets[s + 1] - offsets[s]};
      const auto alone = embed(path, TokenBatch{ids.data() + offsets[s], one, 1});
      INFO("sentence " << s);
      CHECK(std::vector<float>(together.begin() + s * d, together.begin() + (s + 1) * d) == alone);
    }
  }
}

TEST_CASE("bad relative position bias settings are refused") {
  RelativeBiasShape odd;
  odd.tag = "odd";
  odd.buckets = 30;
  RelativeBiasShape missing;
  missing.tag = "missing";
  missing.without_table = true;
  for (const auto& [shape, message] : {std::pair{odd, "do not make a bucketing"},
                                       std::pair{missing, "encoder.relative_attention_bias"}}) {
    Embedder::Options options;
    std::unique_ptr<Embedder> e;
    const Status s = Embedder::open(bert_relative_bias_heed(convert::WeightType::kFloat32, shape), options, &e);
    INFO(s.message());
    CHECK_FALSE(s.is_ok());
    CHECK(s.message().find(message) != std::string::npos);
  }
}

}  // namespace
}  // namespace heed::test
