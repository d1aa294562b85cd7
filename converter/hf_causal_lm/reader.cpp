#include "hf_causal_lm/reader.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>
#include <sentencepiece_processor.h>

#include "heed_format/tensor_names.h"
#include "chat/recognize.h"
#include "json_fields.h"
#include "hf_causal_lm/config.h"
#include "safetensors.h"
#include "tensor_mapper.h"
#include "sentencepiece_model.h"
#include "source_files.h"
#include "tokenizer_json.h"

#ifndef HEED_VERSION
#define HEED_VERSION "unknown"
#endif

namespace heed::convert::hf_causal_lm {
namespace {


// Maps safetensors tensors onto heed's names and remembers which it used, so that anything left
// over is reported instead of silently dropped.

Status open_weights(const std::string& dir, SafetensorsFile* file) {
  if (!is_directory(dir)) return io_error("'" + dir + "' is not a folder (a Hugging Face model is a folder with config.json)");
  return read_hf_weights(dir, file);
}

std::unique_ptr<fb::TransformerStackT> stack_config(const CausalLmConfig& c) {
  auto s = std::make_unique<fb::TransformerStackT>();
  s->num_layers = c.num_layers;
  s->d_model = c.hidden_size;
  s->num_heads = c.num_heads;
  s->num_kv_heads = c.num_kv_heads;
  s->head_dim = c.head_dim;
  s->ffn_dim = c.ffn_dim;
  s->activation = c.activation;
  s->norm_epsilon = c.norm_epsilon;
  s->pre_norm = true;
  s->final_norm = true;
  s->embedding_norm = false;
  s->max_positions = c.max_positions;
  s->embedding_scale = 1.0f;
  s->vocab_size = c.vocab_size;
  if (c.family == Family::kGpt2) {
    s->norm = fb::NormKind::LayerNorm;
    s->gated_ffn = false;
    s->position_encoding = fb::PositionEncoding::Learned;
  } else {
    s->norm = fb::NormKind::RMSNorm;
    s->gated_ffn = true;
    s->position_encoding = fb::PositionEncoding::RoPE;
    s->rope_theta = c.rope_theta;
  }
  return s;
}

// The producer, the source's metadata and its chat format (tokenizer_config.json's chat_template).
void set_producer(const std::string& dir, const CausalLmConfig& c, const char* format, NeutralModel* model) {
  model->set_producer(format, base_name(dir));
  fb::ChatTemplateT chat;
  if (chat::read_chat_template(dir, &chat)) model->chat_template = std::move(chat);
  model->metadata.emplace_back("hf.model_type", c.model_type);
  model->metadata.emplace_back("hf.activation", c.activation_name);
}

// GPT-2's Conv1D: weight [in, out] (y = x W + b), stored by heed as a Linear [out, in].
Status take_conv1d(TensorMapper& m, const std::string& src, const std::string& dst, uint64_t in, uint64_t out) {
  std::vector<float> w;
  HEED_RETURN_IF_ERROR(m.values(src + ".weight", {in, out}, &w));
  std::vector<float> t(w.size());
  for (uint64_t i = 0; i < in; ++i) {
    for (uint64_t o = 0; o < out; ++o) t[o * in + i] = w[i * out + o];
  }
  m.add(dst + ".weight", {out, in}, t, true);
  return m.take(src + ".bias", dst + ".bias", {out}, false);
}

// The output projection: lm_head when untied, else the embeddings (the runtime reads them as the
// projection). A tied save may still hold lm_head.weight (a copy); it is accepted and skipped.
Status map_output(TensorMapper& m, const CausalLmConfig& c, fb::TransformerDecoderOnlyT* config) {
  const uint64_t V = c.vocab_size, d = c.hidden_size;
  config->tied_output = c.tie_word_embeddings;
  if (c.tie_word_embeddings) {
    m.find("lm_head.weight");
    return Status::success();
  }
  return m.take("lm_head.weight", "decoder.output.weight", {V, d}, true);
}

// ---- GPT-2 ----------------------------------------------------------------------------------

// merges.txt: an optional "#version" line, then one "a b" pair per line, best first.
Status read_merges(const std::string& path, std::vector<std::string>* out) {
  std::string text;
  HEED_RETURN_IF_ERROR(read_text(path, &text));
  std::istringstream in(text);
  std::string line;
  size_t number = 0;
  out->clear();
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1 && line.rfind("#version", 0) == 0) continue;
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size() || line.find(' ', space + 1) != std::string::npos) {
      return invalid_file(path + ":" + std::to_string(number) + ": not two symbols separated by one space");
    }
    out->push_back(line);
  }
  return Status::success();
}

