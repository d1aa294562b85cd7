// SentencePiece through Debian's libsentencepiece: the model bytes embedded in the .heed file split
// text into pieces and detokenize them; the file's vocabulary maps pieces to the model's ids.
#include <sentencepiece_processor.h>

#include <exception>

#include "heed/tokenizer.h"
#include "loader/validate.h"
#include "tokenizer/language_code.h"
#include "tokenizer/sentencepiece_charsmap.h"

namespace heed {
namespace {

// SentencePiece's word-boundary mark, U+2581.
constexpr std::string_view kSpaceMark = "\xE2\x96\x81";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

class SentencePieceTokenizer final : public Tokenizer {
 public:
  SentencePieceTokenizer(std::vector<std::string> tokens, TokenizerOptions options)
      : Tokenizer(std::move(tokens), options), language_code_prefix_(options.language_code_prefix) {}

  Status load(const void* bytes, size_t size) {
    // Loading already encodes (the model's self-test samples), so the normalization tables the
    // library reads without bounds checks are checked first.
    const std::string_view proto(static_cast<const char*>(bytes), size);
    const Status tables = tokenizer::check_sentencepiece_charsmaps(proto);
    if (!tables.is_ok()) return invalid_file("the embedded SentencePiece model is unusable: " + tables.message());
    // The library reports most bad models as a status, but its trie builder (Darts) throws on some
    // (a piece of zero length, found by fuzz_sentencepiece_model): a C++ exception out of a
    // model file must not terminate the caller.
    try {
      const auto status =
          processor_.LoadFromSerializedProto(proto);
      // The library's messages may quote pieces of the model; Status keeps them one line.
      if (!status.ok()) return invalid_file(std::string("the embedded SentencePiece model is unusable: ") + status.message());
    } catch (const std::exception& e) {
      return invalid_file(std::string("the embedded SentencePiece model is unusable: ") + e.what());
    }
    return Status::success();
  }

  Status encode_pieces(std::string_view text, std::vector<std::string>* pieces) const override {
    pieces->clear();
    std::string cleaned;
    if (language_code_prefix_) {
      std::string code;
      split_language_code(text, &code, &cleaned);
      if (!code.empty()) pieces->push_back(std::move(code));
      text = cleaned;
    }
    std::vector<std::string> split;
    const auto status = processor_.Encode(text, &split);
    if (!status.ok()) return invalid_argument(std::string("SentencePiece cannot encode the text: ") + status.message());
    pieces->insert(pieces->end(), std::make_move_iterator(split.begin()), std::make_move_iterator(split.end()));
    return Status::success();
  }

  Status decode_pieces(const std::vector<std::string>& pieces, std::string* text) const override {
    std::string decoded;
    const auto status = processor_.Decode(pieces, &decoded);
    if (!status.ok()) return invalid_argument(std::string("SentencePiece cannot decode the pieces: ") + status.message());
    // Pieces the model does not know keep their boundary marks; they read as spaces.
    std::string out;
    out.reserve(decoded.size());
    for (size_t i = 0; i < decoded.size();) {
      if (decoded.compare(i, kSpaceMark.size(), kSpaceMark) == 0) {
        out.push_back(' ');
        i += kSpaceMark.size();
      } else {
        out.push_back(decoded[i++]);
      }
    }
    size_t begin = 0, end = out.size();
    while (begin < end && is_space(out[begin])) ++begin;
    while (end > begin && is_space(out[end - 1])) --end;
    *text = out.substr(begin, end - begin);
    return Status::success();
  }

 private:
  sentencepiece::SentencePieceProcessor processor_;
  bool language_code_prefix_ = false;
};

}  // namespace

Status check_sentencepiece_model(const void* model_bytes, size_t size) {
  if (model_bytes == nullptr || size == 0) return invalid_file("the SentencePiece model is empty");
  SentencePieceTokenizer probe({std::string()}, TokenizerOptions{});  // loading needs no vocabulary
  return probe.load(model_bytes, size);
}

Status create_sentencepiece_tokenizer(const void* model_bytes, size_t size, std::vector<std::string> vocabulary,
                                      const TokenizerOptions& options, std::unique_ptr<Tokenizer>* out) {
  if (model_bytes == nullptr || size == 0) return invalid_argument("no SentencePiece model bytes");
  if (vocabulary.empty()) return invalid_argument("a SentencePiece tokenizer needs the model's vocabulary");
  auto tokenizer = std::make_unique<SentencePieceTokenizer>(std::move(vocabulary), options);
  HEED_RETURN_IF_ERROR(tokenizer->load(model_bytes, size));
  *out = std::move(tokenizer);
  return Status::success();
}

}  // namespace heed
