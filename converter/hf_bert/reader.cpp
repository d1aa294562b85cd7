#include "hf_bert/reader.h"

#include "hf_bert/mpnet.h"
#include "hf_bert/xlm_roberta.h"

#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "heed_format/tensor_names.h"
#include "json_fields.h"
#include "safetensors.h"
#include "tensor_mapper.h"
#include "source_files.h"
#include "tokenizer_json.h"

#ifndef HEED_VERSION
#define HEED_VERSION "unknown"
#endif

namespace heed::convert::hf_bert {
namespace {

std::string get_string(const nlohmann::json& j, const char* key, const std::string& fallback) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (it->is_string()) return it->get<std::string>();
  // Newer tokenizer configs write special tokens as {"content": "[UNK]", ...}.
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) return (*it)["content"].get<std::string>();
  return fallback;
}

struct BertConfig {
  std::string model_type;          // "bert", "xlm-roberta" (xlm_roberta.h) or "mpnet" (mpnet.h)
  uint32_t position_offset = 0;    // the position rows a sentence skips (XLM-RoBERTa: pad_token_id + 1)
  uint32_t relative_buckets = 0, relative_max_distance = 0;  // MPNet's relative position bias
  uint32_t vocab_size = 0, hidden_size = 0, layers = 0, heads = 0, intermediate = 0;
  uint32_t max_positions = 512, type_vocab_size = 2;
  float layer_norm_eps = 1e-12f;
  fb::Activation activation = fb::Activation::GELU;
  std::string hidden_act = "gelu";
  // The task head config.json's "architectures" names (BertForSequenceClassification,
  // BertForMaskedLM); any other BERT keeps the encoder alone.
  fb::EncoderHead head = fb::EncoderHead::None;
  std::vector<std::string> labels;  // id2label, by id ("" where none: LABEL_<id>, as transformers names them)
  fb::ClassifierFunction function = fb::ClassifierFunction::Softmax;
};

