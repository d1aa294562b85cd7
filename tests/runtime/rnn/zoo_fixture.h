// Shared by the RNN tests: a committed attention-zoo model converted in memory and opened.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "heed/model.h"
#include "heed/step_model.h"
#include "heed_writer.h"
#include "quantize.h"
#include "models/step_model_factory.h"
#include "test_paths.h"
#include "torch_seq2seq/reader.h"

namespace heed::test {

struct ZooModel {
  std::vector<uint8_t> bytes;
  std::unique_ptr<Model> model;
};

inline ZooModel load_zoo(const std::string& variant, convert::WeightType type = convert::WeightType::kFloat32) {
  convert::NeutralModel m;
  Status s = convert::torch_seq2seq::read_model(source_path("tests/fixtures/rnn/" + variant), &m);
  INFO(s.message());
  REQUIRE(s.is_ok());
  convert::QuantizeOptions q;
  q.type = type;
  REQUIRE(convert::quantize_model(&m, q, nullptr).is_ok());
  ZooModel z;
  REQUIRE(convert::serialize_heed(m, &z.bytes).is_ok());
  s = Model::from_bytes(z.bytes.data(), z.bytes.size(), &z.model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return z;
}

// Flattened sources (the vectors must outlive the TokenBatch).
struct Sources {
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  explicit Sources(const std::vector<std::vector<int32_t>>& sentences) {
    for (const auto& s : sentences) {
      ids.insert(ids.end(), s.begin(), s.end());
      offsets.push_back(ids.size());
    }
  }
  TokenBatch batch() const {
    TokenBatch b;
    b.ids = ids.data();
    b.offsets = offsets.data();
    b.size = offsets.size() - 1;
    return b;
  }
};

}  // namespace heed::test
