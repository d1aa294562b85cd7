#include "torch_seq2seq/reader.h"

#include <set>

#include <nlohmann/json.hpp>

#include "heed_format/rnn_names.h"
#include "json_fields.h"
#include "safetensors.h"
#include "tensor_mapper.h"
#include "source_files.h"

namespace heed::convert::torch_seq2seq {
namespace {

using nlohmann::json;
namespace n = names::rnn;

// The config.json of one model, with every key checked on the way in.
class Config {
 public:
  Config(const json& j, std::string where) : j_(j), where_(std::move(where)) {}

  Status count(const char* key, bool required, uint32_t fallback, uint32_t* out) const {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) {
      if (required) return invalid_file(where_ + ": missing '" + key + "'");
      *out = fallback;
      return Status::success();
    }
    if (!it->is_number_unsigned() || it->get<uint64_t>() >= (1u << 24)) {
      return invalid_file(where_ + ": '" + key + "' must be a non-negative integer below 2^24");
    }
    *out = static_cast<uint32_t>(it->get<uint64_t>());
    return Status::success();
  }
  Status flag(const char* key, bool* out) const {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return Status::success();
    if (!it->is_boolean()) return invalid_file(where_ + ": '" + key + "' must be true or false");
    *out = it->get<bool>();
    return Status::success();
  }
  // One of `choices` (by position) from a string key.
  Status choice(const char* key, const std::vector<std::string>& choices, const std::string& fallback,
                size_t* out) const {
    const auto it = j_.find(key);
    std::string value = fallback;
    if (it != j_.end() && !it->is_null()) {
      if (!it->is_string()) return invalid_file(where_ + ": '" + key + "' must be a string");
      value = it->get<std::string>();
    }
    for (size_t i = 0; i < choices.size(); ++i) {
      if (choices[i] == value) {
        *out = i;
        return Status::success();
      }
    }
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
    return unsupported_model(where_ + ": '" + key + "' is '" + value + "', expected one of: " + list);
  }
  Status vocabulary(const char* key, std::vector<std::string>* out) const {
    const auto it = j_.find(key);
    if (it == j_.end() || !it->is_array() || it->empty()) {
      return invalid_file(where_ + ": missing '" + key + "' (the list of tokens, in id order)");
    }
    for (const auto& t : *it) {
      if (!t.is_string()) return invalid_file(where_ + ": '" + key + "' must hold strings only");
      out->push_back(t.get<std::string>());
    }
    return Status::success();
  }
  // A token id of the target vocabulary (`side` names another); -1 when absent and not required.
  Status id(const char* key, size_t vocab, bool required, int32_t* out, const char* side = "target") const {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) {
      if (required) return invalid_file(where_ + ": missing '" + key + "'");
      *out = -1;
      return Status::success();
    }
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() >= static_cast<int64_t>(vocab)) {
      return invalid_file(where_ + ": '" + key + "' must be a token id below the " + side + " vocabulary size " +
                          std::to_string(vocab));
    }
    *out = static_cast<int32_t>(it->get<int64_t>());
    return Status::success();
  }

 private:
  const json& j_;
  std::string where_;
};

// Every key config.json may hold (docs/torch-seq2seq.md): any other is an error, so that a variant
// heed does not implement is never converted into a model that computes something else.
const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys = {
      "cell", "layers", "embedding_dim", "hidden_dim", "attention_dim", "score", "alignment", "placement", "window",
      "hard", "input_feeding", "bidirectional_encoder", "decoder_input_activation", "max_source_positions",
      "append_source_eos", "source_eos_id", "source_vocabulary", "target_vocabulary", "source_vocab_size",
      "target_vocab_size", "bos_id", "eos_id", "unk_id", "pad_id"};
  return keys;
}

Status check_keys(const json& j, const std::string& config_path) {
  if (!j.is_object()) return invalid_file(config_path + ": expected a JSON object");
  for (const auto& item : j.items()) {
    if (known_keys().count(item.key()) == 0) {
      return unsupported_model(config_path + ": unknown key '" + item.key() +
                               "' (heed would ignore it and compute another model; docs/torch-seq2seq.md lists the keys)");
    }
  }
  return Status::success();
}

