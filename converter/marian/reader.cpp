#include "marian/reader.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "heed_format/tensor_names.h"
#include "marian/config.h"
#include "json_fields.h"
#include "safetensors.h"
#include "tensor_mapper.h"
#include "sentencepiece_model.h"
#include "source_files.h"

#ifndef HEED_VERSION
#define HEED_VERSION "unknown"
#endif

namespace heed::convert::marian {
namespace {

// What generate() does to a bad word's logit is -inf; a large finite value keeps every later
// computation (softmax, log-probs, scores) finite and still gives the token probability 0.
constexpr float kSuppressedBias = -1e9f;


// vocab.json: {"piece": id, ...} with ids exactly 0..n-1, as a list in id order.
Status read_vocab(const std::string& path, uint32_t expected, std::vector<std::string>* out) {
  return read_vocab_json(path, expected, "the model's embeddings have " + std::to_string(expected) + " rows", out);
}

int32_t find_token(const std::vector<std::string>& tokens, const std::string& token) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] == token) return static_cast<int32_t>(i);
  }
  return -1;
}

// Maps the safetensors tensors onto heed's names, remembering which it used so that anything it
// does not understand is reported instead of silently dropped.

Status read_activation(const std::string& name, fb::Activation* out) {
  // The names of transformers' ACT2FN that heed's kernels compute exactly.
  if (name == "swish" || name == "silu") {
    *out = fb::Activation::SiLU;
  } else if (name == "gelu") {
    *out = fb::Activation::GELU;
  } else if (name == "gelu_new" || name == "gelu_pytorch_tanh") {
    *out = fb::Activation::GELUTanh;
  } else if (name == "relu") {
    *out = fb::Activation::ReLU;
  } else {
    return unsupported_model("activation_function '" + name + "' is not supported (swish, silu, gelu, gelu_new, relu)");
  }
  return Status::success();
}

std::unique_ptr<fb::TransformerStackT> stack_config(uint32_t layers, uint32_t d, uint32_t heads, uint32_t ffn,
                                                    uint32_t vocab, fb::Activation activation,
                                                    const MarianConfig& c) {
  auto s = std::make_unique<fb::TransformerStackT>();
  s->num_layers = layers;
  s->d_model = d;
  s->num_heads = heads;
  s->ffn_dim = ffn;
  s->activation = activation;
  s->norm = fb::NormKind::LayerNorm;
  s->norm_epsilon = 1e-5f;  // torch.nn.LayerNorm's default, which modeling_marian uses
  s->pre_norm = false;
  s->final_norm = false;
  s->embedding_norm = false;
  s->position_encoding = fb::PositionEncoding::Learned;
  s->max_positions = c.max_position_embeddings;
  s->embedding_scale = c.scale_embedding ? static_cast<float>(std::sqrt(static_cast<double>(d))) : 1.0f;
  s->vocab_size = vocab;
  return s;
}

// One stack's layers: "model.encoder" / "model.decoder" -> "encoder" / "decoder".
Status map_layers(TensorMapper& m, const std::string& src, const std::string& dst, uint32_t layers, uint64_t d,
                  uint64_t ffn, bool cross) {
  for (uint32_t i = 0; i < layers; ++i) {
    const std::string in = src + ".layers." + std::to_string(i);
    const std::string out = names::layer(dst, static_cast<int>(i));
    HEED_RETURN_IF_ERROR(m.take_stacked({in + ".self_attn.q_proj", in + ".self_attn.k_proj", in + ".self_attn.v_proj"},
                                        out + ".self_attn.qkv", d, d));
    HEED_RETURN_IF_ERROR(m.take_linear(in + ".self_attn.out_proj", out + ".self_attn.out", d, d));
    HEED_RETURN_IF_ERROR(m.take_norm(in + ".self_attn_layer_norm", out + ".self_attn.norm", d));
    if (cross) {
      HEED_RETURN_IF_ERROR(m.take_linear(in + ".encoder_attn.q_proj", out + ".cross_attn.q", d, d));
      HEED_RETURN_IF_ERROR(
          m.take_stacked({in + ".encoder_attn.k_proj", in + ".encoder_attn.v_proj"}, out + ".cross_attn.kv", d, d));
      HEED_RETURN_IF_ERROR(m.take_linear(in + ".encoder_attn.out_proj", out + ".cross_attn.out", d, d));
      HEED_RETURN_IF_ERROR(m.take_norm(in + ".encoder_attn_layer_norm", out + ".cross_attn.norm", d));
    }
    HEED_RETURN_IF_ERROR(m.take_linear(in + ".fc1", out + ".ffn.in", ffn, d));
    HEED_RETURN_IF_ERROR(m.take_linear(in + ".fc2", out + ".ffn.out", d, ffn));
    HEED_RETURN_IF_ERROR(m.take_norm(in + ".final_layer_norm", out + ".ffn.norm", d));
  }
  // A layer beyond the configured count means config.json and the weights disagree.
  if (m.find(src + ".layers." + std::to_string(layers) + ".fc1.weight")) {
    return m.corrupt("'" + src + "' has more layers than config.json's " + std::to_string(layers));
  }
  return Status::success();
}