// id2label ({"0": "negative", ...}) as names by id; an absent id2label leaves the count to the
// classifier's weight.
Status read_labels(const nlohmann::json& j, const std::string& path, std::vector<std::string>* labels) {
  const auto it = j.find("id2label");
  if (it == j.end() || it->is_null()) return Status::success();
  if (!it->is_object() || it->empty() || it->size() > (size_t{1} << 16)) {
    return invalid_file(path + ": 'id2label' must be an object of 1 to 65536 labels");
  }
  labels->assign(it->size(), "");
  for (const auto& [key, value] : it->items()) {
    size_t used = 0;
    unsigned long id = 0;
    try {
      id = std::stoul(key, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != key.size() || id >= labels->size() || !value.is_string() || !(*labels)[id].empty()) {
      return invalid_file(path + ": 'id2label' must map each id 0.." + std::to_string(labels->size() - 1) +
                          " to one label name (entry '" + key + "')");
    }
    (*labels)[id] = value.get<std::string>();
  }
  return Status::success();
}

// The head and, for classifiers, labels and the function transformers' pipeline applies
// (regression: none; multi-label or one label: sigmoid; otherwise softmax).
Status read_head_config(const nlohmann::json& j, const std::string& path, BertConfig* c) {
  const auto arch = j.find("architectures");
  if (arch == j.end() || !arch->is_array() || arch->empty() || !(*arch)[0].is_string()) return Status::success();
  const std::string name = (*arch)[0].get<std::string>();
  if (name == "BertForMaskedLM") c->head = fb::EncoderHead::MaskedLM;
  if (name != "BertForSequenceClassification") return Status::success();
  c->head = fb::EncoderHead::SequenceClassification;
  HEED_RETURN_IF_ERROR(read_labels(j, path, &c->labels));
  const std::string problem = get_string(j, "problem_type", "");
  if (problem == "regression") {
    c->function = fb::ClassifierFunction::Identity;
  } else if (problem == "multi_label_classification" || c->labels.size() == 1) {
    c->function = fb::ClassifierFunction::Sigmoid;
  } else if (!problem.empty() && problem != "single_label_classification") {
    return unsupported_model(path + ": problem_type '" + problem + "' is not supported");
  }
  return Status::success();
}

Status read_config(const std::string& dir, BertConfig* c) {
  const std::string path = dir + "/config.json";
  nlohmann::json j;
  HEED_RETURN_IF_ERROR(read_json(path, &j));
  c->model_type = get_string(j, "model_type", "");
  if (is_xlm_roberta_type(c->model_type)) {
    c->type_vocab_size = 1;
    HEED_RETURN_IF_ERROR(xlm_roberta_position_offset(j, path, &c->position_offset));
  } else if (is_mpnet_type(c->model_type)) {
    c->type_vocab_size = 0;
    c->position_offset = kMpnetPositionOffset;
    HEED_RETURN_IF_ERROR(read_mpnet_config(j, path, &c->relative_buckets, &c->relative_max_distance));
  } else if (c->model_type != "bert") {
    return unsupported_model(path + ": model_type '" + c->model_type +
                             "' is not a BERT model (--from hf-bert reads model_type bert, --from hf-xlm-roberta "
                             "xlm-roberta, --from hf-mpnet mpnet)");
  }
  HEED_RETURN_IF_ERROR(get_count(j, path, "vocab_size", true, &c->vocab_size));
  HEED_RETURN_IF_ERROR(get_count(j, path, "hidden_size", true, &c->hidden_size));
  HEED_RETURN_IF_ERROR(get_count(j, path, "num_hidden_layers", true, &c->layers));
  HEED_RETURN_IF_ERROR(get_count(j, path, "num_attention_heads", true, &c->heads));
  HEED_RETURN_IF_ERROR(get_count(j, path, "intermediate_size", true, &c->intermediate));
  HEED_RETURN_IF_ERROR(get_count(j, path, "max_position_embeddings", false, &c->max_positions));
  HEED_RETURN_IF_ERROR(get_count(j, path, "type_vocab_size", false, &c->type_vocab_size));
  if (c->hidden_size % c->heads != 0) {
    return invalid_file(path + ": hidden_size " + std::to_string(c->hidden_size) + " is not a multiple of num_attention_heads " +
                        std::to_string(c->heads));
  }
  const auto eps = j.find("layer_norm_eps");
  if (eps != j.end() && !eps->is_null()) {
    if (!eps->is_number() || !(eps->get<double>() >= 0.0) || eps->get<double>() > 1.0) {
      return invalid_file(path + ": 'layer_norm_eps' must be a number in [0, 1]");
    }
    c->layer_norm_eps = static_cast<float>(eps->get<double>());
  }
  const std::string positions = get_string(j, "position_embedding_type", "absolute");
  if (positions != "absolute") {
    return unsupported_model(path + ": position_embedding_type '" + positions + "' is not supported (absolute)");
  }
  c->hidden_act = get_string(j, "hidden_act", "gelu");
  if (c->hidden_act == "gelu") {
    c->activation = fb::Activation::GELU;
  } else if (c->hidden_act == "gelu_new" || c->hidden_act == "gelu_pytorch_tanh") {
    c->activation = fb::Activation::GELUTanh;
  } else if (c->hidden_act == "relu") {
    c->activation = fb::Activation::ReLU;
  } else if (c->hidden_act == "silu" || c->hidden_act == "swish") {
    c->activation = fb::Activation::SiLU;
  } else {
    return unsupported_model(path + ": hidden_act '" + c->hidden_act + "' is not supported (gelu, gelu_new, relu, silu)");
  }
  return read_head_config(j, path, c);
}

// vocab.txt: line i is the entry of id i (BertTokenizer strips only the newline).
Status read_vocab(const std::string& path, uint32_t vocab_size, std::vector<std::string>* out) {
  std::string text;
  HEED_RETURN_IF_ERROR(read_text(path, &text));
  std::istringstream in(text);
  std::vector<std::string> tokens;
  std::string line;
  while (std::getline(in, line)) tokens.push_back(line);
  if (tokens.size() > vocab_size) {
    return invalid_file(path + ": " + std::to_string(tokens.size()) + " entries, but the model's embeddings have only " +
                        std::to_string(vocab_size) + " rows");
  }
  // Some models pad their embedding table beyond the vocabulary; those rows get names no text
  // can produce.
  for (size_t i = tokens.size(); i < vocab_size; ++i) tokens.push_back("[heed:unused" + std::to_string(i) + "]");
  *out = std::move(tokens);
  return Status::success();
}

int32_t find_token(const std::vector<std::string>& tokens, const std::string& token) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] == token) return static_cast<int32_t>(i);
  }
  return -1;
}


