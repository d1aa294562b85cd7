#include "sentencepiece_model.h"

#include "heed/tokenizer.h"
#include "source_files.h"

namespace heed::convert {

Status read_sentencepiece_model(const std::string& path, std::vector<uint8_t>* out) {
  HEED_RETURN_IF_ERROR(read_nonempty_bytes(path, out));
  const Status s = check_sentencepiece_model(out->data(), out->size());
  if (!s.is_ok()) return Status(s.code(), path + ": " + s.message());
  return Status::success();
}

Status embed_sentencepiece_models(const std::string& source_path, const std::string& target_path, NeutralModel* model) {
  fb::TokenizerT& tok = model->tokenizer;
  if (tok.kind != fb::TokenizerKind::Whitespace || !tok.source_vocabulary || !tok.target_vocabulary) {
    return invalid_argument("SentencePiece models (" + source_path + ", " + target_path +
                            ") go with a translation model whose vocabularies are whitespace tokens; this one is not");
  }
  std::vector<uint8_t> source, target;
  HEED_RETURN_IF_ERROR(read_sentencepiece_model(source_path, &source));
  HEED_RETURN_IF_ERROR(read_sentencepiece_model(target_path, &target));
  tok.kind = fb::TokenizerKind::SentencePiece;
  tok.source_model = std::move(source);
  tok.target_model = std::move(target);
  return Status::success();
}

}  // namespace heed::convert
