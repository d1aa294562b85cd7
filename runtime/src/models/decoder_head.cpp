#include "models/decoder_head.h"

#include "loader/model_index.h"

namespace heed::models {

Status load_output_projection(const Model& model, bool tied, const std::string& embeddings_name, size_t vocab,
                              size_t d_model, layers::Linear* out) {
  // Tied weights keep their own (optional) bias: CTranslate2 and Marian models have one.
  if (tied) return out->load(model, embeddings_name, "decoder.output.bias", vocab, d_model);
  return out->load(model, "decoder.output", vocab, d_model);
}

Status read_start_and_end(const Model& model, size_t vocab, bool start_optional, int32_t* bos, int32_t* eos) {
  const fb::Tokenizer* tok = file_index(model).tokenizer();
  if (tok == nullptr) return invalid_file("the model has no tokenizer section (bos/eos ids)");
  *bos = tok->decoder_start_id() >= 0 ? tok->decoder_start_id() : tok->bos_id();
  *eos = tok->eos_id();
  const auto in_vocab = [&](int32_t id) { return id >= 0 && static_cast<size_t>(id) < vocab; };
  if ((!(start_optional && *bos == -1) && !in_vocab(*bos)) || !in_vocab(*eos)) {
    return invalid_file("start id " + std::to_string(*bos) + " or end id " + std::to_string(*eos) +
                        " is outside the target vocabulary of " + std::to_string(vocab));
  }
  return Status::success();
}

}  // namespace heed::models
