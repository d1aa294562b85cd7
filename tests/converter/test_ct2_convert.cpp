// CTranslate2 folder -> .heed -> heed::Model, on the real shared models: hyperparameters, tokenizer,
// and every tensor's values checked against the source bytes found by an independent scan of
// model.bin (ct2_fixture.h), in all three weight types.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>

#include "ct2/model_bin.h"
#include "ct2/reader.h"
#include "ct2/vocabulary.h"
#include "ct2_fixture.h"
#include "heed/model.h"
#include "loader/model_index.h"
#include "heed/translator.h"
#include "heed_writer.h"
#include "quantize.h"
#include "test_paths.h"

namespace fs = std::filesystem;
namespace fx = heed::test::ct2;
using heed::StatusCode;
using heed::convert::QuantizeOptions;
using heed::convert::WeightType;

namespace {

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Converts `dir` and opens the result.
std::unique_ptr<heed::Model> convert_and_open(const std::string& dir, WeightType type, uint32_t group = 0) {
  heed::convert::NeutralModel model;
  heed::Status s = heed::convert::ct2::read_model(dir, &model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  QuantizeOptions options;
  options.type = type;
  options.group_size = group;
  s = heed::convert::quantize_model(&model, options, nullptr);
  INFO(s.message());
  REQUIRE(s.is_ok());
  const std::string out = heed::test::temp_dir() + "/model.heed";
  s = heed::convert::write_heed(model, out);
  INFO(s.message());
  REQUIRE(s.is_ok());
  std::unique_ptr<heed::Model> loaded;
  s = heed::Model::open(out, heed::LoadOptions(), &loaded);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return loaded;
}

// heed name -> CTranslate2 name of the Transformer encoder-decoder, written out from the two
// formats' documentation.
std::map<std::string, std::string> encoder_decoder_names(int layers) {
  std::map<std::string, std::string> m;
  auto linear = [&](const std::string& h, const std::string& c) {
    m[h + ".weight"] = c + "/weight";
    m[h + ".bias"] = c + "/bias";
  };
  auto norm = [&](const std::string& h, const std::string& c) {
    m[h + ".gamma"] = c + "/gamma";
    m[h + ".beta"] = c + "/beta";
  };
  for (std::string stack : {"encoder", "decoder"}) {
    m[stack + ".embeddings"] = stack + "/embeddings/weight";
    norm(stack + ".norm", stack + "/layer_norm");
    for (int i = 0; i < layers; ++i) {
      const std::string h = stack + ".layers." + std::to_string(i), c = stack + "/layer_" + std::to_string(i);
      norm(h + ".self_attn.norm", c + "/self_attention/layer_norm");
      linear(h + ".self_attn.qkv", c + "/self_attention/linear_0");
      linear(h + ".self_attn.out", c + "/self_attention/linear_1");
      norm(h + ".ffn.norm", c + "/ffn/layer_norm");
      linear(h + ".ffn.in", c + "/ffn/linear_0");
      linear(h + ".ffn.out", c + "/ffn/linear_1");
      if (stack == "decoder") {
        norm(h + ".cross_attn.norm", c + "/attention/layer_norm");
        linear(h + ".cross_attn.q", c + "/attention/linear_0");
        linear(h + ".cross_attn.kv", c + "/attention/linear_1");
        linear(h + ".cross_attn.out", c + "/attention/linear_2");
      }
    }
  }
  linear("decoder.output", "decoder/projection");
  return m;
}

bool is_weight_matrix(const std::string& heed_name) {
  return heed_name.size() >= 7 && (heed_name.compare(heed_name.size() - 7, 7, ".weight") == 0 ||
                                   heed_name.compare(heed_name.size() - 10, 10, "embeddings") == 0);
}

// IEEE half -> float, written from the definition (sign, 5-bit exponent, 10-bit fraction).
float half_value(uint16_t h) {
  const int exponent = (h >> 10) & 31, fraction = h & 1023;
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(fraction), -24);
  if (exponent == 31) return fraction ? std::numeric_limits<float>::quiet_NaN() : sign * INFINITY;
  return sign * std::ldexp(static_cast<float>(1024 + fraction), exponent - 25);
}

struct Source {
  Source(std::vector<uint8_t> bytes_of_file, uint32_t binary_version)
      : file(std::move(bytes_of_file)), version(binary_version) {}
  std::vector<uint8_t> file;
  uint32_t version;
  std::vector<uint32_t> shape;
  std::vector<uint8_t> bytes;
  uint8_t width_or_dtype = 0;
  void find(const std::string& name) {
    INFO("source variable " << name);
    REQUIRE(fx::scan_variable(file, version, name, &shape, &bytes, &width_or_dtype));
  }
};

const std::string kAren = "models/ct2/aren-transliteration";
const std::string kArenI8 = "models/ct2/aren-transliteration-i8";
const std::string kLm = "models/ct2/onmt-lm";

void check_aren_hyperparameters(const heed::Model& model) {
  REQUIRE(model_family(model) == heed::fb::ModelConfig::TransformerEncoderDecoder);
  const auto* config = file_index(model).config_as_TransformerEncoderDecoder();
  for (const auto* stack : {config->encoder(), config->decoder()}) {
    CHECK(stack->num_layers() == 6);
    CHECK(stack->d_model() == 32);
    CHECK(stack->num_heads() == 8);
    CHECK(stack->num_kv_heads() == 0);
    CHECK(stack->ffn_dim() == 128);
    CHECK(stack->activation() == heed::fb::Activation::ReLU);
    CHECK(stack->pre_norm());
    CHECK(stack->final_norm());
    CHECK(!stack->gated_ffn());
    CHECK(stack->norm() == heed::fb::NormKind::LayerNorm);
    CHECK(stack->norm_epsilon() == Approx(1e-5f));
    CHECK(stack->position_encoding() == heed::fb::PositionEncoding::Sinusoidal);
    CHECK(stack->embedding_scale() == Approx(std::sqrt(32.0f)));
  }
  CHECK(config->encoder()->vocab_size() == 51);
  CHECK(config->decoder()->vocab_size() == 43);
  CHECK(!config->tied_output());

  const auto* tok = file_index(model).tokenizer();
  REQUIRE(tok);
  CHECK(tok->kind() == heed::fb::TokenizerKind::Whitespace);
  REQUIRE(tok->source_vocabulary());
  REQUIRE(tok->target_vocabulary());
  CHECK(tok->source_vocabulary()->tokens()->size() == 51);
  CHECK(tok->target_vocabulary()->tokens()->size() == 43);
  CHECK(tok->source_vocabulary()->tokens()->Get(50)->str() == "<unk>");  // implied after the last line
  CHECK(tok->target_vocabulary()->tokens()->Get(42)->str() == "<unk>");
  CHECK(tok->target_vocabulary()->tokens()->Get(3)->str() == "a");
  CHECK(tok->unk_id() == 42);
  CHECK(tok->pad_id() == 0);
  CHECK(tok->bos_id() == 1);
  CHECK(tok->eos_id() == 2);
  CHECK(tok->decoder_start_id() == 1);
  CHECK(!tok->shared_vocabulary());

  const auto* producer = file_index(model).producer();
  REQUIRE(producer);
  CHECK(producer->name()->str() == "heed convert");
  CHECK(producer->source_format()->str() == "ct2");
  const std::string source_name = producer->source_name()->str();
  CHECK((source_name == "aren-transliteration" || source_name == "aren-transliteration-i8" || source_name == "v6"));
  std::map<std::string, std::string> meta;
  for (const auto* kv : *file_index(model).metadata()) meta[kv->key()->str()] = kv->value() ? kv->value()->str() : "";
  CHECK(meta["source_unk_id"] == "50");
  CHECK(meta["ct2.spec"] == (source_name == "v6" ? "TransformerSpec" : "TransformerBase"));
}

}  // namespace

