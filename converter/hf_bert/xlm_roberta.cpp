#include "hf_bert/xlm_roberta.h"

#include "json_fields.h"
#include "source_files.h"
#include "tokenizer_json.h"

namespace heed::convert::hf_bert {

bool is_xlm_roberta_type(const std::string& model_type) { return model_type == "xlm-roberta"; }

bool looks_like_xlm_roberta(const std::string& dir) {
  if (!is_file(dir + "/config.json") || !is_file(dir + "/tokenizer.json")) return false;
  nlohmann::json j;
  if (!read_json(dir + "/config.json", &j)) return false;
  const auto type = j.find("model_type");
  return type != j.end() && type->is_string() && is_xlm_roberta_type(type->get<std::string>());
}

Status xlm_roberta_position_offset(const nlohmann::json& config, const std::string& path, uint32_t* offset) {
  const auto pad = config.find("pad_token_id");
  if (pad == config.end() || pad->is_null()) {
    *offset = 2;  // XLMRobertaConfig's pad_token_id 1
    return Status::success();
  }
  if (!pad->is_number_unsigned() || pad->get<uint64_t>() > 4096) {
    return invalid_file(path + ": 'pad_token_id' must be a whole number from 0 to 4096");
  }
  *offset = static_cast<uint32_t>(pad->get<uint64_t>()) + 1;
  return Status::success();
}

Status take_offset_positions(TensorMapper& m, uint32_t offset, uint64_t d, uint32_t* max_positions) {
  if (offset + 1 >= *max_positions) {
    return m.corrupt("max_position_embeddings " + std::to_string(*max_positions) + " leaves no position after pad_token_id + 1 = " +
                     std::to_string(offset));
  }
  std::vector<float> table;
  HEED_RETURN_IF_ERROR(m.values("embeddings.position_embeddings.weight", {*max_positions, d}, &table));
  table.erase(table.begin(), table.begin() + static_cast<std::ptrdiff_t>(offset * d));
  *max_positions -= offset;
  m.add("encoder.positions", {*max_positions, d}, table, false);
  return Status::success();
}

Status read_xlm_roberta_tokenizer(const std::string& dir, uint32_t vocab_size, const nlohmann::json& tc,
                                  fb::TokenizerT* out) {
  const std::string path = dir + "/tokenizer.json";
  if (!is_file(path)) return invalid_file(dir + ": no tokenizer.json (heed reads XLM-RoBERTa's tokenizer from it)");
  TokenizerJson t;
  HEED_RETURN_IF_ERROR(read_tokenizer_json(path, vocab_size, &t));
  if (t.kind != TokenizerJson::Kind::kUnigram) {
    return unsupported_model(path + ": not a Unigram tokenizer; heed reads XLM-RoBERTa models with their Unigram tokenizer");
  }
  if (t.start_id < 0 || t.end_id < 0) {
    return unsupported_model(path + ": the post-processor puts no token before and after the text (XLM-RoBERTa's <s> ... </s>)");
  }
  std::string pad = "<pad>";
  const auto it = tc.find("pad_token");
  if (it != tc.end() && it->is_string()) pad = it->get<std::string>();
  if (it != tc.end() && it->is_object() && it->contains("content") && (*it)["content"].is_string()) pad = (*it)["content"].get<std::string>();
  unigram_tokenizer_section(std::move(t), pad, out);
  return Status::success();
}

}  // namespace heed::convert::hf_bert
