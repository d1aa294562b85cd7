// `--from hf-marian`: hyperparameters from config.json, tensors mapped to heed's names, the
// position table equal to the one transformers computes, the tokenizer section (embedded
// SentencePiece models, vocab.json in id order, special ids), and errors on broken folders.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <catch2/catch.hpp>

#include "loader/model_index.h"
#include "heed_format/tensor_names.h"
#include "marian/reader.h"
#include "marian_fixture.h"
#include "test_paths.h"

namespace fs = std::filesystem;
using heed::test::converted_marian;
using heed::test::marian_fixture_dir;
using heed::test::marian_reference;

namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const float* f32(const heed::Model& model, const std::string& name) {
  const heed::TensorView* t = find_tensor(model, name);
  REQUIRE(t != nullptr);
  REQUIRE(t->dtype == heed::fb::DType::F32);
  return t->as<float>();
}

// A copy of the fixture in a fresh folder, for tests that break something.
std::string fixture_copy(const std::string& name) {
  const std::string dir = heed::test::temp_dir() + "/" + name;
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(marian_fixture_dir())) {
    fs::copy_file(entry.path(), dir + "/" + entry.path().filename().string(), fs::copy_options::overwrite_existing);
  }
  return dir;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Rewrites model.safetensors' JSON header with `edit` (the data stays as it is).
void edit_safetensors(const std::string& dir, const std::function<void(nlohmann::json&)>& edit) {
  const std::string path = dir + "/model.safetensors";
  const std::string bytes = read_text(path);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
  nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
  edit(header);
  const std::string text = header.dump();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xFF);
  write_text(path, out + text + bytes.substr(8 + n));
}

heed::Status convert(const std::string& dir) {
  heed::convert::NeutralModel model;
  return heed::convert::marian::read_model(dir, &model);
}

}  // namespace

TEST_CASE("hf-marian: hyperparameters follow config.json and modeling_marian") {
  const auto& model = *converted_marian(heed::convert::WeightType::kFloat32).model;
  const nlohmann::json config = read_json(marian_fixture_dir() + "/config.json");
  REQUIRE(model_family(model) == heed::fb::ModelConfig::TransformerEncoderDecoder);
  const auto* c = file_index(model).config_as_TransformerEncoderDecoder();
  for (const auto* s : {c->encoder(), c->decoder()}) {
    const bool enc = s == c->encoder();
    CHECK(s->num_layers() == config[enc ? "encoder_layers" : "decoder_layers"].get<uint32_t>());
    CHECK(s->num_heads() == config[enc ? "encoder_attention_heads" : "decoder_attention_heads"].get<uint32_t>());
    CHECK(s->ffn_dim() == config[enc ? "encoder_ffn_dim" : "decoder_ffn_dim"].get<uint32_t>());
    CHECK(s->d_model() == config["d_model"].get<uint32_t>());
    CHECK(s->vocab_size() == config["vocab_size"].get<uint32_t>());
    CHECK(s->activation() == heed::fb::Activation::SiLU);  // "swish"
    CHECK_FALSE(s->pre_norm());
    CHECK_FALSE(s->final_norm());
    CHECK_FALSE(s->embedding_norm());
    CHECK(s->norm() == heed::fb::NormKind::LayerNorm);
    CHECK(s->norm_epsilon() == Approx(1e-5f));
    CHECK(s->position_encoding() == heed::fb::PositionEncoding::Learned);
    CHECK(s->max_positions() == config["max_position_embeddings"].get<uint32_t>());
    CHECK(s->embedding_scale() == Approx(std::sqrt(config["d_model"].get<double>())));
  }
  // OPUS-MT shares one table between both stacks and the output projection: written once.
  CHECK(c->shared_embeddings());
  CHECK(c->tied_output());
  CHECK(file_index(model).producer()->source_format()->str() == "hf-marian");
}