TEST_CASE("aren fp32 -> float32: hyperparameters, tokenizer, every tensor bit-exact", "[ct2][convert]") {
  const std::string dir = heed::test::shared_path(kAren);
  auto model = convert_and_open(dir, WeightType::kFloat32);
  check_aren_hyperparameters(*model);
  Source src{read_bytes(dir + "/model.bin"), 2};
  const auto names = encoder_decoder_names(6);
  CHECK(file_tensors(*model).size() == names.size());  // nothing more, nothing less
  for (const auto& [heed_name, ct2_name] : names) {
    INFO(heed_name);
    src.find(ct2_name);
    const heed::TensorView* view = find_tensor(*model, heed_name);
    REQUIRE(view);
    CHECK(view->dtype == heed::fb::DType::F32);
    CHECK(view->shape == src.shape);
    REQUIRE(view->size_bytes == src.bytes.size());
    CHECK(std::memcmp(view->data, src.bytes.data(), src.bytes.size()) == 0);
  }
}

TEST_CASE("aren fp32 -> int8 per row: |x - q*s| <= s/2, other tensors exact", "[ct2][convert]") {
  const std::string dir = heed::test::shared_path(kAren);
  auto model = convert_and_open(dir, WeightType::kInt8);
  check_aren_hyperparameters(*model);
  Source src{read_bytes(dir + "/model.bin"), 2};
  for (const auto& [heed_name, ct2_name] : encoder_decoder_names(6)) {
    INFO(heed_name);
    src.find(ct2_name);
    const std::vector<float> x = fx::as_floats(src.bytes);
    const heed::TensorView* view = find_tensor(*model, heed_name);
    REQUIRE(view);
    CHECK(view->shape == src.shape);
    if (!is_weight_matrix(heed_name)) {
      CHECK(view->dtype == heed::fb::DType::F32);
      CHECK(std::memcmp(view->data, src.bytes.data(), src.bytes.size()) == 0);
      continue;
    }
    REQUIRE(view->dtype == heed::fb::DType::I8);
    REQUIRE(view->quantization == heed::fb::Quantization::PerRow);
    const size_t rows = src.shape[0], cols = src.shape[1];
    REQUIRE(view->num_scales == rows);
    const int8_t* q = view->as<int8_t>();
    for (size_t r = 0; r < rows; ++r) {
      float amax = 0;
      int qmax = 0;
      for (size_t c = 0; c < cols; ++c) {
        amax = std::max(amax, std::fabs(x[r * cols + c]));
        qmax = std::max(qmax, std::abs(int{q[r * cols + c]}));
      }
      const float s = view->scales[r];
      CHECK(s == Approx(amax / 127.0f).epsilon(1e-6));
      CHECK(qmax == 127);
      for (size_t c = 0; c < cols; ++c) {
        const float err = std::fabs(x[r * cols + c] - q[r * cols + c] * s);
        if (err > s * 0.5f * (1 + 1e-5f)) FAIL("row " << r << " col " << c << ": error " << err << " > s/2 = " << s / 2);
      }
    }
  }
}

