// ByteBpe behind the heed::Tokenizer interface.
#include "loader/model_index.h"
#include "tokenizer/byte_bpe.h"

namespace heed::tokenizer {
namespace {

class ByteBpeTokenizer final : public Tokenizer {
 public:
  ByteBpeTokenizer(std::vector<std::string> tokens, TokenizerOptions options, ByteBpe bpe)
      : Tokenizer(std::move(tokens), std::move(options)), bpe_(std::move(bpe)) {}

  Status encode_pieces(std::string_view text, std::vector<std::string>* pieces) const override {
    std::vector<int32_t> ids;
    HEED_RETURN_IF_ERROR(bpe_.encode(text, false, false, &ids));
    pieces->clear();
    for (int32_t id : ids) pieces->push_back(token(id));
    return Status::success();
  }

  Status decode_pieces(const std::vector<std::string>& pieces, std::string* text) const override {
    text->clear();
    for (size_t i = 0; i < pieces.size(); ++i) {
      const int32_t id = bpe_.id(pieces[i]);
      if (id < 0) return invalid_argument("'" + pieces[i] + "' is not a piece of this tokenizer");
      // The first piece reads as if it followed the start token: its dummy-prefix space goes.
      text->append(bpe_.piece(i == 0 ? bpe_.bos_id() : bpe_.id(pieces[i - 1]), id));
    }
    return Status::success();
  }

 private:
  ByteBpe bpe_;
};

}  // namespace

Status create_byte_bpe_tokenizer(const Model& model, std::unique_ptr<Tokenizer>* out) {
  ByteBpe bpe;
  HEED_RETURN_IF_ERROR(ByteBpe::from_index(file_index(model).tokenizer(), &bpe));
  const fb::Tokenizer* tok = file_index(model).tokenizer();
  std::vector<std::string> tokens;
  for (const auto* s : *tok->target_vocabulary()->tokens()) tokens.emplace_back(s->data(), s->size());
  TokenizerOptions options;
  options.unk_id = tok->unk_id();
  for (int32_t id : {tok->unk_id(), tok->bos_id(), tok->eos_id(), tok->pad_id()}) {
    if (id >= 0) options.special_ids.push_back(id);
  }
  out->reset(new ByteBpeTokenizer(std::move(tokens), std::move(options), std::move(bpe)));
  return Status::success();
}

}  // namespace heed::tokenizer
