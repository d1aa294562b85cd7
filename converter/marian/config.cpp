#include "marian/config.h"


#include <nlohmann/json.hpp>

#include "json_fields.h"
#include "source_files.h"

namespace heed::convert::marian {
namespace {

Status get_id(const nlohmann::json& j, const std::string& where, const char* key, int32_t* out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::success();
  if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() >= (1 << 24)) {
    return invalid_file(where + ": '" + key + "' must be a token id");
  }
  *out = static_cast<int32_t>(it->get<int64_t>());
  return Status::success();
}

Status get_bool(const nlohmann::json& j, const std::string& where, const char* key, bool* out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::success();
  if (!it->is_boolean()) return invalid_file(where + ": '" + key + "' must be true or false");
  *out = it->get<bool>();
  return Status::success();
}

Status get_string(const nlohmann::json& j, const std::string& where, const char* key, std::string* out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::success();
  // Special tokens may be written as {"content": "<unk>", ...} (AddedToken).
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) {
    *out = (*it)["content"].get<std::string>();
    return Status::success();
  }
  if (!it->is_string()) return invalid_file(where + ": '" + key + "' must be a string");
  *out = it->get<std::string>();
  return Status::success();
}

// generate() never emits a token of a one-token bad_words_ids entry (Marian configs list <pad>).
Status get_suppressed(const nlohmann::json& j, const std::string& where, std::vector<int32_t>* out) {
  const auto it = j.find("bad_words_ids");
  if (it == j.end() || it->is_null()) return Status::success();
  if (!it->is_array()) return invalid_file(where + ": 'bad_words_ids' must be a list of token id lists");
  out->clear();
  for (const auto& seq : *it) {
    if (!seq.is_array()) return invalid_file(where + ": 'bad_words_ids' must be a list of token id lists");
    if (seq.size() != 1) {
      return unsupported_model(where + ": 'bad_words_ids' has a sequence of " + std::to_string(seq.size()) +
                               " tokens; heed supports single-token entries only");
    }
    if (!seq[0].is_number_integer() || seq[0].get<int64_t>() < 0 || seq[0].get<int64_t>() >= (1 << 24)) {
      return invalid_file(where + ": 'bad_words_ids' holds something that is not a token id");
    }
    out->push_back(static_cast<int32_t>(seq[0].get<int64_t>()));
  }
  return Status::success();
}

// Newer saves keep generation settings in generation_config.json; they win over config.json's.
Status read_generation_config(const std::string& dir, MarianConfig* c) {
  const std::string generation = dir + "/generation_config.json";
  if (is_file(generation)) {
    nlohmann::json g;
    HEED_RETURN_IF_ERROR(read_json(generation, &g));
    HEED_RETURN_IF_ERROR(get_id(g, generation, "decoder_start_token_id", &c->decoder_start_token_id));
    HEED_RETURN_IF_ERROR(get_id(g, generation, "forced_eos_token_id", &c->forced_eos_token_id));
    HEED_RETURN_IF_ERROR(get_suppressed(g, generation, &c->suppressed_ids));
  }
  return Status::success();
}

// The languages, unknown token and vocabulary split of tokenizer_config.json, when present.
Status read_tokenizer_config(const std::string& dir, MarianConfig* c) {
  const std::string tokenizer = dir + "/tokenizer_config.json";
  if (is_file(tokenizer)) {
    nlohmann::json t;
    HEED_RETURN_IF_ERROR(read_json(tokenizer, &t));
    HEED_RETURN_IF_ERROR(get_string(t, tokenizer, "source_lang", &c->source_lang));
    HEED_RETURN_IF_ERROR(get_string(t, tokenizer, "target_lang", &c->target_lang));
    HEED_RETURN_IF_ERROR(get_string(t, tokenizer, "unk_token", &c->unk_token));
    HEED_RETURN_IF_ERROR(get_bool(t, tokenizer, "separate_vocabs", &c->separate_vocabs));
  }
  return Status::success();
}

}  // namespace