// The position table: the stored one when a (older) save kept it, otherwise the library's formula.
Status map_positions(TensorMapper& m, const std::string& src, const std::string& dst, uint32_t positions, uint32_t d) {
  const std::string stored = src + ".embed_positions.weight";
  if (m.find(stored)) return m.take(stored, dst + ".positions", {positions, d}, false);
  std::vector<float> table(static_cast<size_t>(positions) * d);
  sinusoidal_table(positions, d, table.data());
  m.add(dst + ".positions", {positions, d}, table, false);
  return Status::success();
}

// True when both tensors exist with the same shape, type and bytes.
bool same_values(const NeutralModel& model, const std::string& a, const std::string& b) {
  const NeutralTensor* x = model.find(a);
  const NeutralTensor* y = model.find(b);
  return x && y && x->shape == y->shape && x->dtype == y->dtype && x->bytes == y->bytes;
}

}  // namespace

void sinusoidal_table(uint32_t positions, uint32_t dim, float* out) {
  const uint32_t sin_columns = (dim + 1) / 2;  // HF's "sentinel"
  for (uint32_t p = 0; p < positions; ++p) {
    float* row = out + static_cast<size_t>(p) * dim;
    for (uint32_t j = 0; j < dim; ++j) {
      // Column j of the first half uses frequency index j; of the second half, j - sentinel.
      const bool is_sin = j < sin_columns;
      const uint32_t k = is_sin ? j : j - sin_columns;
      const double angle = static_cast<double>(p) / std::pow(10000.0, 2.0 * k / static_cast<double>(dim));
      row[j] = static_cast<float>(is_sin ? std::sin(angle) : std::cos(angle));
    }
  }
}

bool looks_like_model(const std::string& dir) {
  return is_file(dir + "/config.json") && is_file(dir + "/source.spm") && is_file(dir + "/vocab.json");
}