// A byte-level BPE tokenizer.json (GPT-2, SmolLM): vocabulary, merges, the added tokens as pieces
// of their own, the digit split; *start_id: the token its post-processor puts first, or -1.
Status read_byte_level_tokenizer_json(const std::string& dir, uint32_t vocab_size, fb::TokenizerT* tok,
                                      int32_t* start_id) {
  TokenizerJson t;
  HEED_RETURN_IF_ERROR(read_tokenizer_json(dir + "/tokenizer.json", vocab_size, &t));
  if (t.kind != TokenizerJson::Kind::kByteLevelBpe) {
    return unsupported_model(dir + "/tokenizer.json: a WordPiece tokenizer; heed runs decoder-only models with byte-level BPE");
  }
  tok->kind = fb::TokenizerKind::ByteLevelBPE;
  tok->target_vocabulary = std::make_unique<fb::VocabularyT>();
  tok->target_vocabulary->tokens = std::move(t.tokens);
  tok->merges = std::move(t.merges);
  tok->special_ids = std::move(t.added_ids);
  tok->split_digits = t.split_digits;
  tok->split_pattern = t.split_pattern;
  *start_id = t.start_id;
  return Status::success();
}

// vocab.json + merges.txt, or tokenizer.json alone (as newer checkpoints are published).
Status read_gpt2_tokenizer(const std::string& dir, uint32_t vocab_size, fb::TokenizerT* tok) {
  if (!is_file(dir + "/vocab.json") && is_file(dir + "/tokenizer.json")) {
    int32_t start_id = -1;
    return read_byte_level_tokenizer_json(dir, vocab_size, tok, &start_id);
  }
  HEED_RETURN_IF_ERROR(read_vocab_json(dir + "/vocab.json", vocab_size,
                                       "config.json's vocab_size is " + std::to_string(vocab_size),
                                       &tok->target_vocabulary->tokens));
  return read_merges(dir + "/merges.txt", &tok->merges);
}

Status map_gpt2(TensorMapper& m, const SafetensorsFile& file, const CausalLmConfig& c) {
  // GPT2LMHeadModel saves "transformer.*"; GPT2Model (and the original hub checkpoints) no prefix.
  const std::string p = file.find("transformer.wte.weight") ? "transformer." : "";
  const uint64_t d = c.hidden_size, f = c.ffn_dim, V = c.vocab_size;
  HEED_RETURN_IF_ERROR(m.take(p + "wte.weight", "decoder.embeddings", {V, d}, true));
  HEED_RETURN_IF_ERROR(m.take(p + "wpe.weight", "decoder.positions", {c.max_positions, d}, false));
  for (uint32_t i = 0; i < c.num_layers; ++i) {
    const std::string in = p + "h." + std::to_string(i);
    const std::string out = names::layer("decoder", static_cast<int>(i));
    HEED_RETURN_IF_ERROR(m.take(in + ".ln_1.weight", out + ".self_attn.norm.gamma", {d}, false));
    HEED_RETURN_IF_ERROR(m.take(in + ".ln_1.bias", out + ".self_attn.norm.beta", {d}, false));
    HEED_RETURN_IF_ERROR(take_conv1d(m, in + ".attn.c_attn", out + ".self_attn.qkv", d, 3 * d));
    HEED_RETURN_IF_ERROR(take_conv1d(m, in + ".attn.c_proj", out + ".self_attn.out", d, d));
    HEED_RETURN_IF_ERROR(m.take(in + ".ln_2.weight", out + ".ffn.norm.gamma", {d}, false));
    HEED_RETURN_IF_ERROR(m.take(in + ".ln_2.bias", out + ".ffn.norm.beta", {d}, false));
    HEED_RETURN_IF_ERROR(take_conv1d(m, in + ".mlp.c_fc", out + ".ffn.in", d, f));
    HEED_RETURN_IF_ERROR(take_conv1d(m, in + ".mlp.c_proj", out + ".ffn.out", f, d));
    m.find(in + ".attn.bias");         // the causal mask buffer, not a weight
    m.find(in + ".attn.masked_bias");  // the masking constant, not a weight
  }
  if (file.find(p + "h." + std::to_string(c.num_layers) + ".ln_1.weight")) {
    return m.corrupt("the weights have more layers than config.json's n_layer " + std::to_string(c.num_layers));
  }
  HEED_RETURN_IF_ERROR(m.take(p + "ln_f.weight", "decoder.norm.gamma", {d}, false));
  return m.take(p + "ln_f.bias", "decoder.norm.beta", {d}, false);
}