TEST_CASE("aren fp32 -> int8 per group of 16", "[ct2][convert]") {
  const std::string dir = heed::test::shared_path(kAren);
  auto model = convert_and_open(dir, WeightType::kInt8, 16);
  Source src{read_bytes(dir + "/model.bin"), 2};
  src.find("decoder/layer_2/ffn/linear_1/weight");  // [32, 128]: 8 groups per row
  const std::vector<float> x = fx::as_floats(src.bytes);
  const heed::TensorView* view = find_tensor(*model, "decoder.layers.2.ffn.out.weight");
  REQUIRE(view);
  REQUIRE(view->quantization == heed::fb::Quantization::PerGroup);
  CHECK(view->group_size == 16);
  REQUIRE(view->num_scales == 32 * 8);
  const int8_t* q = view->as<int8_t>();
  for (size_t r = 0; r < 32; ++r) {
    for (size_t g = 0; g < 8; ++g) {
      float amax = 0;
      for (size_t c = g * 16; c < g * 16 + 16; ++c) amax = std::max(amax, std::fabs(x[r * 128 + c]));
      const float s = view->scales[r * 8 + g];
      CHECK(s == Approx(amax / 127.0f).epsilon(1e-6));
      for (size_t c = g * 16; c < g * 16 + 16; ++c) {
        CHECK(std::fabs(x[r * 128 + c] - q[r * 128 + c] * s) <= s * 0.5f * (1 + 1e-5f));
      }
    }
  }
}

TEST_CASE("aren fp32 -> float16: weights rounded to the nearest half, the rest exact", "[ct2][convert]") {
  const std::string dir = heed::test::shared_path(kAren);
  auto model = convert_and_open(dir, WeightType::kFloat16);
  Source src{read_bytes(dir + "/model.bin"), 2};
  for (const auto& [heed_name, ct2_name] : encoder_decoder_names(6)) {
    INFO(heed_name);
    src.find(ct2_name);
    const heed::TensorView* view = find_tensor(*model, heed_name);
    REQUIRE(view);
    if (!is_weight_matrix(heed_name)) {
      CHECK(view->dtype == heed::fb::DType::F32);
      continue;
    }
    REQUIRE(view->dtype == heed::fb::DType::F16);
    const std::vector<float> x = fx::as_floats(src.bytes);
    const uint16_t* h = view->as<uint16_t>();
    for (size_t i = 0; i < x.size(); ++i) {
      // Nearest half: within half a unit in the last place (2^-11 relative; 2^-25 absolute for subnormals).
      const float bound = std::max(std::fabs(x[i]) * std::ldexp(1.0f, -11), std::ldexp(1.0f, -25));
      if (std::fabs(x[i] - half_value(h[i])) > bound) FAIL("element " << i << ": " << x[i] << " -> " << half_value(h[i]));
    }
  }
}