// Moves state_dict entries into heed names, checking shapes and that nothing is left over.

// PyTorch's nn.LSTM / nn.GRU (encoder) or nn.LSTMCell / nn.GRUCell (decoder) parameters of one cell.
Status take_cell(TensorMapper& m, const std::string& weight_ih, const std::string& weight_hh, const std::string& bias_ih,
                 const std::string& bias_hh, const std::string& dst, uint64_t gates, uint64_t in, uint64_t hidden) {
  HEED_RETURN_IF_ERROR(m.take(weight_ih, dst + ".ih.weight", {gates, in}, true));
  HEED_RETURN_IF_ERROR(m.take(weight_hh, dst + ".hh.weight", {gates, hidden}, true));
  HEED_RETURN_IF_ERROR(m.take_optional(bias_ih, dst + ".ih.bias", {gates}));
  HEED_RETURN_IF_ERROR(m.take_optional(bias_hh, dst + ".hh.bias", {gates}));
  return Status::success();
}

}  // namespace

bool looks_like_model(const std::string& dir) {
  if (!is_file(dir + "/model.safetensors") || !is_file(dir + "/config.json")) return false;
  json j;
  if (!read_json(dir + "/config.json", &j).is_ok()) return false;
  return j.contains("cell") && j.contains("placement");
}