TEST_CASE("hf-marian: position table equals transformers' MarianSinusoidalPositionalEmbedding") {
  const auto& model = *converted_marian(heed::convert::WeightType::kFloat32).model;
  const auto& rows = marian_reference()["positions_first_rows"];
  REQUIRE(rows.size() > 2);
  for (const char* stack : {"encoder", "decoder"}) {
    const heed::TensorView* t = find_tensor(model, std::string(stack) + ".positions");
    REQUIRE(t != nullptr);
    const size_t d = t->shape[1];
    const float* table = t->as<float>();
    float max_diff = 0;
    for (size_t p = 0; p < rows.size(); ++p) {
      REQUIRE(rows[p].size() == d);
      for (size_t j = 0; j < d; ++j) max_diff = std::max(max_diff, std::fabs(table[p * d + j] - rows[p][j].get<float>()));
    }
    INFO(stack << " max |heed - transformers| = " << max_diff);
    CHECK(max_diff <= 1e-7f);
  }
  // Odd widths: the sin half has the extra column, like the library's "sentinel".
  float odd[2 * 5];
  heed::convert::marian::sinusoidal_table(2, 5, odd);
  CHECK(odd[0] == 0.0f);   // sin(0)
  CHECK(odd[3] == 1.0f);   // cos(0), first column after the 3 sin columns
  CHECK(odd[5 + 1] == Approx(std::sin(1.0 / std::pow(10000.0, 2.0 / 5))));
  CHECK(odd[5 + 4] == Approx(std::cos(1.0 / std::pow(10000.0, 2.0 / 5))));
}

TEST_CASE("hf-marian: tensors map onto heed's names; the output is tied embeddings plus final_logits_bias") {
  const auto& model = *converted_marian(heed::convert::WeightType::kFloat32).model;
  const nlohmann::json& ref = marian_reference();
  const size_t v = ref["vocab_size"].get<size_t>();
  const size_t d = 32;
  for (const char* name : {"decoder.embeddings", "decoder.output.bias",
                           "encoder.layers.1.self_attn.qkv.weight", "decoder.layers.1.cross_attn.kv.weight",
                           "decoder.layers.0.cross_attn.q.bias", "decoder.layers.1.ffn.norm.beta",
                           "encoder.layers.0.ffn.in.weight", "encoder.layers.0.self_attn.norm.gamma"}) {
    INFO(name);
    CHECK(find_tensor(model, name) != nullptr);
  }
  CHECK(find_tensor(model, "encoder.norm.gamma") == nullptr);  // post-norm, no final norm
  CHECK(find_tensor(model, "encoder.layers.2.ffn.in.weight") == nullptr);
  // The shared table is stored once: the encoder and the tied projection read decoder.embeddings.
  CHECK(find_tensor(model, "encoder.embeddings") == nullptr);
  CHECK(find_tensor(model, "decoder.output.weight") == nullptr);
  const heed::TensorView* emb = find_tensor(model, "decoder.embeddings");
  REQUIRE(emb != nullptr);
  CHECK(emb->shape[0] == v);
  CHECK(emb->shape[1] == d);
  const float* bias = f32(model, "decoder.output.bias");
  const int pad = ref["pad_id"].get<int>();
  CHECK(bias[pad] < -1e8f);  // bad_words_ids = [[pad]]: never generated
  size_t nonzero = 0;
  for (size_t i = 0; i < v; ++i) nonzero += (i != static_cast<size_t>(pad) && bias[i] != 0.0f);
  CHECK(nonzero == v - 1);  // the fixture's final_logits_bias is random
}

TEST_CASE("hf-marian: tokenizer section embeds both SentencePiece models and vocab.json in id order") {
  const auto& model = *converted_marian(heed::convert::WeightType::kFloat32).model;
  const auto* tok = file_index(model).tokenizer();
  REQUIRE(tok != nullptr);
  CHECK(tok->kind() == heed::fb::TokenizerKind::SentencePiece);
  const std::string source = read_text(marian_fixture_dir() + "/source.spm");
  const std::string target = read_text(marian_fixture_dir() + "/target.spm");
  REQUIRE(tok->source_model() != nullptr);
  REQUIRE(tok->target_model() != nullptr);
  CHECK(std::string(reinterpret_cast<const char*>(tok->source_model()->data()), tok->source_model()->size()) == source);
  CHECK(std::string(reinterpret_cast<const char*>(tok->target_model()->data()), tok->target_model()->size()) == target);
  const nlohmann::json vocab = read_json(marian_fixture_dir() + "/vocab.json");
  REQUIRE(tok->target_vocabulary()->tokens()->size() == vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    CHECK(tok->target_vocabulary()->tokens()->Get(it->get<uint32_t>())->str() == it.key());
    CHECK(tok->source_vocabulary()->tokens()->Get(it->get<uint32_t>())->str() == it.key());
  }
  const nlohmann::json& ref = marian_reference();
  CHECK(tok->eos_id() == ref["eos_id"].get<int>());
  CHECK(tok->unk_id() == ref["unk_id"].get<int>());
  CHECK(tok->pad_id() == ref["pad_id"].get<int>());
  CHECK(tok->decoder_start_id() == ref["pad_id"].get<int>());
  CHECK(tok->bos_id() == -1);
  bool eos_meta = false;
  for (const auto* kv : *file_index(model).metadata()) {
    if (kv->key()->str() == "add_source_eos") eos_meta = kv->value()->str() == "true";
  }
  CHECK(eos_meta);
}