// What a sentence-embedding encoder never reads, which the leftover check lets pass: the pooler,
// task heads and the position_ids buffer older saves contain.
bool unused_by_encoders(const std::string& prefix, const std::string& n) {
  const std::string local = n.compare(0, prefix.size(), prefix) == 0 ? n.substr(prefix.size()) : n;
  return local.rfind("pooler.", 0) == 0 || n.rfind("cls.", 0) == 0 || n.rfind("classifier.", 0) == 0 ||
         n.rfind("qa_outputs.", 0) == 0 || n.rfind("lm_head.", 0) == 0 || local == "embeddings.position_ids";
}

// sentence-transformers' 1_Pooling/config.json: the pooling the embeddings were trained with.
Status read_pooling(const std::string& dir, std::string* pooling) {
  const std::string path = dir + "/1_Pooling/config.json";
  if (!is_file(path)) return Status::success();
  nlohmann::json j;
  HEED_RETURN_IF_ERROR(read_json(path, &j));
  const auto flag = [&](const char* key) { return j.contains(key) && j[key].is_boolean() && j[key].get<bool>(); };
  if (flag("pooling_mode_mean_tokens")) {
    *pooling = "mean";
  } else if (flag("pooling_mode_cls_token")) {
    *pooling = "cls";
  } else {
    return unsupported_model(path + ": only mean or CLS pooling is supported");
  }
  return Status::success();
}

// What a sentence-transformers folder adds to the encoder: modules.json lists the pipeline (heed
// runs Transformer, Pooling and Normalize; any other module, such as Dense, would change the
// embeddings, so the folder is refused rather than converted half), and
// sentence_bert_config.json the length the model was trained to read (max_seq_length).
Status read_sentence_transformers(const std::string& dir, NeutralModel* model) {
  const std::string modules_path = dir + "/modules.json";
  if (is_file(modules_path)) {
    nlohmann::json modules;
    HEED_RETURN_IF_ERROR(read_json_value(modules_path, &modules));
    if (!modules.is_array()) return invalid_file(modules_path + ": not a list of modules");
    bool normalize = false;
    for (const auto& m : modules) {
      const std::string type = m.is_object() && m.contains("type") && m["type"].is_string() ? m["type"].get<std::string>() : "";
      if (type == "sentence_transformers.models.Normalize") {
        normalize = true;
      } else if (type != "sentence_transformers.models.Transformer" && type != "sentence_transformers.models.Pooling") {
        return unsupported_model(modules_path + ": module '" + type +
                                 "' is not one heed runs (Transformer, Pooling and Normalize are)");
      }
    }
    if (normalize) model->metadata.emplace_back("embedding.normalize", "true");
  }
  const std::string config_path = dir + "/sentence_bert_config.json";
  if (is_file(config_path)) {
    nlohmann::json j;
    HEED_RETURN_IF_ERROR(read_json(config_path, &j));
    if (j.contains("max_seq_length")) {
      if (!j["max_seq_length"].is_number_unsigned() || j["max_seq_length"].get<uint64_t>() < 2 ||
          j["max_seq_length"].get<uint64_t>() > (uint64_t{1} << 20)) {
        return invalid_file(config_path + ": max_seq_length must be a whole number from 2 to 1048576");
      }
      model->metadata.emplace_back("embedding.max_length", std::to_string(j["max_seq_length"].get<uint64_t>()));
    }
  }
  return Status::success();
}

}  // namespace