TEST_CASE("aren int8 source: q bytes kept bit-exactly, scales inverted", "[ct2][convert]") {
  const std::string dir = heed::test::shared_path(kArenI8);
  const std::string fp32_dir = heed::test::shared_path(kAren);
  Source src{read_bytes(dir + "/model.bin"), 2};
  Source fp32{read_bytes(fp32_dir + "/model.bin"), 2};

  SECTION("int8 output") {
    auto model = convert_and_open(dir, WeightType::kInt8, /*group=*/32);  // a group size does not re-quantize
    check_aren_hyperparameters(*model);
    for (const auto& [heed_name, ct2_name] : encoder_decoder_names(6)) {
      if (!is_weight_matrix(heed_name)) continue;
      INFO(heed_name);
      src.find(ct2_name);
      REQUIRE(src.width_or_dtype == 1);  // int8 in the source
      const heed::TensorView* view = find_tensor(*model, heed_name);
      REQUIRE(view);
      REQUIRE(view->dtype == heed::fb::DType::I8);
      CHECK(view->quantization == heed::fb::Quantization::PerRow);
      REQUIRE(view->size_bytes == src.bytes.size());
      CHECK(std::memcmp(view->data, src.bytes.data(), src.bytes.size()) == 0);
      const std::vector<uint8_t> q_bytes = src.bytes;
      src.find(ct2_name + "_scale");
      const std::vector<float> ct2_scale = fx::as_floats(src.bytes);
      REQUIRE(view->num_scales == ct2_scale.size());
      for (size_t r = 0; r < ct2_scale.size(); ++r) CHECK(view->scales[r] == 1.0f / ct2_scale[r]);

      // Same model in fp32. CTranslate2 before binary version 5 quantized by truncation:
      // q = trunc(x * ct2_scale) (rounding came with version 5), so every q is exactly that and the
      // dequantized value is within one step of x.
      fp32.find(ct2_name);
      const std::vector<float> x = fx::as_floats(fp32.bytes);
      const size_t cols = x.size() / ct2_scale.size();
      for (size_t i = 0; i < x.size(); ++i) {
        const int8_t q = static_cast<int8_t>(q_bytes[i]);
        if (q != static_cast<int8_t>(std::trunc(x[i] * ct2_scale[i / cols]))) FAIL("element " << i << ": q " << int{q});
        const float s = view->scales[i / cols];
        if (std::fabs(q * s - x[i]) > s * (1 + 1e-5f)) FAIL("element " << i << ": " << q * s << " vs " << x[i]);
      }
    }
  }
  SECTION("float32 output dequantizes q * (1 / scale)") {
    auto model = convert_and_open(dir, WeightType::kFloat32);
    src.find("encoder/layer_4/ffn/linear_0/weight");
    const std::vector<uint8_t> q = src.bytes;
    src.find("encoder/layer_4/ffn/linear_0/weight_scale");
    const std::vector<float> ct2_scale = fx::as_floats(src.bytes);
    const heed::TensorView* view = find_tensor(*model, "encoder.layers.4.ffn.in.weight");
    REQUIRE(view);
    REQUIRE(view->dtype == heed::fb::DType::F32);
    CHECK(!find_tensor(*model, "encoder.layers.4.ffn.in.weight.scales"));
    const float* x = view->as<float>();
    for (size_t i = 0; i < q.size(); ++i) CHECK(x[i] == static_cast<int8_t>(q[i]) * (1.0f / ct2_scale[i / 32]));
  }
}

