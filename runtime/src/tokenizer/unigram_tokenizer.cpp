#include <cstdio>
#include <algorithm>

#include "heed/utf8.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/text_steps.h"
#include "tokenizer/unigram.h"
#include "tokenizer/unigram_model.h"

namespace heed::tokenizer {
namespace {

std::vector<int32_t> ids_of(const flatbuffers::Vector<int32_t>* ids) {
  return ids ? std::vector<int32_t>(ids->begin(), ids->end()) : std::vector<int32_t>();
}

bool contains(const std::vector<int32_t>& ids, int32_t id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); }

class UnigramTokenizer final : public Tokenizer {
 public:
  UnigramTokenizer(std::vector<std::string> tokens, const TokenizerOptions& options) : Tokenizer(std::move(tokens), options) {}

  Status init(const fb::Tokenizer& tok) {
    const fb::UnigramText* spec = tok.unigram();
    if (spec == nullptr) return invalid_file("the Unigram tokenizer has no text steps");
    HEED_RETURN_IF_ERROR(TextSteps::create(*spec, &steps_));
    const auto* scores = spec->scores();
    std::vector<double> by_id;
    if (scores) by_id.assign(scores->begin(), scores->end());
    HEED_RETURN_IF_ERROR(UnigramModel::create(this, std::move(by_id), tok.unk_id(), spec->byte_fallback(), &model_));
    added_ids_ = ids_of(tok.special_ids());
    std::vector<std::string> added;
    for (const int32_t id : added_ids_) {
      if (id < 0 || static_cast<size_t>(id) >= vocabulary_size()) return invalid_file("the Unigram tokenizer's added token id is outside the vocabulary");
      added.push_back(token(id));
    }
    added_ = SpecialTokens(added);
    lstrip_ids_ = ids_of(spec->lstrip_ids());
    rstrip_ids_ = ids_of(spec->rstrip_ids());
    return Status::success();
  }

  Status encode_pieces(std::string_view text, std::vector<std::string>* pieces) const override {
    if (!text::is_valid_utf8(text)) return invalid_argument("the text is not valid UTF-8");
    pieces->clear();
    size_t done = 0;  // text[0, done) is tokenized
    for (size_t from = 0; from < text.size();) {
      const SpecialTokens::Match m = added_.find(text, from);
      if (m.at == std::string_view::npos) break;
      const int32_t id = added_ids_[m.index];
      size_t start = m.at, end = m.at + m.length;
      // tokenizers' lstrip: back over the whitespace before, but not into the previous token.
      while (contains(lstrip_ids_, id) && start > done && whitespace_length_before(text, start) > 0) {
        start -= whitespace_length_before(text, start);
      }
      while (contains(rstrip_ids_, id) && whitespace_length(text, end) > 0) end += whitespace_length(text, end);
      encode_stretch(text, done, start, pieces);
      pieces->push_back(token(id));
      done = from = end;
    }
    encode_stretch(text, done, text.size(), pieces);
    return Status::success();
  }

  Status decode_pieces(const std::vector<std::string>& pieces, std::string* text) const override {
    std::string out;
    for (const std::string& piece : pieces) {
      unsigned byte = 0;
      if (piece.size() == 6 && std::sscanf(piece.c_str(), "<0x%2X>", &byte) == 1) {
        out.push_back(static_cast<char>(byte));
      } else {
        out += piece;
      }
    }
    const std::string& mark = steps_.replacement();
    if (steps_.metaspace()) {
      for (size_t at = out.find(mark); at != std::string::npos; at = out.find(mark, at + 1)) out.replace(at, mark.size(), " ");
      if (steps_.prepend_scheme() != fb::PrependScheme::Never && !out.empty() && out[0] == ' ') out.erase(0, 1);
    }
    *text = std::move(out);
    return Status::success();
  }

 private:
  // text[begin, end): normalized, split into words, each through the model.
  void encode_stretch(std::string_view text, size_t begin, size_t end, std::vector<std::string>* pieces) const {
    if (end <= begin) return;
    std::string normalized;
    steps_.normalize(text.substr(begin, end - begin), &normalized);
    std::vector<std::string> words;
    const bool first = begin == 0 && (steps_.prepend_scheme() != fb::PrependScheme::First ||
                                      steps_.keeps_first_character(text.substr(begin, end - begin)));
    steps_.pre_tokenize(normalized, first, &words);
    for (const std::string& word : words) model_.encode(word, pieces);
  }

  TextSteps steps_;
  UnigramModel model_;
  SpecialTokens added_;
  std::vector<int32_t> added_ids_, lstrip_ids_, rstrip_ids_;
};

}  // namespace

Status create_unigram_tokenizer(const fb::Tokenizer& tok, std::vector<std::string> tokens, const TokenizerOptions& options,
                                std::unique_ptr<Tokenizer>* out) {
  auto tokenizer = std::make_unique<UnigramTokenizer>(std::move(tokens), options);
  HEED_RETURN_IF_ERROR(tokenizer->init(tok));
  *out = std::move(tokenizer);
  return Status::success();
}

}  // namespace heed::tokenizer
