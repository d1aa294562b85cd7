// The tokenizer section against the model: vocabulary sizes agree with the embedding sizes the
// hyperparameters declare, and every special token id names a vocabulary entry.
#include "loader/model_index.h"
#include "loader/validate.h"

namespace heed::loader {

namespace {

// Vocabulary sizes the family's hyperparameters declare (0 when that side does not exist).
struct DeclaredVocab {
  uint32_t source = 0;
  uint32_t target = 0;
};

DeclaredVocab declared_vocab(const fb::Model& index) {
  switch (index.config_type()) {
    case fb::ModelConfig::TransformerEncoderDecoder: {
      const auto* c = index.config_as_TransformerEncoderDecoder();
      return {c->encoder()->vocab_size(), c->decoder()->vocab_size()};
    }
    case fb::ModelConfig::TransformerDecoderOnly:
      return {0, index.config_as_TransformerDecoderOnly()->decoder()->vocab_size()};
    case fb::ModelConfig::TransformerEncoderOnly:
      return {0, index.config_as_TransformerEncoderOnly()->encoder()->vocab_size()};
    case fb::ModelConfig::RnnSeq2Seq: {
      const auto* r = index.config_as_RnnSeq2Seq();
      return {r->source_vocab_size(), r->target_vocab_size()};
    }
    case fb::ModelConfig::NONE: break;
  }
  return {};
}

Status check_vocabulary(const fb::Vocabulary* vocab, uint32_t declared, const std::string& at) {
  if (!vocab) return Status::success();
  const uint64_t n = vocab->tokens()->size();
  if (vocab->scores() && vocab->scores()->size() != n) {
    return invalid_file(at + "has " + std::to_string(n) + " tokens but " + std::to_string(vocab->scores()->size()) +
                        " scores");
  }
  if (declared != 0 && n != declared) {
    return invalid_file(at + "has " + std::to_string(n) + " tokens but the model's vocab_size is " +
                        std::to_string(declared));
  }
  return Status::success();
}

}  // namespace

Status validate_tokenizer(const fb::Model& index, const std::string& where) {
  const fb::Tokenizer* tok = index.tokenizer();
  if (!tok) return Status::success();
  const std::string at = where + ": tokenizer: ";
  if (!known_enum(tok->kind())) return invalid_file(at + "unknown kind " + std::to_string(int(tok->kind())));
  const DeclaredVocab declared = declared_vocab(index);
  const fb::Vocabulary* target = tok->target_vocabulary();
  const fb::Vocabulary* source = tok->source_vocabulary();
  if (!source && tok->shared_vocabulary()) source = target;
  HEED_RETURN_IF_ERROR(check_vocabulary(source, declared.source, at + "source vocabulary "));
  HEED_RETURN_IF_ERROR(check_vocabulary(target, declared.target, at + "target vocabulary "));
  if (tok->kind() == fb::TokenizerKind::SentencePiece && !tok->source_model() && !tok->target_model()) {
    return invalid_file(at + "SentencePiece tokenizer without an embedded SentencePiece model");
  }
  if (tok->kind() == fb::TokenizerKind::Unigram &&
      (!tok->unigram() || !target || !tok->unigram()->scores() || tok->unigram()->scores()->size() != target->tokens()->size())) {
    return invalid_file(at + "Unigram tokenizer without one score per token or its text steps");
  }

  // Ids index the target vocabulary (the output side; the only one for single-stack models).
  const uint64_t limit = target ? target->tokens()->size() : declared.target;
  const std::pair<const char*, int32_t> ids[] = {{"unk_id", tok->unk_id()},
                                                 {"bos_id", tok->bos_id()},
                                                 {"eos_id", tok->eos_id()},
                                                 {"pad_id", tok->pad_id()},
                                                 {"decoder_start_id", tok->decoder_start_id()}};
  for (const auto& [name, id] : ids) {
    if (id == -1) continue;
    if (id < 0 || (limit != 0 && static_cast<uint64_t>(id) >= limit)) {
      return invalid_file(at + name + " " + std::to_string(id) + " is outside the vocabulary (" + std::to_string(limit) +
                          " tokens)");
    }
  }
  return Status::success();
}

}  // namespace heed::loader