namespace {

// The rules of the scores outside score(q, h_s): "none" and "location".
Status check_score(const fb::RnnSeq2SeqT& r, const std::string& config_path) {
  const bool location = r.score == fb::AttentionScore::Location;
  if (r.score == fb::AttentionScore::NoAttention &&
      (r.input_feeding || r.hard || r.alignment != fb::AttentionAlignment::Global ||
       r.placement != fb::AttentionPlacement::Luong)) {
    return unsupported_model(config_path + ": score 'none' (no attention) takes no input_feeding, hard, local "
                             "alignment or bahdanau placement");
  }
  if (location && r.alignment != fb::AttentionAlignment::Global) {
    return unsupported_model(config_path + ": the location score takes the global alignment only");
  }
  if (location && r.max_source_positions == 0) {
    return invalid_file(config_path + ": the location score needs 'max_source_positions' > 0 (its fixed positions)");
  }
  if (!location && r.max_source_positions != 0) {
    return invalid_file(config_path + ": 'max_source_positions' applies to the location score only");
  }
  return Status::success();
}

// config.json's hyperparameters of the variant; `layers` of encoder and decoder alike.
Status read_hyperparameters(const Config& c, const std::string& config_path, fb::RnnSeq2SeqT* out, uint32_t* layers_out) {
  fb::RnnSeq2SeqT& r = *out;
  uint32_t& layers = *layers_out;
  size_t cell = 0, score = 0, alignment = 0, placement = 0;
  HEED_RETURN_IF_ERROR(c.choice("cell", {"lstm", "gru"}, "lstm", &cell));
  HEED_RETURN_IF_ERROR(c.choice(
      "score", {"dot", "scaled_dot", "general", "concat", "additive", "cosine", "mlp", "none", "location"}, "general",
      &score));
  HEED_RETURN_IF_ERROR(c.choice("alignment", {"global", "local_m", "local_p"}, "global", &alignment));
  HEED_RETURN_IF_ERROR(c.choice("placement", {"bahdanau", "luong"}, "luong", &placement));
  r.cell = static_cast<fb::RnnCell>(cell);
  r.score = static_cast<fb::AttentionScore>(score);
  r.alignment = static_cast<fb::AttentionAlignment>(alignment);
  r.placement = static_cast<fb::AttentionPlacement>(placement);
  layers = 1;
  HEED_RETURN_IF_ERROR(c.count("layers", false, 1, &layers));
  HEED_RETURN_IF_ERROR(c.count("embedding_dim", true, 0, &r.embedding_dim));
  HEED_RETURN_IF_ERROR(c.count("hidden_dim", true, 0, &r.hidden_dim));
  HEED_RETURN_IF_ERROR(c.count("attention_dim", false, 0, &r.attention_dim));
  HEED_RETURN_IF_ERROR(c.count("window", false, 0, &r.window));
  HEED_RETURN_IF_ERROR(c.flag("hard", &r.hard));
  HEED_RETURN_IF_ERROR(c.flag("input_feeding", &r.input_feeding));
  HEED_RETURN_IF_ERROR(c.flag("bidirectional_encoder", &r.bidirectional_encoder));
  HEED_RETURN_IF_ERROR(c.count("max_source_positions", false, 0, &r.max_source_positions));
  size_t input_activation = 0;
  HEED_RETURN_IF_ERROR(c.choice("decoder_input_activation", {"none", "relu"}, "none", &input_activation));
  r.decoder_input_relu = input_activation == 1;
  if (layers == 0 || r.embedding_dim == 0 || r.hidden_dim == 0) {
    return invalid_file(config_path + ": layers, embedding_dim and hidden_dim must be > 0");
  }
  r.encoder_layers = r.decoder_layers = layers;
  const bool luong = r.placement == fb::AttentionPlacement::Luong;
  if (!luong && r.input_feeding) {
    return unsupported_model(config_path + ": input feeding applies to Luong placement only (Bahdanau feeds c_t)");
  }
  if (r.bidirectional_encoder && r.hidden_dim % 2 != 0) {
    return invalid_file(config_path + ": a bidirectional encoder needs an even hidden_dim");
  }
  if (r.alignment != fb::AttentionAlignment::Global && r.window == 0) {
    return invalid_file(config_path + ": local alignments need 'window' (D) > 0");
  }
  return check_score(r, config_path);
}

// The encoder's (per direction) and the decoder's recurrent cells, layer by layer.
Status map_cells(TensorMapper& m, const fb::RnnSeq2SeqT& r, uint64_t L) {
  const uint64_t E = r.embedding_dim, H = r.hidden_dim;
  const uint64_t He = r.bidirectional_encoder ? H / 2 : H;
  const uint64_t G = r.cell == fb::RnnCell::LSTM ? 4 : 3;
  const bool luong = r.placement == fb::AttentionPlacement::Luong;
  for (uint64_t l = 0; l < L; ++l) {
    for (int d = 0; d < (r.bidirectional_encoder ? 2 : 1); ++d) {
      const std::string sfx = "_l" + std::to_string(l) + (d == 1 ? "_reverse" : "");
      HEED_RETURN_IF_ERROR(take_cell(m, "encoder.weight_ih" + sfx, "encoder.weight_hh" + sfx, "encoder.bias_ih" + sfx,
                                     "encoder.bias_hh" + sfx, n::encoder_cell(int(l), d == 1), G * He,
                                     l == 0 ? E : H, He));
    }
    const std::string p = "decoder." + std::to_string(l) + ".";
    const uint64_t in0 = E + (r.input_feeding || !luong ? H : 0);
    HEED_RETURN_IF_ERROR(take_cell(m, p + "weight_ih", p + "weight_hh", p + "bias_ih", p + "bias_hh",
                                   n::decoder_cell(int(l)), G * H, l == 0 ? in0 : H, H));
  }
  return Status::success();
}

// The attention's score and alignment weights of the configured variant.
Status map_attention(TensorMapper& m, const fb::RnnSeq2SeqT& r, const std::string& config_path) {
  const uint64_t H = r.hidden_dim, A = r.attention_dim;
  const std::string key = n::kAttentionKey, query = n::kAttentionQuery;
  switch (r.score) {
    case fb::AttentionScore::General:
      HEED_RETURN_IF_ERROR(m.take("attention.key.weight", key + ".weight", {H, H}, true));
      break;
    case fb::AttentionScore::Concat: {
      // W_a [A, 2H] over [q; h_s]: its query columns and its key columns become two matrices.
      if (A == 0) return invalid_file(config_path + ": the concat score needs attention_dim > 0");
      std::vector<float> w;
      HEED_RETURN_IF_ERROR(m.values("attention.concat.weight", {A, 2 * H}, &w));
      std::vector<float> wq(A * H), wk(A * H);
      for (uint64_t i = 0; i < A; ++i) {
        for (uint64_t j = 0; j < H; ++j) {
          wq[i * H + j] = w[i * 2 * H + j];
          wk[i * H + j] = w[i * 2 * H + H + j];
        }
      }
      m.add(query + ".weight", {A, H}, wq, true);
      m.add(key + ".weight", {A, H}, wk, true);
      HEED_RETURN_IF_ERROR(m.take("attention.v.weight", n::kAttentionV, {1, A}, false, {A}));
      break;
    }
    case fb::AttentionScore::Additive:
    case fb::AttentionScore::MLP:
      if (A == 0) return invalid_file(config_path + ": this score needs attention_dim > 0");
      HEED_RETURN_IF_ERROR(m.take("attention.key.weight", key + ".weight", {A, H}, true));
      HEED_RETURN_IF_ERROR(m.take_optional("attention.key.bias", key + ".bias", {A}));
      HEED_RETURN_IF_ERROR(m.take("attention.query.weight", query + ".weight", {A, H}, true));
      HEED_RETURN_IF_ERROR(m.take("attention.v.weight", n::kAttentionV, {1, A}, false, {A}));
      if (r.score == fb::AttentionScore::MLP) {
        const std::string hidden = n::kAttentionHidden;
        HEED_RETURN_IF_ERROR(m.take("attention.hidden.weight", hidden + ".weight", {A, A}, true));
        HEED_RETURN_IF_ERROR(m.take_optional("attention.hidden.bias", hidden + ".bias", {A}));
      }
      break;
    case fb::AttentionScore::Cosine:
      HEED_RETURN_IF_ERROR(m.take("attention.cosine_scale", n::kAttentionCosineScale, {1}, false));
      break;
    case fb::AttentionScore::Location: {
      const uint64_t P = r.max_source_positions;
      const std::string location = n::kAttentionLocation;
      HEED_RETURN_IF_ERROR(m.take("attention.location.weight", location + ".weight", {P, H}, true));
      HEED_RETURN_IF_ERROR(m.take_optional("attention.location.bias", location + ".bias", {P}));
      break;
    }
    default:
      break;
  }
  if (r.alignment == fb::AttentionAlignment::LocalPredictive) {
    if (A == 0) return invalid_file(config_path + ": local_p alignment needs attention_dim > 0");
    HEED_RETURN_IF_ERROR(m.take("attention.position.weight", std::string(n::kAttentionPosition) + ".weight", {A, H}, true));
    HEED_RETURN_IF_ERROR(m.take("attention.position_v.weight", n::kAttentionPositionV, {1, A}, false, {A}));
  }
  return Status::success();
}

}  // namespace