namespace {

// Embeddings: model.shared is the one table when shared; each stack may also (or instead) store
// its own embed_tokens. A stack's own table wins. One table for both stacks (OPUS-MT models share
// it) is written once, as the decoder's; returns whether it is.
Status map_embeddings(TensorMapper& m, const SafetensorsFile& file, const MarianConfig& c, uint32_t v_tgt,
                      NeutralModel* model, bool* shared) {
  const uint64_t d = c.d_model;
  auto embeddings = [&](const std::string& stack, uint64_t rows, const std::string& dst) -> Status {
    const std::string own = "model." + stack + ".embed_tokens.weight";
    if (file.find(own)) return m.take(own, dst, {rows, d}, true);
    if (!c.share_encoder_decoder_embeddings) return m.corrupt("missing tensor '" + own + "'");
    return m.take("model.shared.weight", dst, {rows, d}, true);
  };
  HEED_RETURN_IF_ERROR(embeddings("encoder", c.vocab_size, "encoder.embeddings"));
  HEED_RETURN_IF_ERROR(embeddings("decoder", v_tgt, "decoder.embeddings"));
  if (file.find("model.shared.weight")) m.find("model.shared.weight");  // an unused duplicate is fine
  *shared = same_values(*model, "encoder.embeddings", "decoder.embeddings");
  if (*shared) model->remove("encoder.embeddings");
  return Status::success();
}

// Output projection: lm_head when the file has its own values, else the decoder embeddings, which
// the runtime then reads as the projection (tied_output) with decoder.output.bias (which also
// suppresses bad_words_ids).
Status map_output(TensorMapper& m, const SafetensorsFile& file, const MarianConfig& c, uint32_t v_tgt,
                  const std::string& dir, const NeutralModel& model, bool* tied_output) {
  const uint64_t d = c.d_model;
  const SafetensorsTensor* head = file.find("lm_head.weight");
  *tied_output = true;
  if (head && !c.tie_word_embeddings) {
    std::vector<float> output;
    HEED_RETURN_IF_ERROR(m.values("lm_head.weight", {v_tgt, d}, &output));
    const NeutralTensor* emb = model.find("decoder.embeddings");
    *tied_output = emb->bytes.size() == output.size() * sizeof(float) &&
                   std::memcmp(emb->bytes.data(), output.data(), emb->bytes.size()) == 0;
    if (!*tied_output) m.add("decoder.output.weight", {v_tgt, d}, output, true);
  } else if (head) {
    m.find("lm_head.weight");  // tied: the same values as the embeddings
  }
  std::vector<float> bias(v_tgt, 0.0f);
  if (file.find("final_logits_bias")) HEED_RETURN_IF_ERROR(m.values("final_logits_bias", {1, v_tgt}, &bias));
  for (int32_t id : c.suppressed_ids) {
    if (id >= static_cast<int32_t>(v_tgt)) {
      return invalid_file(dir + ": bad_words_ids holds id " + std::to_string(id) + ", outside the vocabulary");
    }
    bias[static_cast<size_t>(id)] = kSuppressedBias;
  }
  m.add("decoder.output.bias", {v_tgt}, bias, false);
  return Status::success();
}

Status read_vocabularies(const std::string& dir, const MarianConfig& c, uint32_t v_tgt,
                         std::vector<std::string>* source_vocab, std::vector<std::string>* target_vocab) {
  HEED_RETURN_IF_ERROR(read_vocab(dir + "/vocab.json", c.vocab_size, source_vocab));
  if (c.separate_vocabs) return read_vocab(dir + "/target_vocab.json", v_tgt, target_vocab);
  if (v_tgt != c.vocab_size) {
    return invalid_file(dir + ": one vocab.json but decoder_vocab_size " + std::to_string(v_tgt) +
                        " differs from vocab_size " + std::to_string(c.vocab_size));
  }
  *target_vocab = *source_vocab;
  return Status::success();
}

// Tokenizer: both SentencePiece models embedded; pieces become ids through vocab.json.
Status read_tokenizer(const std::string& dir, const MarianConfig& c, uint32_t v_tgt, fb::TokenizerT* tok) {
  tok->kind = fb::TokenizerKind::SentencePiece;
  HEED_RETURN_IF_ERROR(read_sentencepiece_model(dir + "/source.spm", &tok->source_model));
  HEED_RETURN_IF_ERROR(read_sentencepiece_model(dir + "/target.spm", &tok->target_model));
  std::vector<std::string> source_vocab, target_vocab;
  HEED_RETURN_IF_ERROR(read_vocabularies(dir, c, v_tgt, &source_vocab, &target_vocab));
  tok->unk_id = find_token(target_vocab, c.unk_token);
  if (tok->unk_id < 0) return invalid_file(dir + ": the unknown token '" + c.unk_token + "' is not in the vocabulary");
  for (const auto& [id, what] : {std::pair<int32_t, const char*>{c.eos_token_id, "eos_token_id"},
                                 {c.pad_token_id, "pad_token_id"},
                                 {c.decoder_start_token_id, "decoder_start_token_id"}}) {
    if (id < 0 || id >= static_cast<int32_t>(v_tgt)) {
      return invalid_file(dir + "/config.json: " + what + " " + std::to_string(id) + " is outside the vocabulary");
    }
  }
  tok->eos_id = c.eos_token_id;
  tok->pad_id = c.pad_token_id;
  tok->decoder_start_id = c.decoder_start_token_id;
  tok->bos_id = -1;  // Marian has no BOS: the decoder starts from <pad>
  tok->shared_vocabulary = !c.separate_vocabs;
  tok->source_vocabulary = std::make_unique<fb::VocabularyT>();
  tok->source_vocabulary->tokens = std::move(source_vocab);
  tok->target_vocabulary = std::make_unique<fb::VocabularyT>();
  tok->target_vocabulary->tokens = std::move(target_vocab);
  return Status::success();
}

void add_metadata(const std::string& dir, const MarianConfig& c, NeutralModel* model) {
  model->set_producer("hf-marian", base_name(dir));
  // MarianTokenizer appends </s> to every source and nothing before it.
  model->metadata.emplace_back("add_source_bos", "false");
  model->metadata.emplace_back("add_source_eos", "true");
  // A leading ">>xx<<" (target language of multilingual OPUS-MT models) is one piece of its own.
  model->metadata.emplace_back("tokenizer.language_code_prefix", "true");
  if (!c.source_lang.empty()) model->metadata.emplace_back("source_language", c.source_lang);
  if (!c.target_lang.empty()) model->metadata.emplace_back("target_language", c.target_lang);
  if (!c.suppressed_ids.empty()) {
    std::string ids;
    for (int32_t id : c.suppressed_ids) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    model->metadata.emplace_back("suppressed_ids", ids);
  }
  if (c.forced_eos_token_id >= 0) {
    model->metadata.emplace_back("hf.forced_eos_token_id", std::to_string(c.forced_eos_token_id));
  }
  model->metadata.emplace_back("hf.activation_function", c.activation);
}

}  // namespace