TEST_CASE("hf-marian: int8 conversion loads with quantized matrices") {
  const auto& model = *converted_marian(heed::convert::WeightType::kInt8).model;
  const heed::TensorView* t = find_tensor(model, "encoder.layers.0.self_attn.qkv.weight");
  REQUIRE(t != nullptr);
  CHECK(t->dtype == heed::fb::DType::I8);
  CHECK(find_tensor(model, "decoder.output.bias")->dtype == heed::fb::DType::F32);
}

TEST_CASE("hf-marian: broken folders are clear errors") {
  using heed::StatusCode;
  CHECK(convert("/nonexistent-marian").code() == StatusCode::kIoError);
  CHECK_FALSE(heed::convert::marian::looks_like_model("/nonexistent-marian"));
  CHECK(heed::convert::marian::looks_like_model(marian_fixture_dir()));

  SECTION("not a Marian config") {
    const std::string dir = fixture_copy("bart");
    nlohmann::json config = read_json(dir + "/config.json");
    config["model_type"] = "bart";
    write_text(dir + "/config.json", config.dump());
    const heed::Status s = convert(dir);
    CHECK(s.code() == StatusCode::kUnsupportedModel);
    CHECK(s.message().find("marian") != std::string::npos);
  }
  SECTION("unsupported activation") {
    const std::string dir = fixture_copy("act");
    nlohmann::json config = read_json(dir + "/config.json");
    config["activation_function"] = "tanh";
    write_text(dir + "/config.json", config.dump());
    const heed::Status s = convert(dir);
    CHECK(s.code() == StatusCode::kUnsupportedModel);
    CHECK(s.message().find("tanh") != std::string::npos);
  }
  SECTION("pytorch_model.bin only") {
    const std::string dir = fixture_copy("pt");
    fs::rename(dir + "/model.safetensors", dir + "/pytorch_model.bin");
    const heed::Status s = convert(dir);
    CHECK(s.code() == StatusCode::kUnsupportedModel);
    CHECK(s.message().find("safe_serialization") != std::string::npos);
  }
  SECTION("vocab.json that does not match the embeddings") {
    const std::string dir = fixture_copy("vocab");
    nlohmann::json vocab = read_json(dir + "/vocab.json");
    vocab["<extra>"] = vocab.size();
    write_text(dir + "/vocab.json", vocab.dump());
    const heed::Status s = convert(dir);
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("vocab.json") != std::string::npos);
  }
  SECTION("duplicate ids in vocab.json") {
    const std::string dir = fixture_copy("dup");
    nlohmann::json vocab = read_json(dir + "/vocab.json");
    vocab.erase("<pad>");
    vocab["<pad2>"] = 0;
    write_text(dir + "/vocab.json", vocab.dump());
    CHECK(convert(dir).code() == StatusCode::kInvalidFile);
  }
  SECTION("a missing layer tensor is named") {
    const std::string dir = fixture_copy("missing");
    edit_safetensors(dir, [](nlohmann::json& h) {
      h["model.encoder.layers.1.fc9.weight"] = h["model.encoder.layers.1.fc1.weight"];
      h.erase("model.encoder.layers.1.fc1.weight");
    });
    const heed::Status s = convert(dir);
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("model.encoder.layers.1.fc1.weight") != std::string::npos);
  }
  SECTION("a wrong shape is named") {
    const std::string dir = fixture_copy("shape");
    edit_safetensors(dir, [](nlohmann::json& h) { h["model.decoder.layers.0.fc2.weight"]["shape"] = {64, 32}; });
    const heed::Status s = convert(dir);
    CHECK(s.code() == StatusCode::kInvalidFile);
    CHECK(s.message().find("model.decoder.layers.0.fc2.weight") != std::string::npos);
  }
  SECTION("a tensor heed does not understand is refused, not dropped") {
    const std::string dir = fixture_copy("extra");
    edit_safetensors(dir, [](nlohmann::json& h) { h["model.encoder.layernorm_embedding.weight"] = h["model.encoder.layers.0.fc2.bias"]; });
    const heed::Status s = convert(dir);
    CHECK(s.code() == StatusCode::kUnsupportedModel);
    CHECK(s.message().find("layernorm_embedding") != std::string::npos);
  }
  SECTION("corrupt config.json") {
    const std::string dir = fixture_copy("json");
    write_text(dir + "/config.json", "{\"model_type\": \"marian\", ");
    CHECK(convert(dir).code() == StatusCode::kInvalidFile);
  }
}