TEST_CASE("onmt-lm: decoder-only, int8 kept, float16 biases and positions widened", "[ct2][convert]") {
  const std::string dir = heed::test::shared_path(kLm);
  auto model = convert_and_open(dir, WeightType::kInt8);
  REQUIRE(model_family(*model) == heed::fb::ModelConfig::TransformerDecoderOnly);
  const auto* d = file_index(*model).config_as_TransformerDecoderOnly()->decoder();
  CHECK(d->num_layers() == 2);
  CHECK(d->d_model() == 64);
  CHECK(d->num_heads() == 2);
  CHECK(d->ffn_dim() == 256);
  CHECK(d->vocab_size() == 16377);
  CHECK(d->pre_norm());
  CHECK(d->final_norm());
  CHECK(d->position_encoding() == heed::fb::PositionEncoding::Learned);
  CHECK(d->max_positions() == 5000);
  CHECK(d->embedding_scale() == Approx(8.0f));
  const auto* tok = file_index(*model).tokenizer();
  CHECK(!tok->source_vocabulary());
  CHECK(tok->target_vocabulary()->tokens()->size() == 16377);
  CHECK(tok->unk_id() == 0);
  CHECK(tok->pad_id() == 1);
  CHECK(tok->eos_id() == 2);
  CHECK(tok->bos_id() == -1);  // the vocabulary has no <s>

  Source src{read_bytes(dir + "/model.bin"), 6};
  src.find("decoder/layer_1/self_attention/linear_0/weight");
  REQUIRE(src.width_or_dtype == 1);
  const heed::TensorView* qkv = find_tensor(*model, "decoder.layers.1.self_attn.qkv.weight");
  REQUIRE(qkv);
  CHECK(qkv->shape == std::vector<uint32_t>{192, 64});
  REQUIRE(qkv->size_bytes == src.bytes.size());
  CHECK(std::memcmp(qkv->data, src.bytes.data(), src.bytes.size()) == 0);

  for (const auto& [heed_name, ct2_name] :
       std::vector<std::pair<std::string, std::string>>{{"decoder.layers.0.ffn.in.bias", "decoder/layer_0/ffn/linear_0/bias"},
                                                        {"decoder.norm.gamma", "decoder/layer_norm/gamma"},
                                                        {"decoder.positions", "decoder/position_encodings/encodings"},
                                                        {"decoder.output.bias", "decoder/projection/bias"}}) {
    INFO(heed_name);
    src.find(ct2_name);
    REQUIRE(src.width_or_dtype == 4);  // float16 in the source
    const heed::TensorView* view = find_tensor(*model, heed_name);
    REQUIRE(view);
    REQUIRE(view->dtype == heed::fb::DType::F32);
    REQUIRE(view->num_elements() * 2 == src.bytes.size());
    const float* x = view->as<float>();
    for (size_t i = 0; i < view->num_elements(); ++i) {
      uint16_t h;
      std::memcpy(&h, src.bytes.data() + 2 * i, 2);
      if (x[i] != half_value(h)) FAIL("element " << i);
    }
  }
}