Status read_model(const std::string& dir, NeutralModel* out) {
  if (!is_directory(dir)) {
    return io_error("'" + dir + "' is not a folder (a Hugging Face Marian model is a folder with config.json)");
  }
  MarianConfig c;
  HEED_RETURN_IF_ERROR(read_config(dir, &c));
  fb::Activation activation = fb::Activation::ReLU;
  Status status = read_activation(c.activation, &activation);
  if (!status) return unsupported_model(dir + "/config.json: " + status.message());
  SafetensorsFile file;
  HEED_RETURN_IF_ERROR(read_hf_weights(dir, &file));

  NeutralModel model;
  TensorMapper m(file, &model);
  const uint64_t d = c.d_model;
  const uint32_t v_src = c.vocab_size;
  const uint32_t v_tgt = c.share_encoder_decoder_embeddings ? c.vocab_size : c.decoder_vocab_size;
  bool shared_embeddings = false, tied_output = true;
  HEED_RETURN_IF_ERROR(map_embeddings(m, file, c, v_tgt, &model, &shared_embeddings));
  HEED_RETURN_IF_ERROR(map_positions(m, "model.encoder", "encoder", c.max_position_embeddings, c.d_model));
  HEED_RETURN_IF_ERROR(map_positions(m, "model.decoder", "decoder", c.max_position_embeddings, c.d_model));
  HEED_RETURN_IF_ERROR(map_layers(m, "model.encoder", "encoder", c.encoder_layers, d, c.encoder_ffn_dim, false));
  HEED_RETURN_IF_ERROR(map_layers(m, "model.decoder", "decoder", c.decoder_layers, d, c.decoder_ffn_dim, true));
  HEED_RETURN_IF_ERROR(map_output(m, file, c, v_tgt, dir, model, &tied_output));
  HEED_RETURN_IF_ERROR(m.check_all_used("a Marian model heed understands"));

  fb::TransformerEncoderDecoderT config;
  config.encoder = stack_config(c.encoder_layers, c.d_model, c.encoder_heads, c.encoder_ffn_dim, v_src, activation, c);
  config.decoder = stack_config(c.decoder_layers, c.d_model, c.decoder_heads, c.decoder_ffn_dim, v_tgt, activation, c);
  config.shared_embeddings = shared_embeddings;
  config.tied_output = tied_output;
  model.config.Set(std::move(config));
  HEED_RETURN_IF_ERROR(read_tokenizer(dir, c, v_tgt, &model.tokenizer));
  add_metadata(dir, c, &model);
  *out = std::move(model);
  return Status::success();
}

}  // namespace heed::convert::marian