namespace {

// A declared vocabulary size (optional: PyTorch's nn.Embedding sizes) must match the list.
Status check_size(const Config& c, const char* key, size_t actual, const std::string& config_path) {
  uint32_t declared = 0;
  HEED_RETURN_IF_ERROR(c.count(key, false, 0, &declared));
  if (declared != 0 && declared != actual) {
    return invalid_file(config_path + ": '" + key + "' is " + std::to_string(declared) + " but the vocabulary lists " +
                        std::to_string(actual) + " tokens");
  }
  return Status::success();
}

// The vocabularies, the special ids and the source conventions (metadata the Translator reads).
Status read_tokens(const Config& c, const json& j, const std::string& config_path, fb::RnnSeq2SeqT* r,
                   NeutralModel* model) {
  fb::TokenizerT tok;
  std::vector<std::string> source_vocab, target_vocab;
  HEED_RETURN_IF_ERROR(c.vocabulary("source_vocabulary", &source_vocab));
  HEED_RETURN_IF_ERROR(c.vocabulary("target_vocabulary", &target_vocab));
  HEED_RETURN_IF_ERROR(check_size(c, "source_vocab_size", source_vocab.size(), config_path));
  HEED_RETURN_IF_ERROR(check_size(c, "target_vocab_size", target_vocab.size(), config_path));
  r->source_vocab_size = static_cast<uint32_t>(source_vocab.size());
  r->target_vocab_size = static_cast<uint32_t>(target_vocab.size());
  HEED_RETURN_IF_ERROR(c.id("bos_id", target_vocab.size(), true, &tok.bos_id));
  HEED_RETURN_IF_ERROR(c.id("eos_id", target_vocab.size(), true, &tok.eos_id));
  HEED_RETURN_IF_ERROR(c.id("unk_id", target_vocab.size(), false, &tok.unk_id));
  HEED_RETURN_IF_ERROR(c.id("pad_id", target_vocab.size(), false, &tok.pad_id));
  bool append_eos = false;
  int32_t source_eos = -1;
  HEED_RETURN_IF_ERROR(c.flag("append_source_eos", &append_eos));
  HEED_RETURN_IF_ERROR(c.id("source_eos_id", source_vocab.size(), false, &source_eos, "source"));
  if (source_eos < 0) source_eos = tok.eos_id;
  if (append_eos && static_cast<size_t>(source_eos) >= source_vocab.size()) {
    return invalid_file(config_path + ": append_source_eos needs 'source_eos_id' (eos_id " +
                        std::to_string(tok.eos_id) + " is outside the source vocabulary)");
  }
  int32_t source_unk = -1;
  if (j.contains("unk_id") && j["unk_id"].is_number_integer()) source_unk = j["unk_id"].get<int32_t>();
  model->metadata.emplace_back("source_unk_id", std::to_string(source_unk));
  if (append_eos) {
    model->metadata.emplace_back("add_source_eos", "true");
    model->metadata.emplace_back("source_eos_id", std::to_string(source_eos));
  }
  tok.kind = fb::TokenizerKind::Whitespace;
  tok.source_vocabulary = std::make_unique<fb::VocabularyT>();
  tok.source_vocabulary->tokens = std::move(source_vocab);
  tok.target_vocabulary = std::make_unique<fb::VocabularyT>();
  tok.target_vocabulary->tokens = std::move(target_vocab);
  model->tokenizer = std::move(tok);
  return Status::success();
}

}  // namespace

