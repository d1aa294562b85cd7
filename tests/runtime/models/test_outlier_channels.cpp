// Outlier channels (converter/outliers.h, Tensor.outlier_channels): a packed int8 Linear whose
// chosen input channels are kept in float32. Against a double loop over the original float32
// weights: activations only on those channels give the float product (the int8 part sees zeros);
// with a wide outlier on one of them, the error stays a small fraction of the plain int8 layer's
// (the outlier no longer coarsens its block); results are bitwise the same on 1 and 3 threads, and
// with forward_consuming (the channels taken out of x in place).
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "convert.h"
#include "layers/linear.h"
#include "loader/model_index.h"
#include "outliers.h"
#include "threading/thread_pool.h"
#include "tiny_model.h"

namespace heed::test {
namespace {

constexpr const char* kWeight = "decoder.layers.0.ffn.in";
const std::vector<uint32_t> kChannels = {3, 17, 30};

// x W^T + b in double from the float32 model.
std::vector<float> reference(const Model& model, const std::vector<float>& x, size_t m) {
  const TensorView* w = find_tensor(model, std::string(kWeight) + ".weight");
  const TensorView* b = find_tensor(model, std::string(kWeight) + ".bias");
  REQUIRE((w != nullptr && b != nullptr));
  const size_t out = w->shape[0], in = w->shape[1];
  std::vector<float> y(m * out);
  for (size_t r = 0; r < m; ++r)
    for (size_t n = 0; n < out; ++n) {
      double s = b->as<float>()[n];
      for (size_t k = 0; k < in; ++k) s += double(x[r * in + k]) * w->as<float>()[n * in + k];
      y[r * out + n] = static_cast<float>(s);
    }
  return y;
}

// The tiny model quantized in activation blocks of 16, with kWeight's kChannels split off when asked.
LoadedModel int8_model(const convert::NeutralModel& f32, bool outliers) {
  convert::NeutralModel model = f32;
  if (outliers) REQUIRE(convert::split_channels(&model, std::string(kWeight) + ".weight", kChannels).is_ok());
  convert::ConvertOptions options;
  options.activation_block = 16;
  convert::ConvertSummary summary;
  REQUIRE(convert::quantize_and_pack(&model, options, &summary).is_ok());
  return load_model(model);
}

// Linear::forward, or forward_consuming on `*consumed` (a copy of x) when it is given.
std::vector<float> forward(const Model& model, const std::vector<float>& x, size_t m, size_t threads,
                           std::vector<float>* consumed = nullptr) {
  const TensorView* w = find_tensor(model, std::string(kWeight) + ".weight");
  REQUIRE(w != nullptr);
  const size_t out = w->shape[0], in = w->shape[1];
  layers::Linear linear;
  REQUIRE(linear.load(model, kWeight, out, in).is_ok());
  std::vector<int8_t> q(m * in);
  std::vector<float> scales(m * layers::quant_scales_per_row(in));
  const layers::QuantScratch scratch{q.data(), scales.data(), m, in};
  std::unique_ptr<threading::ThreadPool> pool;
  if (threads > 1) REQUIRE(threading::ThreadPool::create({threads}, &pool).is_ok());
  std::vector<float> y(m * out, 0.0f);
  if (consumed == nullptr) {
    linear.forward(kernels::best(), x.data(), m, in, y.data(), out, kernels::Activation::kNone, false, scratch,
                   pool.get());
  } else {
    *consumed = x;
    linear.forward_consuming(kernels::best(), consumed->data(), m, in, y.data(), out, kernels::Activation::kNone, false,
                             scratch, pool.get());
  }
  return y;
}

double max_error(const std::vector<float>& got, const std::vector<float>& want) {
  double e = 0;
  for (size_t i = 0; i < got.size(); ++i) e = std::max(e, std::fabs(double(got[i]) - want[i]));
  return e;
}

TEST_CASE("outlier channels: float32 on the chosen channels, int8 scales without them") {
  TinyOptions o;
  o.d_model = 32;
  o.ffn_dim = 48;
  const convert::NeutralModel f32 = make_tiny_model(o);
  const LoadedModel reference_model = load_model(f32);
  const LoadedModel split = int8_model(f32, true), plain = int8_model(f32, false);
  CHECK(file_index(*split.model).format_version() == kFormatVersion);  // 2: older readers refuse it
  CHECK(file_index(*plain.model).format_version() == kFormatVersionWithoutOutliers);
  const TensorView* w = find_tensor(*split.model, std::string(kWeight) + ".weight");
  REQUIRE(w != nullptr);
  REQUIRE(w->num_outlier_channels == kChannels.size());
  CHECK(w->layout == fb::Layout::Packed16x4);
  CHECK(w->activation_block == 16);
  const size_t m = 7, in = w->shape[1];

  // Only the outlier channels: the int8 product is exactly 0, the rest is float32.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(m * in, 0.0f);
  for (size_t r = 0; r < m; ++r)
    for (uint32_t c : kChannels) x[r * in + c] = 4.0f * u(rng);
  const std::vector<float> want = reference(*reference_model.model, x, m);
  const std::vector<float> got = forward(*split.model, x, m, 1);
  for (size_t i = 0; i < got.size(); ++i) REQUIRE(std::fabs(got[i] - want[i]) <= 1e-5 * (1.0 + std::fabs(want[i])));

  // Every channel, with an outlier 100x the others on channel 17: its block's scale no longer
  // swallows the other 15 values.
  for (float& v : x) v = u(rng);
  for (size_t r = 0; r < m; ++r) x[r * in + 17] = 100.0f * (r % 2 == 0 ? 1.0f : -1.0f);
  const std::vector<float> exact = reference(*reference_model.model, x, m);
  const std::vector<float> with_split = forward(*split.model, x, m, 1);
  const double split_error = max_error(with_split, exact), plain_error = max_error(forward(*plain.model, x, m, 1), exact);
  WARN("largest error: outlier channels in float32 " << split_error << ", plain int8 " << plain_error);
  CHECK(split_error * 5 < plain_error);
  CHECK(forward(*split.model, x, m, 3) == with_split);  // bitwise, any thread count
}

TEST_CASE("outlier channels: forward_consuming gives forward's bits and zeroes only those channels of x") {
  TinyOptions o;
  o.d_model = 32;
  o.ffn_dim = 48;
  const LoadedModel split = int8_model(make_tiny_model(o), true);
  const size_t in = 32;
  // 1,500 rows: more than one pass of rows whose outlier values fit forward_consuming's buffer.
  for (size_t m : {size_t{5}, size_t{1500}}) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(m * in);
    for (float& v : x) v = u(rng);
    for (size_t r = 0; r < m; ++r) x[r * in + 30] = 40.0f * u(rng);
    const std::vector<float> want = forward(*split.model, x, m, 1);
    for (size_t threads : {1, 3}) {
      INFO("rows " << m << ", threads " << threads);
      std::vector<float> consumed;
      CHECK(forward(*split.model, x, m, threads, &consumed) == want);
      std::vector<float> expected_x = x;
      for (size_t r = 0; r < m; ++r)
        for (uint32_t c : kChannels) expected_x[r * in + c] = 0.0f;
      CHECK(consumed == expected_x);
    }
  }
}

}  // namespace
}  // namespace heed::test