Status read_config(const std::string& dir, MarianConfig* out) {
  const std::string path = dir + "/config.json";
  if (!is_file(path)) return invalid_argument("'" + dir + "' has no config.json: not a Hugging Face model folder");
  nlohmann::json j;
  HEED_RETURN_IF_ERROR(read_json(path, &j));
  std::string model_type;
  HEED_RETURN_IF_ERROR(get_string(j, path, "model_type", &model_type));
  if (model_type != "marian") {
    return unsupported_model(path + ": model_type is '" + model_type + "', expected 'marian' (--from hf-marian)");
  }

  MarianConfig c;
  HEED_RETURN_IF_ERROR(get_count(j, path, "vocab_size", true, &c.vocab_size));
  c.decoder_vocab_size = c.vocab_size;
  HEED_RETURN_IF_ERROR(get_count(j, path, "decoder_vocab_size", false, &c.decoder_vocab_size));
  HEED_RETURN_IF_ERROR(get_count(j, path, "d_model", true, &c.d_model));
  HEED_RETURN_IF_ERROR(get_count(j, path, "encoder_layers", true, &c.encoder_layers));
  HEED_RETURN_IF_ERROR(get_count(j, path, "decoder_layers", true, &c.decoder_layers));
  HEED_RETURN_IF_ERROR(get_count(j, path, "encoder_attention_heads", true, &c.encoder_heads));
  HEED_RETURN_IF_ERROR(get_count(j, path, "decoder_attention_heads", true, &c.decoder_heads));
  HEED_RETURN_IF_ERROR(get_count(j, path, "encoder_ffn_dim", true, &c.encoder_ffn_dim));
  HEED_RETURN_IF_ERROR(get_count(j, path, "decoder_ffn_dim", true, &c.decoder_ffn_dim));
  // MarianConfig's own default when the field is absent.
  c.max_position_embeddings = 1024;
  HEED_RETURN_IF_ERROR(get_count(j, path, "max_position_embeddings", false, &c.max_position_embeddings));
  c.activation = "gelu";
  HEED_RETURN_IF_ERROR(get_string(j, path, "activation_function", &c.activation));
  HEED_RETURN_IF_ERROR(get_bool(j, path, "scale_embedding", &c.scale_embedding));
  HEED_RETURN_IF_ERROR(get_bool(j, path, "share_encoder_decoder_embeddings", &c.share_encoder_decoder_embeddings));
  HEED_RETURN_IF_ERROR(get_bool(j, path, "tie_word_embeddings", &c.tie_word_embeddings));
  c.pad_token_id = 58100;  // MarianConfig's defaults (the OPUS-MT vocabulary)
  c.eos_token_id = 0;
  c.decoder_start_token_id = 58100;
  HEED_RETURN_IF_ERROR(get_id(j, path, "pad_token_id", &c.pad_token_id));
  HEED_RETURN_IF_ERROR(get_id(j, path, "eos_token_id", &c.eos_token_id));
  HEED_RETURN_IF_ERROR(get_id(j, path, "decoder_start_token_id", &c.decoder_start_token_id));
  HEED_RETURN_IF_ERROR(get_id(j, path, "forced_eos_token_id", &c.forced_eos_token_id));
  HEED_RETURN_IF_ERROR(get_suppressed(j, path, &c.suppressed_ids));
  if (c.d_model % c.encoder_heads != 0 || c.d_model % c.decoder_heads != 0) {
    return invalid_file(path + ": d_model " + std::to_string(c.d_model) + " is not divisible by the attention heads");
  }

  HEED_RETURN_IF_ERROR(read_generation_config(dir, &c));
  HEED_RETURN_IF_ERROR(read_tokenizer_config(dir, &c));
  *out = std::move(c);
  return Status::success();
}

}  // namespace heed::convert::marian