Status read_model(const std::string& dir, NeutralModel* out) {
  const std::string config_path = dir + "/config.json";
  json j;
  HEED_RETURN_IF_ERROR(read_json(config_path, &j));
  HEED_RETURN_IF_ERROR(check_keys(j, config_path));
  const Config c(j, config_path);
  fb::RnnSeq2SeqT r;
  uint32_t layers = 1;
  HEED_RETURN_IF_ERROR(read_hyperparameters(c, config_path, &r, &layers));
  NeutralModel model;
  HEED_RETURN_IF_ERROR(read_tokens(c, j, config_path, &r, &model));

  SafetensorsFile file;
  HEED_RETURN_IF_ERROR(SafetensorsFile::read(dir + "/model.safetensors", &file));
  TensorMapper m(file, &model);
  const uint64_t E = r.embedding_dim, H = r.hidden_dim, Vs = r.source_vocab_size, Vt = r.target_vocab_size;
  HEED_RETURN_IF_ERROR(m.take("source_embeddings.weight", n::kEncoderEmbeddings, {Vs, E}, true));
  HEED_RETURN_IF_ERROR(m.take("target_embeddings.weight", n::kDecoderEmbeddings, {Vt, E}, true));
  HEED_RETURN_IF_ERROR(map_cells(m, r, layers));
  HEED_RETURN_IF_ERROR(map_attention(m, r, config_path));
  if (r.score != fb::AttentionScore::NoAttention) {  // without attention the output layer reads h_t
    HEED_RETURN_IF_ERROR(m.take("combine.weight", std::string(n::kCombine) + ".weight", {H, 2 * H}, true));
  }
  HEED_RETURN_IF_ERROR(m.take("output.weight", std::string(n::kOutput) + ".weight", {Vt, H}, true));
  HEED_RETURN_IF_ERROR(m.take_optional("output.bias", std::string(n::kOutput) + ".bias", {Vt}));
  HEED_RETURN_IF_ERROR(m.check_all_used("the configured variant (see docs/torch-seq2seq.md)"));

  model.config.Set(std::move(r));
  model.set_producer("torch-seq2seq", base_name(dir));
  *out = std::move(model);
  return Status::success();
}

}  // namespace heed::convert::torch_seq2seq