TEST_CASE("a v6 rewrite of the aren model converts to the same tensors", "[ct2][convert]") {
  // The same variables written as binary version 6 (dtype ids, alias table) with TransformerSpec
  // attributes: exercises the newer layout on a real model.
  const std::string src_dir = heed::test::shared_path(kAren);
  heed::convert::ct2::ModelBin bin;
  REQUIRE(heed::convert::ct2::ModelBin::read(src_dir + "/model.bin", &bin).is_ok());
  std::vector<fx::Var> vars;
  for (const auto& v : bin.variables()) {
    vars.push_back(fx::Var{v.name, v.shape, 0, std::vector<uint8_t>(bin.data(v), bin.data(v) + v.size)});
  }
  for (std::string stack : {"encoder", "decoder"}) {
    vars.push_back(fx::Var{stack + "/num_heads", {}, 2, {8, 0}});
    vars.push_back(fx::i8_scalar(stack + "/pre_norm", 1));
    vars.push_back(fx::i8_scalar(stack + "/activation", 0));
    vars.push_back(fx::i8_scalar(stack + "/scale_embeddings", 1));
  }
  const std::string dir = heed::test::temp_dir() + "/v6";
  fs::create_directories(dir);
  fs::copy_file(src_dir + "/source_vocabulary.txt", dir + "/source_vocabulary.txt");
  fs::copy_file(src_dir + "/target_vocabulary.txt", dir + "/target_vocabulary.txt");

  SECTION("same tensors") {
    write_bytes(dir + "/model.bin", fx::model_bin(6, "TransformerSpec", 5, vars));
    auto model = convert_and_open(dir, WeightType::kFloat32);
    check_aren_hyperparameters(*model);
    auto reference = convert_and_open(src_dir, WeightType::kFloat32);
    REQUIRE(file_tensors(*model).size() == file_tensors(*reference).size());
    for (const auto& t : file_tensors(*reference)) {
      const heed::TensorView* other = find_tensor(*model, t.name);
      REQUIRE(other);
      REQUIRE(other->size_bytes == t.size_bytes);
      CHECK(std::memcmp(other->data, t.data, t.size_bytes) == 0);
    }
  }
  SECTION("tied output projection (an alias of the decoder embeddings)") {
    std::vector<fx::Var> tied;
    for (auto& v : vars) {
      if (v.name != "decoder/projection/weight") tied.push_back(v);
    }
    write_bytes(dir + "/model.bin", fx::model_bin(6, "TransformerSpec", 5, tied,
                                                  {{"decoder/projection/weight", "decoder/embeddings/weight"}}));
    auto model = convert_and_open(dir, WeightType::kInt8);
    CHECK(file_index(*model).config_as_TransformerEncoderDecoder()->tied_output());
    CHECK(!find_tensor(*model, "decoder.output.weight"));
    CHECK(find_tensor(*model, "decoder.output.bias"));
  }
  SECTION("shared embeddings (the encoder's an alias of the decoder's) are stored once") {
    // One vocabulary on both sides, the encoder's table a copy of the decoder's: written as a
    // second variable, or as an alias the way CTranslate2 writes shared-vocabulary models.
    fs::copy_file(src_dir + "/target_vocabulary.txt", dir + "/source_vocabulary.txt",
                  fs::copy_options::overwrite_existing);
    std::vector<fx::Var> copied, aliased;
    for (const auto& v : vars) {
      if (v.name == "encoder/embeddings/weight") continue;
      copied.push_back(v);
      aliased.push_back(v);
      if (v.name == "decoder/embeddings/weight") copied.push_back(fx::Var{"encoder/embeddings/weight", v.shape, v.dtype, v.bytes});
    }
    auto translate = [&](const std::string& name) {
      heed::convert::NeutralModel model;
      REQUIRE(heed::convert::ct2::read_model(dir, &model).is_ok());
      REQUIRE(heed::convert::quantize_model(&model, QuantizeOptions(), nullptr).is_ok());
      const std::string path = heed::test::temp_dir() + "/" + name;
      REQUIRE(heed::convert::write_heed(model, path).is_ok());
      std::unique_ptr<heed::Translator> translator;
      heed::Status s = heed::Translator::open(path, heed::TranslatorOptions(), &translator);
      INFO(s.message());
      REQUIRE(s.is_ok());
      heed::DecodeOptions decode;
      decode.beam_size = 2;
      std::vector<std::vector<heed::TranslationHypothesis>> out;
      REQUIRE(translator->translate_tokens({{"a", "t", "z"}, {"m", "o", "n", "a"}}, decode, nullptr, &out).is_ok());
      std::unique_ptr<heed::Model> loaded;
      REQUIRE(heed::Model::open(path, heed::LoadOptions(), &loaded).is_ok());
      return std::make_pair(std::move(out), std::move(loaded));
    };
    write_bytes(dir + "/model.bin", fx::model_bin(6, "TransformerSpec", 5, copied));
    auto [two_copies, two_model] = translate("copied.heed");
    write_bytes(dir + "/model.bin", fx::model_bin(6, "TransformerSpec", 5, aliased,
                                                  {{"encoder/embeddings/weight", "decoder/embeddings/weight"}}));
    auto [one_copy, one_model] = translate("aliased.heed");
    CHECK(!file_index(*two_model).config_as_TransformerEncoderDecoder()->shared_embeddings());
    CHECK(find_tensor(*two_model, "encoder.embeddings"));
    CHECK(file_index(*one_model).config_as_TransformerEncoderDecoder()->shared_embeddings());
    CHECK(!find_tensor(*one_model, "encoder.embeddings"));
    CHECK(!find_tensor(*one_model, "encoder.embeddings.scales"));
    CHECK(file_tensors(*one_model).size() + 2 == file_tensors(*two_model).size());
    REQUIRE(one_copy.size() == two_copies.size());
    for (size_t i = 0; i < one_copy.size(); ++i) {
      CHECK(one_copy[i][0].tokens == two_copies[i][0].tokens);
      CHECK(one_copy[i][0].score == two_copies[i][0].score);
    }
  }
  SECTION("an unknown variable is refused, naming it") {
    vars.push_back(fx::f32_var("encoder/layer_0/self_attention/relative_position_keys", {2, 4}, std::vector<float>(8)));
    write_bytes(dir + "/model.bin", fx::model_bin(6, "TransformerSpec", 5, vars));
    heed::convert::NeutralModel model;
    heed::Status s = heed::convert::ct2::read_model(dir, &model);
    CHECK(s.code() == StatusCode::kUnsupportedModel);
    CHECK(s.message().find("relative_position_keys") != std::string::npos);
  }
  SECTION("an activation heed lacks is refused") {
    for (auto& v : vars) {
      if (v.name == "decoder/activation") v.bytes = {5};  // Tanh
    }
    write_bytes(dir + "/model.bin", fx::model_bin(6, "TransformerSpec", 5, vars));
    heed::convert::NeutralModel model;
    heed::Status s = heed::convert::ct2::read_model(dir, &model);
    CHECK(s.code() == StatusCode::kUnsupportedModel);
    CHECK(s.message().find("activation 5") != std::string::npos);
  }
  SECTION("a NaN weight is refused, naming the tensor") {
    for (auto& v : vars) {
      if (v.name == "encoder/layer_1/ffn/linear_1/weight") {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(v.bytes.data() + 40, &nan, 4);
      }
    }
    write_bytes(dir + "/model.bin", fx::model_bin(6, "TransformerSpec", 5, vars));
    heed::convert::NeutralModel model;
    REQUIRE(heed::convert::ct2::read_model(dir, &model).is_ok());
    heed::Status s = heed::convert::quantize_model(&model, QuantizeOptions(), nullptr);
    CHECK(s.code() == StatusCode::kInvalidArgument);
    CHECK(s.message().find("encoder.layers.1.ffn.out.weight") != std::string::npos);
    CHECK(s.message().find("NaN") != std::string::npos);
  }
  SECTION("a vocabulary that does not match the embeddings") {
    write_bytes(dir + "/model.bin", fx::model_bin(6, "TransformerSpec", 5, vars));
    std::ofstream(dir + "/target_vocabulary.txt", std::ios::app) << "extra\n";
    heed::convert::NeutralModel model;
    heed::Status s = heed::convert::ct2::read_model(dir, &model);
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("43 rows") != std::string::npos);
  }
}

