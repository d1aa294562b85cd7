// Non-finite values in every form a CTranslate2 model.bin can hold them: float16 and bfloat16
// weights, int16 and int8 weights with a bad scale, a learned position table, the embedding
// scale. Each is refused with a one-line error naming the tensor (tests/converter covers a NaN in a
// float32 weight and quantize_model's own refusal of infinities).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "heed/kernels.h"
#include "aren_folder.h"
#include "ct2/reader.h"
#include "heed_writer.h"
#include "quantize.h"
#include "test_paths.h"

namespace heed::test {
namespace {

namespace fx = heed::test::ct2;

fx::Var& var(std::vector<fx::Var>& vars, const std::string& name) {
  for (auto& v : vars) {
    if (v.name == name) return v;
  }
  FAIL("no variable " << name);
  throw;  // not reached
}

std::vector<float> floats(const fx::Var& v) { return fx::as_floats(v.bytes); }

// Re-stores a float32 variable as 16-bit values (dtype 4: float16, 5: bfloat16, by truncation).
void to_16_bit(fx::Var& v, uint8_t dtype) {
  const std::vector<float> f = floats(v);
  std::vector<uint8_t> bytes(f.size() * 2);
  for (size_t i = 0; i < f.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &f[i], 4);
    const uint16_t h = dtype == 4 ? heed::kernels::f32_to_f16_value(f[i]) : static_cast<uint16_t>(bits >> 16);
    std::memcpy(bytes.data() + 2 * i, &h, 2);
  }
  v.dtype = dtype;
  v.bytes = bytes;
}

void set_u16(fx::Var& v, size_t index, uint16_t value) { std::memcpy(v.bytes.data() + 2 * index, &value, 2); }

// Writes the folder and runs the whole conversion (read, quantize to int8, serialize); returns the
// first refusal.
Status convert_folder(const std::vector<fx::Var>& vars) {
  const std::string dir = write_aren_folder(vars);
  convert::NeutralModel model;
  HEED_RETURN_IF_ERROR(convert::ct2::read_model(dir, &model));
  HEED_RETURN_IF_ERROR(convert::quantize_model(&model, convert::QuantizeOptions(), nullptr));
  std::vector<uint8_t> bytes;
  return convert::serialize_heed(model, &bytes);
}

void check_refused(const Status& s, StatusCode code, std::vector<std::string> parts) {
  INFO("message: " << s.message());
  CHECK(s.code() == code);
  CHECK(s.message().find('\n') == std::string::npos);
  for (const auto& p : parts) CHECK(s.message().find(p) != std::string::npos);
}

}  // namespace

TEST_CASE("the unedited v6 rewrite of aren converts (baseline of the cases below)", "[robustness][nonfinite]") {
  CHECK(convert_folder(aren_variables()).is_ok());
}

TEST_CASE("non-finite 16-bit weights are refused, naming the tensor", "[robustness][nonfinite]") {
  std::vector<fx::Var> vars = aren_variables();
  SECTION("float16 +infinity in a weight matrix") {
    fx::Var& w = var(vars, "encoder/layer_0/ffn/linear_0/weight");
    to_16_bit(w, 4);
    set_u16(w, 5, 0x7c00);
    check_refused(convert_folder(vars), StatusCode::kInvalidArgument, {"encoder.layers.0.ffn.in.weight", "infinite"});
  }
  SECTION("float16 NaN in a norm") {
    fx::Var& g = var(vars, "decoder/layer_norm/gamma");
    to_16_bit(g, 4);
    set_u16(g, 0, 0x7e00);
    check_refused(convert_folder(vars), StatusCode::kInvalidArgument, {"decoder.norm.gamma", "NaN"});
  }
  SECTION("bfloat16 NaN in a bias") {
    fx::Var& b = var(vars, "decoder/layer_0/ffn/linear_1/bias");
    to_16_bit(b, 5);
    set_u16(b, 3, 0x7fc0);
    check_refused(convert_folder(vars), StatusCode::kInvalidArgument, {"decoder.layers.0.ffn.out.bias", "NaN"});
  }
  SECTION("bfloat16 -infinity in the embeddings") {
    fx::Var& e = var(vars, "encoder/embeddings/weight");
    to_16_bit(e, 5);
    set_u16(e, 100, 0xff80);
    check_refused(convert_folder(vars), StatusCode::kInvalidArgument, {"encoder.embeddings", "infinite"});
  }
}

TEST_CASE("integer weights with a non-finite or non-positive scale are refused", "[robustness][nonfinite]") {
  std::vector<fx::Var> vars = aren_variables();
  const std::string name = "decoder/layer_0/self_attention/linear_1/weight";
  fx::Var& w = var(vars, name);
  const uint32_t rows = w.shape[0], cols = w.shape[1];

  SECTION("int16 with a NaN scale") {
    w.dtype = 2;
    w.bytes.assign(size_t{rows} * cols * 2, 1);
    vars.push_back(fx::f32_var(name + "_scale", {}, {std::numeric_limits<float>::quiet_NaN()}));
    check_refused(convert_folder(vars), StatusCode::kInvalidFile, {name + "_scale' is not a positive number"});
  }
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), 0.0f, -2.0f, -std::numeric_limits<float>::infinity()}) {
    DYNAMIC_SECTION("int8 with scale " << bad << " in row 3") {
      w.dtype = 1;
      w.bytes.assign(size_t{rows} * cols, 5);
      std::vector<float> scales(rows, 100.0f);
      scales[3] = bad;
      vars.push_back(fx::f32_var(name + "_scale", {rows}, scales));
      check_refused(convert_folder(vars), StatusCode::kInvalidFile, {name + "_scale' has an invalid scale", "at row 3"});
    }
  }
  SECTION("int8 with a +infinity scale is CTranslate2's all-zero row, and converts") {
    w.dtype = 1;
    w.bytes.assign(size_t{rows} * cols, 0);
    std::vector<float> scales(rows, 100.0f);
    scales[3] = std::numeric_limits<float>::infinity();
    vars.push_back(fx::f32_var(name + "_scale", {rows}, scales));
    CHECK(convert_folder(vars).is_ok());
  }
}

TEST_CASE("non-finite values outside the weight matrices are refused", "[robustness][nonfinite]") {
  std::vector<fx::Var> vars = aren_variables();
  SECTION("a learned position table with -infinity") {
    std::vector<float> table(16 * 32, 0.25f);
    table[40] = -std::numeric_limits<float>::infinity();
    vars.push_back(fx::f32_var("encoder/position_encodings/encodings", {16, 32}, table));
    check_refused(convert_folder(vars), StatusCode::kInvalidArgument, {"encoder.positions", "infinite"});
  }
  SECTION("a NaN embedding scale") {
    vars.push_back(fx::f32_var("decoder/scale_embeddings", {}, {std::numeric_limits<float>::quiet_NaN()}));
    check_refused(convert_folder(vars), StatusCode::kInvalidFile,
                  {"'decoder/scale_embeddings' holds the embedding scale nan, which is not a finite number"});
  }
  SECTION("an infinite embedding scale") {
    vars.push_back(fx::f32_var("encoder/scale_embeddings", {}, {std::numeric_limits<float>::infinity()}));
    check_refused(convert_folder(vars), StatusCode::kInvalidFile,
                  {"'encoder/scale_embeddings' holds the embedding scale inf, which is not a finite number"});
  }
}

}  // namespace heed::test