// ---- Llama ----------------------------------------------------------------------------------

// q_proj / k_proj rows (and biases) in heed's interleaved RoPE order.
Status take_rope_projection(TensorMapper& m, const std::string& src, uint64_t heads, uint64_t hd, uint64_t d,
                            bool bias, std::vector<float>* weight, std::vector<float>* bias_out) {
  std::vector<float> w;
  HEED_RETURN_IF_ERROR(m.values(src + ".weight", {heads * hd, d}, &w));
  const size_t at = weight->size();
  weight->resize(at + w.size());
  interleave_rope_rows(w.data(), heads, hd, d, weight->data() + at);
  if (bias) {
    std::vector<float> b;
    HEED_RETURN_IF_ERROR(m.values(src + ".bias", {heads * hd}, &b));
    const size_t bat = bias_out->size();
    bias_out->resize(bat + b.size());
    interleave_rope_rows(b.data(), heads, hd, 1, bias_out->data() + bat);
  }
  return Status::success();
}

Status map_llama(TensorMapper& m, const SafetensorsFile& file, const CausalLmConfig& c) {
  const uint64_t d = c.hidden_size, f = c.ffn_dim, V = c.vocab_size, hd = c.head_dim;
  const uint64_t h = c.num_heads, kvh = c.num_kv_heads;
  HEED_RETURN_IF_ERROR(m.take("model.embed_tokens.weight", "decoder.embeddings", {V, d}, true));
  for (uint32_t i = 0; i < c.num_layers; ++i) {
    const std::string in = "model.layers." + std::to_string(i);
    const std::string out = names::layer("decoder", static_cast<int>(i));
    HEED_RETURN_IF_ERROR(m.take(in + ".input_layernorm.weight", out + ".self_attn.norm.gamma", {d}, false));
    // Q, K (rows reordered for heed's interleaved RoPE) and V stacked into one qkv projection.
    std::vector<float> qkv, qkv_bias, v;
    HEED_RETURN_IF_ERROR(take_rope_projection(m, in + ".self_attn.q_proj", h, hd, d, c.attention_bias, &qkv, &qkv_bias));
    HEED_RETURN_IF_ERROR(take_rope_projection(m, in + ".self_attn.k_proj", kvh, hd, d, c.attention_bias, &qkv, &qkv_bias));
    HEED_RETURN_IF_ERROR(m.values(in + ".self_attn.v_proj.weight", {kvh * hd, d}, &v));
    qkv.insert(qkv.end(), v.begin(), v.end());
    m.add(out + ".self_attn.qkv.weight", {(h + 2 * kvh) * hd, d}, qkv, true);
    HEED_RETURN_IF_ERROR(m.take(in + ".self_attn.o_proj.weight", out + ".self_attn.out.weight", {d, h * hd}, true));
    if (c.attention_bias) {
      HEED_RETURN_IF_ERROR(m.values(in + ".self_attn.v_proj.bias", {kvh * hd}, &v));
      qkv_bias.insert(qkv_bias.end(), v.begin(), v.end());
      m.add(out + ".self_attn.qkv.bias", {(h + 2 * kvh) * hd}, qkv_bias, false);
      HEED_RETURN_IF_ERROR(m.take(in + ".self_attn.o_proj.bias", out + ".self_attn.out.bias", {d}, false));
    }
    m.find(in + ".self_attn.rotary_emb.inv_freq");  // a buffer older saves include, recomputed by heed
    HEED_RETURN_IF_ERROR(m.take(in + ".post_attention_layernorm.weight", out + ".ffn.norm.gamma", {d}, false));
    HEED_RETURN_IF_ERROR(m.take(in + ".mlp.gate_proj.weight", out + ".ffn.in.weight", {f, d}, true));
    HEED_RETURN_IF_ERROR(m.take(in + ".mlp.up_proj.weight", out + ".ffn.gate.weight", {f, d}, true));
    HEED_RETURN_IF_ERROR(m.take(in + ".mlp.down_proj.weight", out + ".ffn.out.weight", {d, f}, true));
  }
  if (file.find("model.layers." + std::to_string(c.num_layers) + ".input_layernorm.weight")) {
    return m.corrupt("the weights have more layers than config.json's num_hidden_layers " +
                     std::to_string(c.num_layers));
  }
  return m.take("model.norm.weight", "decoder.norm.gamma", {d}, false);
}

