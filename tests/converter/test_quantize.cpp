// converter/quantize: int8 rows and groups against hand-worked values, half conversions against
// the IEEE definition, and the model-level rules (what is quantized, what is kept, what is refused).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "loader/model_index.h"
#include "heed/kernels.h"
#include "convert.h"
#include "quantize.h"

using heed::convert::NeutralModel;
using heed::convert::NeutralTensor;
using heed::convert::QuantizeOptions;
using heed::convert::WeightType;

namespace {

// IEEE half -> float from the definition.
double half_value(uint16_t h) {
  const int exponent = (h >> 10) & 31, fraction = h & 1023;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(fraction, -24);
  if (exponent == 31) return fraction ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  return sign * std::ldexp(1024 + fraction, exponent - 25);
}

NeutralTensor f32_tensor(const std::string& name, std::vector<uint32_t> shape, const std::vector<float>& values,
                         bool quantizable) {
  NeutralTensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.quantizable = quantizable;
  t.bytes.resize(values.size() * 4);
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

}  // namespace

TEST_CASE("int8 per row: scale max|x|/127, round half away from zero", "[quantize]") {
  // Row 0: max 127 -> scale 1: 0.5 -> 1, -2.5 -> -3, 126.49 -> 126.
  // Row 1: all zero -> scale 0, q 0. Row 2: max 63.5 -> scale 0.5: 0.25 -> 0.5 -> 1, 0.75 -> 2.
  const std::vector<float> x = {127, 0.5f, -2.5f, 126.49f, 0, 0, 0, 0, 63.5f, 0.25f, -63.5f, 0.75f};
  std::vector<int8_t> q(12);
  std::vector<float> s(3);
  heed::convert::quantize_int8(x.data(), 3, 4, 0, q.data(), s.data());
  CHECK(s[0] == 1.0f);
  CHECK(s[1] == 0.0f);
  CHECK(s[2] == 0.5f);
  CHECK(std::vector<int>(q.begin(), q.begin() + 4) == std::vector<int>{127, 1, -3, 126});
  CHECK(std::vector<int>(q.begin() + 4, q.begin() + 8) == std::vector<int>{0, 0, 0, 0});
  CHECK(std::vector<int>(q.begin() + 8, q.end()) == std::vector<int>{127, 1, -127, 2});
}

TEST_CASE("int8 per group: one scale per group of a row, last group shorter", "[quantize]") {
  // 1 row of 10 with groups of 4: [4, 3, 1.5, 1], [0.5, 0.5, -0.5, 0.2], [-8, 2].
  // 3 / (4/127) = 95.25, 1.5 -> 47.6, 1 -> 31.75, 0.2 / (0.5/127) = 50.8, 2 / (8/127) = 31.75.
  const std::vector<float> x = {4, 3, 1.5f, 1, 0.5f, 0.5f, -0.5f, 0.2f, -8, 2};
  std::vector<int8_t> q(10);
  std::vector<float> s(3);
  heed::convert::quantize_int8(x.data(), 1, 10, 4, q.data(), s.data());
  CHECK(s[0] == Approx(4.0f / 127));
  CHECK(s[1] == Approx(0.5f / 127));
  CHECK(s[2] == Approx(8.0f / 127));
  CHECK(std::vector<int>(q.begin(), q.end()) == std::vector<int>{127, 95, 48, 32, 127, 127, -127, 51, -127, 32});
}

TEST_CASE("float16 conversion matches the IEEE definition", "[quantize]") {
  // The converter converts with the kernels' reference rules.
  const auto f16_to_f32 = heed::kernels::f16_to_f32_value;
  const auto f32_to_f16 = heed::kernels::f32_to_f16_value;
  CHECK(f32_to_f16(1.0f) == 0x3c00);
  CHECK(f32_to_f16(-2.0f) == 0xc000);
  CHECK(f32_to_f16(65504.0f) == 0x7bff);
  CHECK(f32_to_f16(65519.0f) == 0x7bff);
  CHECK(f32_to_f16(65520.0f) == 0x7c00);  // rounds to infinity
  CHECK(f32_to_f16(0.1f) == 0x2e66);
  CHECK(f32_to_f16(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(f32_to_f16(std::ldexp(1.0f, -25)) == 0x0000);  // tie to even: zero
  CHECK(f32_to_f16(std::ldexp(3.0f, -26)) == 0x0001);  // 0.75 ulp rounds up
  CHECK(f32_to_f16(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);  // tie to even (down)
  CHECK(f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // tie to even (up)
  CHECK(std::isnan(f16_to_f32(f32_to_f16(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(f32_to_f16(-INFINITY) == 0xfc00);
  // Every half value converts to the float the definition gives, and back to the same bits.
  for (uint32_t h = 0; h < 65536; ++h) {
    const double expected = half_value(static_cast<uint16_t>(h));
    const float f = f16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(expected)) {
      REQUIRE(std::isnan(f));
      continue;
    }
    REQUIRE(f == expected);
    REQUIRE(f32_to_f16(f) == h);
  }
  // Random floats: the result is a nearest half.
  uint32_t seed = 12345;
  for (int i = 0; i < 100000; ++i) {
    seed = seed * 1664525u + 1013904223u;
    const float x = std::ldexp(static_cast<float>(seed >> 8) / (1 << 24) - 0.5f, static_cast<int>(seed % 40) - 26);
    const uint16_t h = f32_to_f16(x);
    const double err = std::fabs(half_value(h) - x);
    REQUIRE(err <= std::fabs(half_value(static_cast<uint16_t>(h + 1)) - x));
    if ((h & 0x7fff) != 0) REQUIRE(err <= std::fabs(half_value(static_cast<uint16_t>(h - 1)) - x));
  }
}

TEST_CASE("bfloat16 widens exactly", "[quantize]") {
  CHECK(heed::convert::bf16_to_f32(0x3f80) == 1.0f);
  CHECK(heed::convert::bf16_to_f32(0xc040) == -3.0f);
}

TEST_CASE("quantize_model: matrices quantized, the rest kept, reports filled", "[quantize]") {
  NeutralModel model;
  model.tensors.push_back(f32_tensor("w", {2, 4}, {1, -2, 3, 4, 0.5f, 0.25f, 0, -1}, true));
  model.tensors.push_back(f32_tensor("b", {2}, {0.1f, 0.2f}, false));
  std::vector<heed::convert::TensorReport> report;
  size_t last_done = 0, calls = 0;
  REQUIRE(heed::convert::quantize_model(&model, QuantizeOptions(), &report, [&](size_t done, size_t) {
    last_done = done;
    ++calls;
  }).is_ok());
  CHECK(calls > 0);
  CHECK(last_done == 2);
  const NeutralTensor* w = model.find("w");
  REQUIRE(w);
  CHECK(w->dtype == heed::fb::DType::I8);
  CHECK(w->quantization == heed::fb::Quantization::PerRow);
  CHECK(w->scales == "w.scales");
  const NeutralTensor* s = model.find("w.scales");
  REQUIRE(s);
  CHECK(s->shape == std::vector<uint32_t>{2});
  CHECK(model.find("b")->dtype == heed::fb::DType::F32);
  REQUIRE(report.size() == 1);
  CHECK(report[0].name == "w");
  CHECK(report[0].max_abs_error > 0);
  CHECK(report[0].max_abs_error <= 4.0 / 127 / 2 + 1e-7);
  CHECK(report[0].snr_db > 30);
}

TEST_CASE("quantize_model refusals", "[quantize]") {
  NeutralModel model;
  model.tensors.push_back(f32_tensor("layer.norm.gamma", {2}, {1, INFINITY}, false));
  heed::Status s = heed::convert::quantize_model(&model, QuantizeOptions(), nullptr);
  CHECK(s.code() == heed::StatusCode::kInvalidArgument);
  CHECK(s.message().find("layer.norm.gamma") != std::string::npos);
  CHECK(s.message().find("infinite") != std::string::npos);

  NeutralModel ok;
  ok.tensors.push_back(f32_tensor("w", {1, 8}, std::vector<float>(8, 1.0f), true));
  QuantizeOptions bad_group;
  bad_group.group_size = 6;
  CHECK(heed::convert::quantize_model(&ok, bad_group, nullptr).code() == heed::StatusCode::kInvalidArgument);

  NeutralModel big;
  big.tensors.push_back(f32_tensor("w", {1, 2}, {1e6f, 1}, true));
  QuantizeOptions f16;
  f16.type = WeightType::kFloat16;
  s = heed::convert::quantize_model(&big, f16, nullptr);
  CHECK(s.code() == heed::StatusCode::kInvalidArgument);
  CHECK(s.message().find("float16 range") != std::string::npos);
}

TEST_CASE("parse_weight_type", "[quantize]") {
  WeightType t;
  CHECK((heed::convert::parse_weight_type("float16", &t).is_ok() && t == WeightType::kFloat16));
  CHECK((heed::convert::parse_weight_type("int8", &t).is_ok() && t == WeightType::kInt8));
  CHECK((heed::convert::parse_weight_type("float32", &t).is_ok() && t == WeightType::kFloat32));
  CHECK(!heed::convert::parse_weight_type("int4", &t).is_ok());
}

TEST_CASE("quantize_and_pack tells its caller each stage's progress and draws nothing", "[quantize][progress]") {
  NeutralModel model;
  model.tensors.push_back(f32_tensor("w", {2, 4}, {1, -2, 3, 4, 0.5f, 0.25f, 0, -1}, true));
  model.tensors.push_back(f32_tensor("b", {2}, {0.1f, 0.2f}, false));
  heed::convert::ConvertOptions options;
  options.layout = heed::convert::WeightLayout::kRowMajor;  // nothing to pack: no packing stage
  using heed::convert::ConvertStage;
  std::vector<std::tuple<ConvertStage, size_t, size_t>> calls;
  options.progress = [&](ConvertStage stage, size_t done, size_t total) { calls.emplace_back(stage, done, total); };
  heed::convert::ConvertSummary summary;
  REQUIRE(heed::convert::quantize_and_pack(&model, options, &summary).is_ok());
  // One call before each of the two tensors and one when both are done.
  const std::vector<std::tuple<ConvertStage, size_t, size_t>> expected{
      {ConvertStage::kQuantizing, 0, 2}, {ConvertStage::kQuantizing, 1, 2}, {ConvertStage::kQuantizing, 2, 2}};
  CHECK(calls == expected);
  CHECK(model.tensors.size() == 3);  // w, w.scales, b
}
