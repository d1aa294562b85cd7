// Hyperparameter consistency, one function per model family. A family added to the schema's
// ModelConfig union adds its check here; the runtime code of a family can then trust these values.
#include <cmath>

#include "loader/model_index.h"
#include "loader/validate.h"

namespace heed::loader {

namespace {

// Upper bound on any width (d_model, heads * head_dim, ffn, vocabulary): far above real models,
// low enough that products of two of them fit in 64 bits and sizes of one row fit in 32.
constexpr uint64_t kMaxDim = uint64_t{1} << 24;

Status check_stack(const fb::TransformerStack& s, const std::string& at) {
  if (s.d_model() == 0) return invalid_file(at + "d_model is 0");
  if (s.num_heads() == 0) return invalid_file(at + "num_heads is 0");
  if (s.d_model() > kMaxDim) return invalid_file(at + "d_model " + std::to_string(s.d_model()) + " is too large");
  if (s.num_heads() > s.d_model() && s.head_dim() == 0) {
    return invalid_file(at + "num_heads " + std::to_string(s.num_heads()) + " exceeds d_model " + std::to_string(s.d_model()));
  }
  if (s.head_dim() == 0 && s.d_model() % s.num_heads() != 0) {
    return invalid_file(at + "d_model " + std::to_string(s.d_model()) + " is not a multiple of num_heads " +
                        std::to_string(s.num_heads()) + " (and head_dim is not given)");
  }
  const uint64_t head_dim = s.head_dim() ? s.head_dim() : s.d_model() / s.num_heads();
  if (uint64_t{s.num_heads()} * head_dim > kMaxDim) {
    return invalid_file(at + "num_heads * head_dim = " + std::to_string(uint64_t{s.num_heads()} * head_dim) +
                        " is too large");
  }
  const uint32_t kv = s.num_kv_heads();
  if (kv != 0 && (kv > s.num_heads() || s.num_heads() % kv != 0)) {
    return invalid_file(at + "num_kv_heads " + std::to_string(kv) + " does not divide num_heads " +
                        std::to_string(s.num_heads()));
  }
  if (s.ffn_dim() == 0 || s.ffn_dim() > kMaxDim) return invalid_file(at + "ffn_dim " + std::to_string(s.ffn_dim()) + " is invalid");
  if (s.vocab_size() == 0 || s.vocab_size() > kMaxDim) {
    return invalid_file(at + "vocab_size " + std::to_string(s.vocab_size()) + " is invalid");
  }
  if (!known_enum(s.activation())) return invalid_file(at + "unknown activation " + std::to_string(int(s.activation())));
  if (!known_enum(s.norm())) return invalid_file(at + "unknown norm " + std::to_string(int(s.norm())));
  if (!known_enum(s.position_encoding())) {
    return invalid_file(at + "unknown position encoding " + std::to_string(int(s.position_encoding())));
  }
  if (!std::isfinite(s.norm_epsilon()) || s.norm_epsilon() < 0) return invalid_file(at + "norm_epsilon is not a finite value >= 0");
  if (!std::isfinite(s.embedding_scale())) return invalid_file(at + "embedding_scale is not finite");
  if (s.position_encoding() == fb::PositionEncoding::Learned && s.max_positions() == 0) {
    return invalid_file(at + "learned positions need max_positions > 0");
  }
  if (s.position_encoding() == fb::PositionEncoding::RoPE) {
    if (head_dim % 2 != 0) return invalid_file(at + "RoPE needs an even head_dim, not " + std::to_string(head_dim));
    if (!std::isfinite(s.rope_theta()) || s.rope_theta() <= 0) return invalid_file(at + "rope_theta must be > 0");
  }
  return Status::success();
}

// The scores outside the family of score(q, h_s): no attention, and Luong's location score.
Status check_rnn_score(const fb::RnnSeq2Seq& r, const std::string& at) {
  const bool location = r.score() == fb::AttentionScore::Location;
  if (r.score() == fb::AttentionScore::NoAttention &&
      (r.input_feeding() || r.hard() || r.alignment() != fb::AttentionAlignment::Global ||
       r.placement() != fb::AttentionPlacement::Luong)) {
    return invalid_file(at + "score NoAttention takes Luong placement, global alignment, no hard attention and no "
                             "input_feeding");
  }
  if (location && r.alignment() != fb::AttentionAlignment::Global) {
    return invalid_file(at + "the Location score takes the global alignment only");
  }
  if (location != (r.max_source_positions() > 0) || r.max_source_positions() > kMaxDim) {
    return invalid_file(at + "max_source_positions " + std::to_string(r.max_source_positions()) +
                        " is invalid (> 0 with the Location score only)");
  }
  return Status::success();
}

// The task head of an encoder-only model: values a newer converter may write are refused as a
// model this heed cannot run, not as a corrupt file.
Status check_encoder_only(const fb::TransformerEncoderOnly& e, const std::string& at) {
  HEED_RETURN_IF_ERROR(check_stack(*e.encoder(), at + "encoder: "));
  if (!known_enum(e.head())) {
    return unsupported_model(at + "encoder head " + std::to_string(int(e.head())) + " is not one this heed runs");
  }
  if (!known_enum(e.classifier_function())) {
    return unsupported_model(at + "classifier function " + std::to_string(int(e.classifier_function())) +
                             " is not one this heed knows");
  }
  if (e.labels() && e.head() != fb::EncoderHead::SequenceClassification) {
    return invalid_file(at + "labels are given but the head is not SequenceClassification");
  }
  return Status::success();
}

Status check_rnn(const fb::RnnSeq2Seq& r, const std::string& at) {
  if (!known_enum(r.cell())) return invalid_file(at + "unknown cell " + std::to_string(int(r.cell())));
  if (!known_enum(r.score())) return invalid_file(at + "unknown attention score " + std::to_string(int(r.score())));
  if (!known_enum(r.alignment())) return invalid_file(at + "unknown attention alignment " + std::to_string(int(r.alignment())));
  if (!known_enum(r.placement())) return invalid_file(at + "unknown attention placement " + std::to_string(int(r.placement())));
  const std::pair<const char*, uint32_t> dims[] = {
      {"source_vocab_size", r.source_vocab_size()}, {"target_vocab_size", r.target_vocab_size()},
      {"embedding_dim", r.embedding_dim()},         {"hidden_dim", r.hidden_dim()},
      {"encoder_layers", r.encoder_layers()},       {"decoder_layers", r.decoder_layers()}};
  for (const auto& [name, value] : dims) {
    if (value == 0 || value > kMaxDim) return invalid_file(at + name + " " + std::to_string(value) + " is invalid");
  }
  if (r.attention_dim() > kMaxDim) return invalid_file(at + "attention_dim is too large");
  if (r.window() > kMaxDim) return invalid_file(at + "window is too large");
  // What the RNN runtime (runtime/src/rnn/) relies on; each rule names the field to fix.
  if (r.encoder_layers() != r.decoder_layers()) {
    return invalid_file(at + "encoder_layers " + std::to_string(r.encoder_layers()) + " differs from decoder_layers " +
                        std::to_string(r.decoder_layers()) + " (the decoder starts from the encoder's final states)");
  }
  if (r.bidirectional_encoder() && r.hidden_dim() % 2 != 0) {
    return invalid_file(at + "a bidirectional encoder needs an even hidden_dim, not " + std::to_string(r.hidden_dim()));
  }
  if (r.alignment() != fb::AttentionAlignment::Global && r.window() == 0) {
    return invalid_file(at + "local attention needs window > 0");
  }
  const bool projected = r.score() == fb::AttentionScore::Concat || r.score() == fb::AttentionScore::Additive ||
                         r.score() == fb::AttentionScore::MLP;
  if ((projected || r.alignment() == fb::AttentionAlignment::LocalPredictive) && r.attention_dim() == 0) {
    return invalid_file(at + "this attention score or alignment needs attention_dim > 0");
  }
  if (r.placement() == fb::AttentionPlacement::Bahdanau && r.input_feeding()) {
    return invalid_file(at + "input_feeding applies to Luong placement only");
  }
  return check_rnn_score(r, at);
}

}  // namespace

Status validate_config(const fb::Model& index, const std::string& where) {
  const std::string at = where + ": ";
  switch (index.config_type()) {
    case fb::ModelConfig::TransformerEncoderDecoder: {
      const auto* c = index.config_as_TransformerEncoderDecoder();
      HEED_RETURN_IF_ERROR(check_stack(*c->encoder(), at + "encoder: "));
      HEED_RETURN_IF_ERROR(check_stack(*c->decoder(), at + "decoder: "));
      // Cross-attention reads encoder states with decoder-sized projections.
      if (c->encoder()->d_model() != c->decoder()->d_model()) {
        return invalid_file(at + "encoder d_model " + std::to_string(c->encoder()->d_model()) +
                            " differs from decoder d_model " + std::to_string(c->decoder()->d_model()));
      }
      if (c->shared_embeddings() && c->encoder()->vocab_size() != c->decoder()->vocab_size()) {
        return invalid_file(at + "shared embeddings but encoder and decoder vocab_size differ");
      }
      return Status::success();
    }
    case fb::ModelConfig::TransformerDecoderOnly:
      return check_stack(*index.config_as_TransformerDecoderOnly()->decoder(), at + "decoder: ");
    case fb::ModelConfig::TransformerEncoderOnly:
      return check_encoder_only(*index.config_as_TransformerEncoderOnly(), at);
    case fb::ModelConfig::RnnSeq2Seq:
      return check_rnn(*index.config_as_RnnSeq2Seq(), at + "rnn: ");
    case fb::ModelConfig::NONE:
      break;
  }
  return invalid_file(at + "unknown model family " + std::to_string(int(index.config_type())));
}

}  // namespace heed::loader