// tokenizer.model: embedded whole; its pieces (in id order) are the vocabulary.
Status read_sentencepiece(const std::string& path, uint32_t vocab_size, fb::TokenizerT* tok) {
  HEED_RETURN_IF_ERROR(read_sentencepiece_model(path, &tok->target_model));
  sentencepiece::SentencePieceProcessor sp;
  try {
    const auto status = sp.LoadFromSerializedProto(
        std::string_view(reinterpret_cast<const char*>(tok->target_model.data()), tok->target_model.size()));
    if (!status.ok()) return invalid_file(path + ": not a SentencePiece model (" + status.ToString() + ")");
  } catch (const std::exception& e) {
    return invalid_file(path + ": not a SentencePiece model (" + std::string(e.what()) + ")");
  }
  const int n = sp.GetPieceSize();
  // Llama checkpoints may pad the embeddings beyond the tokenizer (rows that are never produced by
  // the tokenizer); more pieces than rows means the files do not belong together.
  if (n <= 0 || static_cast<uint32_t>(n) > vocab_size) {
    return invalid_file(path + ": " + std::to_string(n) + " pieces, but config.json's vocab_size is " +
                        std::to_string(vocab_size));
  }
  tok->target_vocabulary = std::make_unique<fb::VocabularyT>();
  auto& tokens = tok->target_vocabulary->tokens;
  for (int i = 0; i < n; ++i) tokens.push_back(sp.IdToPiece(i));
  // Padding rows get names no text encodes to.
  for (uint32_t i = static_cast<uint32_t>(n); i < vocab_size; ++i) tokens.push_back("<heed:padding:" + std::to_string(i) + ">");
  tok->unk_id = sp.unk_id();
  return Status::success();
}

}  // namespace

void interleave_rope_rows(const float* in, size_t heads, size_t head_dim, size_t cols, float* out) {
  // Why the converter permutes instead of the runtime rotating "half-split" pairs: q . k is the
  // same under any permutation of rows applied to both Q and K, so reordering here costs nothing
  // at run time, keeps the file format and the runtime's one RoPE layout (llama2.c and Meta's
  // checkpoints use it), and needs no new schema field every loader would have to validate.
  const size_t half = head_dim / 2;
  for (size_t h = 0; h < heads; ++h) {
    const float* src = in + h * head_dim * cols;
    float* dst = out + h * head_dim * cols;
    for (size_t j = 0; j < half; ++j) {
      std::copy(src + j * cols, src + (j + 1) * cols, dst + (2 * j) * cols);
      std::copy(src + (half + j) * cols, src + (half + j + 1) * cols, dst + (2 * j + 1) * cols);
    }
  }
}

