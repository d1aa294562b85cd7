// `heed convert --from llama2c`: the legacy checkpoint's hyperparameters and tokenizer, the
// version-1 layout and the unshared classifier (files rebuilt here from the legacy one, so both
// layouts must give the same tensors), and one-line errors for broken inputs.
#include <cstring>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "loader/model_index.h"
#include "generate_fixture.h"
#include "heed_writer.h"
#include "llama2c/checkpoint.h"
#include "llama2c/reader.h"
#include "test_paths.h"

namespace heed::test {
namespace {

// The legacy stories260K checkpoint cut into its arrays (float counts from its header).
struct LegacyParts {
  int32_t header[7];
  std::vector<std::vector<uint8_t>> arrays;  // emb, att_norm, wq, wk, wv, wo, ffn_norm, w1, w2, w3, final, rope
};

LegacyParts split_legacy(const std::vector<uint8_t>& file) {
  LegacyParts p;
  std::memcpy(p.header, file.data(), 28);
  const size_t d = p.header[0], f = p.header[1], L = p.header[2], H = p.header[3], KV = p.header[4],
               V = static_cast<size_t>(p.header[5] < 0 ? -p.header[5] : p.header[5]), T = p.header[6];
  const size_t hs = d / H;
  const size_t counts[] = {V * d, L * d, L * d * d, L * KV * hs * d, L * KV * hs * d, L * d * d,
                           L * d, L * f * d, L * d * f, L * f * d, d, T * hs};
  size_t at = 28;
  for (size_t n : counts) {
    p.arrays.emplace_back(file.begin() + static_cast<std::ptrdiff_t>(at),
                          file.begin() + static_cast<std::ptrdiff_t>(at + n * 4));
    at += n * 4;
  }
  REQUIRE(at == file.size());
  return p;
}

void append(std::vector<uint8_t>& out, const std::vector<uint8_t>& bytes) { out.insert(out.end(), bytes.begin(), bytes.end()); }

std::string folder_with(const std::string& name, const std::vector<uint8_t>& checkpoint, bool with_tokenizer) {
  static int counter = 0;
  const std::string dir = temp_dir() + "/llama2c_" + std::to_string(counter++);
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  write_file(dir + "/" + name, checkpoint);
  if (with_tokenizer) {
    write_file(dir + "/tokenizer.bin", read_file(shared_path("models/llama2c/stories260k/tok512.bin")));
  }
  return dir + "/" + name;
}

void require_same_tensors(const convert::NeutralModel& a, const convert::NeutralModel& b) {
  REQUIRE(a.tensors.size() == b.tensors.size());
  for (const auto& t : a.tensors) {
    const convert::NeutralTensor* u = b.find(t.name);
    INFO(t.name);
    REQUIRE(u != nullptr);
    CHECK(u->shape == t.shape);
    CHECK(u->bytes == t.bytes);
  }
}

TEST_CASE("llama2c: stories260K converts to a RoPE / GQA / SwiGLU decoder-only model") {
  const auto model = open_model(stories260k_heed(convert::WeightType::kFloat32));
  REQUIRE(model_family(*model) == fb::ModelConfig::TransformerDecoderOnly);
  const auto* cfg = file_index(*model).config_as_TransformerDecoderOnly();
  const auto* s = cfg->decoder();
  CHECK(cfg->tied_output());
  CHECK(s->num_layers() == 5);
  CHECK(s->d_model() == 64);
  CHECK(s->num_heads() == 8);
  CHECK(s->num_kv_heads() == 4);
  CHECK(s->head_dim() == 8);
  CHECK(s->ffn_dim() == 172);
  CHECK(s->gated_ffn());
  CHECK(s->activation() == fb::Activation::SiLU);
  CHECK(s->norm() == fb::NormKind::RMSNorm);
  CHECK(s->norm_epsilon() == Approx(1e-5f));
  CHECK(s->position_encoding() == fb::PositionEncoding::RoPE);
  CHECK(s->max_positions() == 512);
  const auto* tok = file_index(*model).tokenizer();
  CHECK(tok->kind() == fb::TokenizerKind::ByteBPE);
  CHECK(tok->target_vocabulary()->tokens()->size() == 512);
  REQUIRE(tok->target_vocabulary()->scores() != nullptr);
  CHECK(tok->target_vocabulary()->scores()->Get(260) == -1.0f);  // "he", second merge of tok512
  CHECK(tok->bos_id() == 1);
  CHECK(tok->eos_id() == 1);
  CHECK(tok->unk_id() == 0);
  // Fused QKV = wq rows, then wk, then wv: [(8 + 2 * 4) * 8, 64].
  const TensorView* qkv = find_tensor(*model, "decoder.layers.0.self_attn.qkv.weight");
  REQUIRE(qkv != nullptr);
  CHECK(qkv->shape == std::vector<uint32_t>{128, 64});
  CHECK(find_tensor(*model, "decoder.output.weight") == nullptr);
}

TEST_CASE("llama2c: version-1 and unshared-classifier layouts give the same tensors") {
  const std::vector<uint8_t> legacy = read_file(shared_path("models/llama2c/stories260k/stories260K.bin"));
  const LegacyParts p = split_legacy(legacy);
  convert::NeutralModel reference;
  REQUIRE(convert::llama2c::read_model(folder_with("legacy.bin", legacy, true), &reference).is_ok());

  SECTION("version 1") {
    std::vector<uint8_t> v1(256, 0);
    const uint32_t magic = 0x616b3432;
    const int32_t version = 1;
    std::memcpy(v1.data(), &magic, 4);
    std::memcpy(v1.data() + 4, &version, 4);
    std::memcpy(v1.data() + 8, p.header, 28);
    v1[36] = 1;  // shared classifier
    for (int i : {1, 6, 10, 0, 2, 3, 4, 5, 7, 8, 9}) append(v1, p.arrays[static_cast<size_t>(i)]);
    convert::NeutralModel model;
    const Status s = convert::llama2c::read_model(folder_with("v1.bin", v1, true), &model);
    INFO(s.message());
    REQUIRE(s.is_ok());
    require_same_tensors(reference, model);
    CHECK(convert::llama2c::looks_like_model(folder_with("v1b.bin", v1, false)));
  }
  SECTION("legacy with an unshared classifier") {
    std::vector<uint8_t> unshared = legacy;
    int32_t vocab = -p.header[5];
    std::memcpy(unshared.data() + 20, &vocab, 4);
    std::vector<uint8_t> classifier = p.arrays[0];
    classifier[0] ^= 0x01;  // differs from the embeddings
    append(unshared, classifier);
    convert::NeutralModel model;
    REQUIRE(convert::llama2c::read_model(folder_with("unshared.bin", unshared, true), &model).is_ok());
    const convert::NeutralTensor* out = model.find("decoder.output.weight");
    REQUIRE(out != nullptr);
    CHECK(out->bytes == classifier);
    CHECK(!model.config.AsTransformerDecoderOnly()->tied_output);
  }
}

TEST_CASE("llama2c: broken inputs give one-line errors") {
  const std::vector<uint8_t> legacy = read_file(shared_path("models/llama2c/stories260k/stories260K.bin"));
  convert::NeutralModel model;

  std::vector<uint8_t> truncated(legacy.begin(), legacy.end() - 4);
  Status s = convert::llama2c::read_model(folder_with("truncated.bin", truncated, true), &model);
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message().find("implies 1056540 bytes") != std::string::npos);
  CHECK(s.message().find('\n') == std::string::npos);