bool looks_like_model(const std::string& dir) {
  if (!is_file(dir + "/config.json") || !(is_file(dir + "/vocab.txt") || is_file(dir + "/tokenizer.json"))) return false;
  nlohmann::json j;
  if (!read_json(dir + "/config.json", &j)) return false;
  return get_string(j, "model_type", "") == "bert";
}

namespace {

// One layer's attention, feed-forward and norms; `in` is its name in the file, `o` in heed's.
Status map_layer(TensorMapper& m, const BertConfig& c, const std::string& in, const std::string& o) {
  const uint64_t d = c.hidden_size, f = c.intermediate;
  const AttentionTensorNames& a = is_mpnet_type(c.model_type) ? kMpnetAttention : kBertAttention;
  HEED_RETURN_IF_ERROR(m.take_stacked({in + a.query, in + a.key, in + a.value}, o + ".self_attn.qkv", d, d));
  HEED_RETURN_IF_ERROR(m.take_linear(in + a.out, o + ".self_attn.out", d, d));
  HEED_RETURN_IF_ERROR(m.take_norm(in + a.norm, o + ".self_attn.norm", d));
  HEED_RETURN_IF_ERROR(m.take_linear(in + "intermediate.dense", o + ".ffn.in", f, d));
  HEED_RETURN_IF_ERROR(m.take_linear(in + "output.dense", o + ".ffn.out", d, f));
  return m.take_norm(in + "output.LayerNorm", o + ".ffn.norm", d);
}

// Embeddings (word, position, token type 0 when the file has them), every encoder layer and
// MPNet's relative position bias.
Status map_tensors(TensorMapper& m, BertConfig* c) {
  const uint64_t d = c->hidden_size;
  HEED_RETURN_IF_ERROR(m.take("embeddings.word_embeddings.weight", "encoder.embeddings", {c->vocab_size, d}, true));
  if (c->position_offset > 0) {
    HEED_RETURN_IF_ERROR(take_offset_positions(m, c->position_offset, d, &c->max_positions));
  } else {
    HEED_RETURN_IF_ERROR(m.take("embeddings.position_embeddings.weight", "encoder.positions", {c->max_positions, d}, false));
  }
  if (c->type_vocab_size > 0 && m.has("embeddings.token_type_embeddings.weight")) {
    HEED_RETURN_IF_ERROR(
        m.take("embeddings.token_type_embeddings.weight", "encoder.token_types", {c->type_vocab_size, d}, false));
  } else {
    c->type_vocab_size = 0;
  }
  HEED_RETURN_IF_ERROR(m.take_norm("embeddings.LayerNorm", "encoder.embedding_norm", d));
  for (uint32_t i = 0; i < c->layers; ++i) {
    HEED_RETURN_IF_ERROR(
        map_layer(m, *c, "encoder.layer." + std::to_string(i) + ".", names::layer("encoder", static_cast<int>(i))));
  }
  if (c->relative_buckets > 0) HEED_RETURN_IF_ERROR(take_relative_attention_bias(m, c->relative_buckets, c->heads));
  if (m.has("encoder.layer." + std::to_string(c->layers) + ".output.dense.weight")) {
    return m.corrupt("the file has more layers than config.json's " + std::to_string(c->layers));
  }
  return Status::success();
}

// BertForSequenceClassification: the pooler (under the model's prefix) and the classifier (outside
// it); labels from the classifier's rows when config.json names none.
Status map_classifier(TensorMapper& m, BertConfig* c) {
  const uint64_t d = c->hidden_size;
  HEED_RETURN_IF_ERROR(m.take_linear("pooler.dense", "encoder.pooler", d, d));
  m.set_prefix("");
  const SafetensorsTensor* w = m.find("classifier.weight");
  if (w == nullptr) return m.corrupt("BertForSequenceClassification without tensor 'classifier.weight'");
  if (c->labels.empty()) {
    if (w->shape.size() != 2 || w->shape[0] == 0 || w->shape[0] > (uint64_t{1} << 16)) {
      return m.corrupt("tensor 'classifier.weight' has shape " + shape_string(w->shape) + ", not [labels, hidden_size]");
    }
    c->labels.assign(w->shape[0], "");
  }
  for (size_t i = 0; i < c->labels.size(); ++i) {
    if (c->labels[i].empty()) c->labels[i] = "LABEL_" + std::to_string(i);
  }
  return m.take_linear("classifier", "encoder.classifier", c->labels.size(), d);
}

// BertForMaskedLM: cls.predictions' transform, LayerNorm and bias; its decoder weight is the word
// embeddings (tied, and then usually not saved) unless the file holds a different one.
Status map_masked_lm(TensorMapper& m, const BertConfig& c) {
  const uint64_t d = c.hidden_size, v = c.vocab_size;
  std::vector<float> embeddings, decoder;
  HEED_RETURN_IF_ERROR(m.values("embeddings.word_embeddings.weight", {v, d}, &embeddings));
  m.set_prefix("cls.predictions.");
  HEED_RETURN_IF_ERROR(m.take_linear("transform.dense", "encoder.mlm.transform", d, d));
  HEED_RETURN_IF_ERROR(m.take_norm("transform.LayerNorm", "encoder.mlm.norm", d));
  // "bias" and "decoder.bias" are one parameter; a file may hold either or both.
  HEED_RETURN_IF_ERROR(m.take(m.has("bias") ? "bias" : "decoder.bias", "encoder.mlm.output.bias", {v}, false));
  m.find("decoder.bias");
  if (!m.has("decoder.weight")) return Status::success();
  HEED_RETURN_IF_ERROR(m.values("decoder.weight", {v, d}, &decoder));
  if (decoder != embeddings) m.add("encoder.mlm.output.weight", {v, d}, decoder, true);
  return Status::success();
}

Status map_head(TensorMapper& m, BertConfig* c) {
  const std::string prefix = m.prefix();
  if (c->head == fb::EncoderHead::SequenceClassification) HEED_RETURN_IF_ERROR(map_classifier(m, c));
  if (c->head == fb::EncoderHead::MaskedLM) HEED_RETURN_IF_ERROR(map_masked_lm(m, *c));
  m.set_prefix(prefix);
  return Status::success();
}

void set_config(const BertConfig& c, NeutralModel* model) {
  fb::TransformerEncoderOnlyT config;
  config.encoder = std::make_unique<fb::TransformerStackT>();
  fb::TransformerStackT& s = *config.encoder;
  s.num_layers = c.layers;
  s.d_model = c.hidden_size;
  s.num_heads = c.heads;
  s.ffn_dim = c.intermediate;
  s.activation = c.activation;
  s.norm = fb::NormKind::LayerNorm;
  s.norm_epsilon = c.layer_norm_eps;
  s.pre_norm = false;
  s.final_norm = false;
  s.embedding_norm = true;
  s.position_encoding = fb::PositionEncoding::Learned;
  s.max_positions = c.max_positions;
  s.embedding_scale = 1.0f;
  s.vocab_size = c.vocab_size;
  config.type_vocab_size = c.type_vocab_size;
  config.head = c.head;
  config.classifier_function = c.function;
  config.labels = c.labels;
  config.relative_attention_buckets = c.relative_buckets;
  config.relative_attention_max_distance = c.relative_max_distance;
  model->config.Set(std::move(config));

}

// BertTokenizer's settings as heed reads them: vocab.txt, the special tokens and casing rules.
struct BertTokenizerSettings {
  SpecialTokenDefaults defaults = kBertSpecialTokens;  // MPNetTokenizer: kMpnetSpecialTokens
  bool lowercase = true;  // BertTokenizer's default
  std::optional<bool> strip_accents;  // unset: as lowercase
  std::string never_split;
};

// vocab.txt, or tokenizer.json alone (its BertNormalizer then gives the casing rules, as the
// fast tokenizer that reads it applies them).
Status read_wordpiece_vocab(const std::string& dir, uint32_t vocab_size, std::vector<std::string>* vocab,
                            BertTokenizerSettings* settings) {
  if (is_file(dir + "/vocab.txt") || !is_file(dir + "/tokenizer.json")) return read_vocab(dir + "/vocab.txt", vocab_size, vocab);
  TokenizerJson t;
  HEED_RETURN_IF_ERROR(read_tokenizer_json(dir + "/tokenizer.json", vocab_size, &t));
  if (t.kind != TokenizerJson::Kind::kWordPiece) {
    return unsupported_model(dir + "/tokenizer.json: a BPE tokenizer; heed reads BERT-family models with WordPiece");
  }
  settings->lowercase = t.lowercase;
  settings->strip_accents = t.strip_accents;
  *vocab = std::move(t.tokens);
  return Status::success();
}

// The special tokens BertTokenizer keeps whole when the text contains them.
std::string never_split_tokens(const nlohmann::json& tc, const std::vector<std::string>& vocab,
                               const SpecialTokenDefaults& defaults) {
  std::string never_split;
  for (const auto& [key, fallback] : {std::pair<const char*, const char*>{"unk_token", defaults.unk},
                                      {"sep_token", defaults.sep},
                                      {"pad_token", defaults.pad},
                                      {"cls_token", defaults.cls},
                                      {"mask_token", defaults.mask}}) {
    const std::string token = get_string(tc, key, fallback);
    if (find_token(vocab, token) < 0 || token.find(' ') != std::string::npos) continue;
    never_split += (never_split.empty() ? "" : " ") + token;
  }
  return never_split;
}

Status read_tokenizer(const std::string& dir, const BertConfig& c, const nlohmann::json& tc, fb::TokenizerT* tok,
                      BertTokenizerSettings* settings) {
  if (tc.contains("do_lower_case") && tc["do_lower_case"].is_boolean()) settings->lowercase = tc["do_lower_case"].get<bool>();
  if (tc.contains("strip_accents") && tc["strip_accents"].is_boolean()) settings->strip_accents = tc["strip_accents"].get<bool>();
  if (tc.contains("tokenize_chinese_chars") && tc["tokenize_chinese_chars"].is_boolean() &&
      !tc["tokenize_chinese_chars"].get<bool>()) {
    return unsupported_model(dir + "/tokenizer_config.json: tokenize_chinese_chars false is not supported");
  }
  std::vector<std::string> vocab;
  HEED_RETURN_IF_ERROR(read_wordpiece_vocab(dir, c.vocab_size, &vocab, settings));
  tok->kind = fb::TokenizerKind::WordPiece;
  const auto special = [&](const char* key, const char* fallback, int32_t* id) -> Status {
    const std::string token = get_string(tc, key, fallback);
    *id = find_token(vocab, token);
    if (*id < 0) {
      const char* file = is_file(dir + "/vocab.txt") ? "/vocab.txt" : "/tokenizer.json";
      return invalid_file(dir + file + ": the special token '" + token + "' (" + key + ") is missing");
    }
    return Status::success();
  };
  const SpecialTokenDefaults& defaults = settings->defaults;
  HEED_RETURN_IF_ERROR(special("unk_token", defaults.unk, &tok->unk_id));
  HEED_RETURN_IF_ERROR(special("cls_token", defaults.cls, &tok->bos_id));
  HEED_RETURN_IF_ERROR(special("sep_token", defaults.sep, &tok->eos_id));
  HEED_RETURN_IF_ERROR(special("pad_token", defaults.pad, &tok->pad_id));
  settings->never_split = never_split_tokens(tc, vocab, defaults);
  tok->target_vocabulary = std::make_unique<fb::VocabularyT>();
  tok->target_vocabulary->tokens = std::move(vocab);
  return Status::success();
}

// BertTokenizer's WordPiece and its settings as metadata (the runtime's WordPiece reads them).
Status add_bert_tokenizer(const std::string& dir, const BertConfig& c, const nlohmann::json& tc, NeutralModel* model) {
  BertTokenizerSettings settings;
  if (is_mpnet_type(c.model_type)) settings.defaults = kMpnetSpecialTokens;
  HEED_RETURN_IF_ERROR(read_tokenizer(dir, c, tc, &model->tokenizer, &settings));
  model->metadata.emplace_back("tokenizer.do_lower_case", settings.lowercase ? "true" : "false");
  if (settings.strip_accents) model->metadata.emplace_back("tokenizer.strip_accents", *settings.strip_accents ? "true" : "false");
  if (!settings.never_split.empty()) model->metadata.emplace_back("tokenizer.never_split", settings.never_split);
  if (c.head == fb::EncoderHead::MaskedLM) {
    const std::string mask = get_string(tc, "mask_token", settings.defaults.mask);
    if (find_token(model->tokenizer.target_vocabulary->tokens, mask) < 0) {
      return invalid_file(dir + "/vocab.txt: the mask token '" + mask + "' is missing (BertForMaskedLM fills it)");
    }
    model->metadata.emplace_back("tokenizer.mask_token", mask);
  }
  return Status::success();
}

}  // namespace