bool looks_like_gpt2(const std::string& dir) {
  return is_file(dir + "/model.safetensors") && model_type_of(dir) == "gpt2";
}

bool looks_like_llama(const std::string& dir) {
  return is_file(dir + "/model.safetensors") && model_type_of(dir) == "llama";
}

// The weights of a GPT-2 or Llama folder through the family's mapping, the output projection and
// the leftover check; sets the model's config.
using MapFamily = Status (*)(TensorMapper& m, const SafetensorsFile& file, const CausalLmConfig& c);
Status read_weights(const std::string& dir, const CausalLmConfig& c, MapFamily map_family, const char* what,
                    NeutralModel* model) {
  SafetensorsFile file;
  HEED_RETURN_IF_ERROR(open_weights(dir, &file));
  TensorMapper m(file, model);
  HEED_RETURN_IF_ERROR(map_family(m, file, c));
  fb::TransformerDecoderOnlyT config;
  HEED_RETURN_IF_ERROR(map_output(m, c, &config));
  HEED_RETURN_IF_ERROR(m.check_all_used(what));
  config.decoder = stack_config(c);
  model->config.Set(std::move(config));
  return Status::success();
}

Status read_gpt2(const std::string& dir, NeutralModel* out) {
  CausalLmConfig c;
  HEED_RETURN_IF_ERROR(read_config(dir, Family::kGpt2, &c));
  NeutralModel model;
  HEED_RETURN_IF_ERROR(read_weights(dir, c, map_gpt2, "a GPT-2 model heed understands", &model));

  fb::TokenizerT& tok = model.tokenizer;
  tok.kind = fb::TokenizerKind::ByteLevelBPE;
  tok.target_vocabulary = std::make_unique<fb::VocabularyT>();
  HEED_RETURN_IF_ERROR(read_gpt2_tokenizer(dir, c.vocab_size, &tok));
  tok.bos_id = -1;  // GPT-2's tokenizer adds no start token: generation starts from the prompt
  tok.eos_id = c.eos_token_id;
  tok.unk_id = -1;
  set_producer(dir, c, "hf-gpt2", &model);
  *out = std::move(model);
  return Status::success();
}

Status read_llama(const std::string& dir, NeutralModel* out) {
  CausalLmConfig c;
  HEED_RETURN_IF_ERROR(read_config(dir, Family::kLlama, &c));
  if (c.bos_token_id < 0 && is_file(dir + "/tokenizer.model")) {
    return invalid_file(dir + "/config.json: missing 'bos_token_id' (Llama starts from it)");
  }
  const std::string spm = dir + "/tokenizer.model";
  if (!is_file(spm) && !is_file(dir + "/tokenizer.json")) {
    return unsupported_model(dir + ": no tokenizer.model (Llama's SentencePiece model) or tokenizer.json");
  }
  NeutralModel model;
  HEED_RETURN_IF_ERROR(read_weights(dir, c, map_llama, "a Llama model heed understands", &model));

  fb::TokenizerT& tok = model.tokenizer;
  tok.bos_id = c.bos_token_id;
  if (is_file(spm)) {
    tok.kind = fb::TokenizerKind::SentencePiece;
    HEED_RETURN_IF_ERROR(read_sentencepiece(spm, c.vocab_size, &tok));
  } else {
    // A byte-level BPE tokenizer.json (SmolLM, Llama 3): the start token is the one its
    // post-processor adds, none when it adds none (generation then starts from the prompt).
    HEED_RETURN_IF_ERROR(read_byte_level_tokenizer_json(dir, c.vocab_size, &tok, &tok.bos_id));
  }
  tok.eos_id = c.eos_token_id;
  set_producer(dir, c, "hf-llama", &model);
  *out = std::move(model);
  return Status::success();
}

}  // namespace heed::convert::hf_causal_lm