TEST_CASE("bad source folders give one-line errors", "[ct2][convert]") {
  heed::convert::NeutralModel model;
  const std::string tmp = heed::test::temp_dir();

  heed::Status s = heed::convert::ct2::read_model(tmp + "/does-not-exist", &model);
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message().find("does-not-exist") != std::string::npos);

  s = heed::convert::ct2::read_model(tmp, &model);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("model.bin") != std::string::npos);

  fx::Var w = fx::f32_var("encoder/conv/weight", {1}, {1});
  write_bytes(tmp + "/model.bin", fx::model_bin(6, "WhisperSpec", 1, {w}));
  s = heed::convert::ct2::read_model(tmp, &model);
  CHECK(s.code() == StatusCode::kUnsupportedModel);
  CHECK(s.message().find("'WhisperSpec'") != std::string::npos);
  CHECK(s.message().find("TransformerDecoderSpec") != std::string::npos);

  // A valid model.bin without vocabularies.
  const std::string aren = heed::test::shared_path(kAren);
  fs::copy_file(aren + "/model.bin", tmp + "/model.bin", fs::copy_options::overwrite_existing);
  s = heed::convert::ct2::read_model(tmp, &model);
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message().find("vocabulary") != std::string::npos);

  // Truncated model.bin inside an otherwise complete folder.
  fs::copy_file(aren + "/source_vocabulary.txt", tmp + "/source_vocabulary.txt");
  fs::copy_file(aren + "/target_vocabulary.txt", tmp + "/target_vocabulary.txt");
  const std::vector<uint8_t> full = read_bytes(aren + "/model.bin");
  for (size_t cut : {size_t{0}, size_t{3}, size_t{10}, size_t{100}, full.size() / 2, full.size() - 1}) {
    write_bytes(tmp + "/model.bin", std::vector<uint8_t>(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(cut)));
    s = heed::convert::ct2::read_model(tmp, &model);
    INFO(s.message());
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("offset") != std::string::npos);
  }
}

TEST_CASE("write failures leave no file behind", "[ct2][convert]") {
  heed::convert::NeutralModel model;
  REQUIRE(heed::convert::ct2::read_model(heed::test::shared_path(kAren), &model).is_ok());
  REQUIRE(heed::convert::quantize_model(&model, QuantizeOptions(), nullptr).is_ok());
  const std::string tmp = heed::test::temp_dir();

  heed::Status s = heed::convert::write_heed(model, tmp + "/missing/dir/out.heed");
  CHECK(!s.is_ok());
  CHECK(!fs::exists(tmp + "/missing"));

  // A path below a regular file cannot be created, even by root.
  std::ofstream(tmp + "/file") << "x";
  s = heed::convert::write_heed(model, tmp + "/file/out.heed");
  CHECK(!s.is_ok());
  CHECK(fs::file_size(tmp + "/file") == 1);

  // Success replaces an existing file.
  std::ofstream(tmp + "/out.heed") << "old";
  REQUIRE(heed::convert::write_heed(model, tmp + "/out.heed").is_ok());
  std::unique_ptr<heed::Model> loaded;
  CHECK(heed::Model::open(tmp + "/out.heed", heed::LoadOptions(), &loaded).is_ok());
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(tmp)) entries += e.path().filename() != "file";
  CHECK(entries == 1);  // no temporary file left beside it
}

namespace {

// CTranslate2's first files (binary version 1, no spec name, revision 1) used OpenNMT-tf's
// variable names; this writes the aren names back in that style.
std::string opennmt_tf_name(std::string name) {
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = name.find(from);
    if (at != std::string::npos) name.replace(at, from.size(), to);
  };
  const bool encoder = name.rfind("encoder", 0) == 0;
  replace("embeddings/weight", "w_embs");
  replace("projection", "dense");
  replace("layer_norm", "LayerNorm");
  replace("linear_0", "conv1d");
  replace("linear_1", "conv1d_1");
  replace("linear_2", "conv1d_2");
  if (encoder) {
    replace("self_attention", "multi_head");
  } else if (name.find("self_attention") != std::string::npos) {
    replace("self_attention", "masked_multi_head");
  } else {
    replace("/attention/", "/multi_head/");
  }
  replace("/weight", "/kernel");
  return "transformer/" + name + ":0";
}

}  // namespace