  s = convert::llama2c::read_model(folder_with("alone.bin", legacy, false), &model);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("tok512.bin and tokenizer.bin") != std::string::npos);

  std::vector<uint8_t> garbage = legacy;
  const int32_t zero_dim = 0;
  std::memcpy(garbage.data(), &zero_dim, 4);
  s = convert::llama2c::read_model(folder_with("garbage.bin", garbage, true), &model);
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(!convert::llama2c::looks_like_model(folder_with("garbage2.bin", garbage, true)));

  std::vector<uint8_t> v2(300, 0);
  const uint32_t magic = 0x616b3432;
  const int32_t version = 2;
  std::memcpy(v2.data(), &magic, 4);
  std::memcpy(v2.data() + 4, &version, 4);
  s = convert::llama2c::read_model(folder_with("v2.bin", v2, true), &model);
  CHECK(s.code() == StatusCode::kUnsupportedModel);

  // A tokenizer for a different vocabulary size.
  const std::string dir_checkpoint = folder_with("short_tok.bin", legacy, false);
  std::vector<uint8_t> tok = read_file(shared_path("models/llama2c/stories260k/tok512.bin"));
  tok.resize(tok.size() - 3);
  write_file(dir_checkpoint.substr(0, dir_checkpoint.rfind('/')) + "/tokenizer.bin", tok);
  s = convert::llama2c::read_model(dir_checkpoint, &model);
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message().find("tokenizer.bin") != std::string::npos);
}

}  // namespace
}  // namespace heed::test