Status read_model(const std::string& dir, NeutralModel* out) {
  if (!is_directory(dir)) {
    return io_error("'" + dir + "' is not a folder (a Hugging Face BERT model is a folder with config.json)");
  }
  BertConfig c;
  HEED_RETURN_IF_ERROR(read_config(dir, &c));
  SafetensorsFile file;
  HEED_RETURN_IF_ERROR(read_hf_weights(dir, &file));
  const bool xlm_roberta = is_xlm_roberta_type(c.model_type);
  std::string prefix = file.find("bert.embeddings.word_embeddings.weight") ? "bert." : "";
  if (file.find("roberta.embeddings.word_embeddings.weight")) prefix = "roberta.";
  if (file.find("mpnet.embeddings.word_embeddings.weight")) prefix = "mpnet.";
  NeutralModel model;
  TensorMapper m(file, &model, prefix);
  HEED_RETURN_IF_ERROR(map_tensors(m, &c));
  HEED_RETURN_IF_ERROR(map_head(m, &c));
  HEED_RETURN_IF_ERROR(m.check_all_used("a BERT encoder heed understands",
                                        [&](const std::string& n) { return unused_by_encoders(prefix, n); }));
  set_config(c, &model);

  nlohmann::json tc = nlohmann::json::object();
  const std::string tc_path = dir + "/tokenizer_config.json";
  if (is_file(tc_path)) HEED_RETURN_IF_ERROR(read_json(tc_path, &tc));
  if (xlm_roberta) {
    HEED_RETURN_IF_ERROR(read_xlm_roberta_tokenizer(dir, c.vocab_size, tc, &model.tokenizer));
  } else {
    HEED_RETURN_IF_ERROR(add_bert_tokenizer(dir, c, tc, &model));
  }
  std::string pooling;
  HEED_RETURN_IF_ERROR(read_pooling(dir, &pooling));
  model.set_producer(xlm_roberta ? "hf-xlm-roberta" : is_mpnet_type(c.model_type) ? "hf-mpnet" : "hf-bert", base_name(dir));
  if (!pooling.empty()) model.metadata.emplace_back("embedding.pooling", pooling);
  HEED_RETURN_IF_ERROR(read_sentence_transformers(dir, &model));
  model.metadata.emplace_back("hf.hidden_act", c.hidden_act);
  *out = std::move(model);
  return Status::success();
}

}  // namespace heed::convert::hf_bert
