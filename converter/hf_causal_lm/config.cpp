#include "hf_causal_lm/config.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "json_fields.h"
#include "source_files.h"

namespace heed::convert::hf_causal_lm {
namespace {

bool present(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && !it->is_null();
}

// A token id; Llama 3 style lists of end ids give their first (heed stops at one end token).
Status get_id(const nlohmann::json& j, const std::string& where, const char* key, int32_t* out) {
  if (!present(j, key)) return Status::success();
  const nlohmann::json* v = &j[key];
  if (v->is_array()) {
    if (v->empty()) return Status::success();
    v = &(*v)[0];
  }
  if (!v->is_number_integer() || v->get<int64_t>() < 0 || v->get<int64_t>() >= (1 << 24)) {
    return invalid_file(where + ": '" + key + "' must be a token id");
  }
  *out = static_cast<int32_t>(v->get<int64_t>());
  return Status::success();
}

Status get_bool(const nlohmann::json& j, const std::string& where, const char* key, bool* out) {
  if (!present(j, key)) return Status::success();
  if (!j[key].is_boolean()) return invalid_file(where + ": '" + key + "' must be true or false");
  *out = j[key].get<bool>();
  return Status::success();
}

Status get_float(const nlohmann::json& j, const std::string& where, const char* key, float* out) {
  if (!present(j, key)) return Status::success();
  if (!j[key].is_number() || !std::isfinite(j[key].get<double>()) || j[key].get<double>() < 0) {
    return invalid_file(where + ": '" + key + "' must be a non-negative number");
  }
  *out = static_cast<float>(j[key].get<double>());
  return Status::success();
}

Status get_string(const nlohmann::json& j, const std::string& where, const char* key, std::string* out) {
  if (!present(j, key)) return Status::success();
  if (!j[key].is_string()) return invalid_file(where + ": '" + key + "' must be a string");
  *out = j[key].get<std::string>();
  return Status::success();
}

// transformers' ACT2FN names that heed's kernels compute exactly.
Status read_activation(const std::string& where, const std::string& name, fb::Activation* out) {
  if (name == "silu" || name == "swish") {
    *out = fb::Activation::SiLU;
  } else if (name == "gelu") {
    *out = fb::Activation::GELU;
  } else if (name == "gelu_new" || name == "gelu_pytorch_tanh") {
    *out = fb::Activation::GELUTanh;
  } else if (name == "relu") {
    *out = fb::Activation::ReLU;
  } else {
    return unsupported_model(where + ": activation '" + name +
                             "' is not supported (silu, swish, gelu, gelu_new, gelu_pytorch_tanh, relu)");
  }
  return Status::success();
}

// A boolean setting heed only runs with one value.
Status require_bool(const nlohmann::json& j, const std::string& where, const char* key, bool wanted) {
  bool value = wanted;
  HEED_RETURN_IF_ERROR(get_bool(j, where, key, &value));
  if (value != wanted) {
    return unsupported_model(where + ": '" + key + "': " + (value ? "true" : "false") + " is not supported");
  }
  return Status::success();
}

Status read_gpt2(const nlohmann::json& j, const std::string& path, CausalLmConfig* c) {
  HEED_RETURN_IF_ERROR(get_count(j, path, "vocab_size", true, &c->vocab_size));
  HEED_RETURN_IF_ERROR(get_count(j, path, "n_embd", true, &c->hidden_size));
  HEED_RETURN_IF_ERROR(get_count(j, path, "n_layer", true, &c->num_layers));
  HEED_RETURN_IF_ERROR(get_count(j, path, "n_head", true, &c->num_heads));
  HEED_RETURN_IF_ERROR(get_count(j, path, "n_positions", true, &c->max_positions));
  c->ffn_dim = 4 * c->hidden_size;  // GPT2Config: n_inner null means 4 * n_embd
  HEED_RETURN_IF_ERROR(get_count(j, path, "n_inner", false, &c->ffn_dim));
  HEED_RETURN_IF_ERROR(get_float(j, path, "layer_norm_epsilon", &c->norm_epsilon));
  c->activation_name = "gelu_new";
  HEED_RETURN_IF_ERROR(get_string(j, path, "activation_function", &c->activation_name));
  HEED_RETURN_IF_ERROR(read_activation(path, c->activation_name, &c->activation));
  c->tie_word_embeddings = true;
  HEED_RETURN_IF_ERROR(get_bool(j, path, "tie_word_embeddings", &c->tie_word_embeddings));
  // Variants of the attention that change its results.
  HEED_RETURN_IF_ERROR(require_bool(j, path, "scale_attn_weights", true));
  HEED_RETURN_IF_ERROR(require_bool(j, path, "scale_attn_by_inverse_layer_idx", false));
  HEED_RETURN_IF_ERROR(require_bool(j, path, "add_cross_attention", false));
  c->num_kv_heads = c->num_heads;
  return Status::success();
}

Status read_llama(const nlohmann::json& j, const std::string& path, CausalLmConfig* c) {
  HEED_RETURN_IF_ERROR(get_count(j, path, "vocab_size", true, &c->vocab_size));
  HEED_RETURN_IF_ERROR(get_count(j, path, "hidden_size", true, &c->hidden_size));
  HEED_RETURN_IF_ERROR(get_count(j, path, "num_hidden_layers", true, &c->num_layers));
  HEED_RETURN_IF_ERROR(get_count(j, path, "num_attention_heads", true, &c->num_heads));
  HEED_RETURN_IF_ERROR(get_count(j, path, "intermediate_size", true, &c->ffn_dim));
  c->max_positions = 2048;  // LlamaConfig's default
  HEED_RETURN_IF_ERROR(get_count(j, path, "max_position_embeddings", false, &c->max_positions));
  c->num_kv_heads = c->num_heads;
  HEED_RETURN_IF_ERROR(get_count(j, path, "num_key_value_heads", false, &c->num_kv_heads));
  HEED_RETURN_IF_ERROR(get_count(j, path, "head_dim", false, &c->head_dim));
  c->norm_epsilon = 1e-6f;  // LlamaConfig's default
  HEED_RETURN_IF_ERROR(get_float(j, path, "rms_norm_eps", &c->norm_epsilon));
  HEED_RETURN_IF_ERROR(get_float(j, path, "rope_theta", &c->rope_theta));
  if (!(c->rope_theta > 0.0f)) return invalid_file(path + ": 'rope_theta' must be positive");
  if (present(j, "rope_scaling")) {
    return unsupported_model(path + ": 'rope_scaling' (" + j["rope_scaling"].dump() +
                             ") is not supported; heed runs RoPE without scaling");
  }
  c->activation_name = "silu";
  HEED_RETURN_IF_ERROR(get_string(j, path, "hidden_act", &c->activation_name));
  HEED_RETURN_IF_ERROR(read_activation(path, c->activation_name, &c->activation));
  HEED_RETURN_IF_ERROR(get_bool(j, path, "tie_word_embeddings", &c->tie_word_embeddings));
  HEED_RETURN_IF_ERROR(get_bool(j, path, "attention_bias", &c->attention_bias));
  HEED_RETURN_IF_ERROR(require_bool(j, path, "mlp_bias", false));
  if (c->num_heads % c->num_kv_heads != 0) {
    return invalid_file(path + ": num_key_value_heads " + std::to_string(c->num_kv_heads) +
                        " does not divide num_attention_heads " + std::to_string(c->num_heads));
  }
  return Status::success();
}

}  // namespace

std::string model_type_of(const std::string& dir) {
  const std::string path = dir + "/config.json";
  if (!is_file(path)) return "";
  nlohmann::json j;
  if (!read_json(path, &j).is_ok()) return "";
  std::string type;
  return get_string(j, path, "model_type", &type).is_ok() ? type : "";
}

Status read_config(const std::string& dir, Family expected, CausalLmConfig* out) {
  const std::string path = dir + "/config.json";
  if (!is_file(path)) return invalid_argument("'" + dir + "' has no config.json: not a Hugging Face model folder");
  nlohmann::json j;
  HEED_RETURN_IF_ERROR(read_json(path, &j));
  CausalLmConfig c;
  c.family = expected;
  HEED_RETURN_IF_ERROR(get_string(j, path, "model_type", &c.model_type));
  const char* wanted = expected == Family::kGpt2 ? "gpt2" : "llama";
  if (c.model_type != wanted) {
    return unsupported_model(path + ": model_type is '" + c.model_type + "', expected '" + wanted + "' (--from hf-" +
                             wanted + ")");
  }
  HEED_RETURN_IF_ERROR(expected == Family::kGpt2 ? read_gpt2(j, path, &c) : read_llama(j, path, &c));
  if (c.head_dim == 0) {
    if (c.hidden_size % c.num_heads != 0) {
      return invalid_file(path + ": the hidden size " + std::to_string(c.hidden_size) +
                          " is not divisible by the attention heads " + std::to_string(c.num_heads));
    }
    c.head_dim = c.hidden_size / c.num_heads;
  }
  if (expected == Family::kLlama && c.head_dim % 2 != 0) {
    return invalid_file(path + ": RoPE needs an even head size, not " + std::to_string(c.head_dim));
  }
  HEED_RETURN_IF_ERROR(get_id(j, path, "bos_token_id", &c.bos_token_id));
  HEED_RETURN_IF_ERROR(get_id(j, path, "eos_token_id", &c.eos_token_id));
  // Newer saves keep the special ids in generation_config.json too; they win.
  const std::string generation = dir + "/generation_config.json";
  if (is_file(generation)) {
    nlohmann::json g;
    HEED_RETURN_IF_ERROR(read_json(generation, &g));
    HEED_RETURN_IF_ERROR(get_id(g, generation, "bos_token_id", &c.bos_token_id));
    HEED_RETURN_IF_ERROR(get_id(g, generation, "eos_token_id", &c.eos_token_id));
  }
  for (int32_t id : {c.bos_token_id, c.eos_token_id}) {
    if (id >= static_cast<int32_t>(c.vocab_size)) {
      return invalid_file(path + ": special token id " + std::to_string(id) + " is outside the vocabulary of " +
                          std::to_string(c.vocab_size));
    }
  }
  if (c.eos_token_id < 0) return invalid_file(path + ": missing 'eos_token_id' (heed needs an end token)");
  *out = std::move(c);
  return Status::success();
}

}  // namespace heed::convert::hf_causal_lm