TEST_CASE("binary version 1 (OpenNMT-tf names) converts like the v2 file", "[ct2][convert]") {
  const std::string src_dir = heed::test::shared_path(kAren);
  heed::convert::ct2::ModelBin bin;
  REQUIRE(heed::convert::ct2::ModelBin::read(src_dir + "/model.bin", &bin).is_ok());
  std::vector<fx::Var> vars;
  for (const auto& v : bin.variables()) {
    vars.push_back(fx::Var{opennmt_tf_name(v.name), v.shape, 0, std::vector<uint8_t>(bin.data(v), bin.data(v) + v.size)});
  }
  CHECK(vars[0].name == "transformer/decoder/w_embs:0");
  const std::string dir = heed::test::temp_dir() + "/v1";
  fs::create_directories(dir);
  fs::copy_file(src_dir + "/source_vocabulary.txt", dir + "/source_vocabulary.txt");
  fs::copy_file(src_dir + "/target_vocabulary.txt", dir + "/target_vocabulary.txt");
  write_bytes(dir + "/model.bin", fx::model_bin(1, "", 1, vars));
  auto model = convert_and_open(dir, WeightType::kFloat32);
  auto reference = convert_and_open(src_dir, WeightType::kFloat32);
  REQUIRE(file_tensors(*model).size() == file_tensors(*reference).size());
  for (const auto& t : file_tensors(*reference)) {
    INFO(t.name);
    const heed::TensorView* other = find_tensor(*model, t.name);
    REQUIRE(other);
    REQUIRE(other->size_bytes == t.size_bytes);
    CHECK(std::memcmp(other->data, t.data, t.size_bytes) == 0);
  }
}

TEST_CASE("config.json and shared JSON vocabularies", "[ct2][convert]") {
  const std::string src_dir = heed::test::shared_path(kAren);
  const std::string dir = heed::test::temp_dir() + "/configured";
  fs::create_directories(dir);
  fs::copy_file(src_dir + "/model.bin", dir + "/model.bin");
  fs::copy_file(src_dir + "/source_vocabulary.txt", dir + "/source_vocabulary.txt");
  fs::copy_file(src_dir + "/target_vocabulary.txt", dir + "/target_vocabulary.txt");
  std::ofstream(dir + "/config.json") << R"({"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>",
      "decoder_start_token": "</s>", "add_source_bos": false, "add_source_eos": true, "layer_norm_epsilon": 1e-6})";
  heed::convert::NeutralModel model;
  heed::Status s = heed::convert::ct2::read_model(dir, &model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  const auto* config = model.config.AsTransformerEncoderDecoder();
  REQUIRE(config);
  CHECK(config->encoder->norm_epsilon == 1e-6f);
  CHECK(model.tokenizer.decoder_start_id == 2);
  std::map<std::string, std::string> meta(model.metadata.begin(), model.metadata.end());
  CHECK(meta["add_source_eos"] == "true");
  CHECK(meta["add_source_bos"] == "false");

  std::ofstream(dir + "/config.json") << R"({"decoder_start_token": "<start>"})";
  s = heed::convert::ct2::read_model(dir, &model);
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message().find("<start>") != std::string::npos);
  std::ofstream(dir + "/config.json") << R"({"layer_norm_epsilon": "small"})";
  CHECK(heed::convert::ct2::read_model(dir, &model).code() == StatusCode::kInvalidFile);
  std::ofstream(dir + "/config.json") << "{not json";
  CHECK(heed::convert::ct2::read_model(dir, &model).code() == StatusCode::kInvalidFile);

  // The reader finds shared_vocabulary.json before separate files and appends the missing <unk>.
  const std::string vdir = heed::test::temp_dir();
  std::ofstream(vdir + "/shared_vocabulary.json") << R"(["<blank>", "<s>", "</s>", "a", "b"])";
  std::ofstream(vdir + "/source_vocabulary.txt") << "x\n";
  heed::convert::ct2::Vocabularies vocab;
  REQUIRE(heed::convert::ct2::read_vocabularies(vdir, true, "<unk>", &vocab).is_ok());
  CHECK(vocab.shared);
  CHECK(vocab.source == std::vector<std::string>{"<blank>", "<s>", "</s>", "a", "b", "<unk>"});
  CHECK(vocab.target == vocab.source);
  std::ofstream(vdir + "/shared_vocabulary.json") << R"(["a", 3])";
  CHECK(heed::convert::ct2::read_vocabularies(vdir, true, "<unk>", &vocab).code() == StatusCode::kInvalidFile);
}
