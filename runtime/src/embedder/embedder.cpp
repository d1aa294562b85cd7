// The Embedder: an encoder-only session, the model's WordPiece tokenizer and pooling together.
#include "heed/embedder.h"

#include <algorithm>

#include "models/encoder_only.h"
#include "heed/tokenizer.h"
#include "loader/model_index.h"

#include <cstdlib>
#include <string_view>

namespace heed {

bool parse_pooling(std::string_view name, Pooling* out) {
  if (name == "mean") {
    *out = Pooling::kMean;
  } else if (name == "cls") {
    *out = Pooling::kCls;
  } else {
    return false;
  }
  return true;
}

const char* pooling_name(Pooling pooling) { return pooling == Pooling::kCls ? "cls" : "mean"; }

Embedder::Embedder() = default;
Embedder::~Embedder() = default;

namespace {

// The tokens per sentence a session reads when the caller leaves it to the model: the length the
// model was trained to read (sentence-transformers' max_seq_length, metadata embedding.max_length)
// within its position table, else the table (0: EncoderOnly's own default).
size_t default_max_length(const Model& model, size_t asked) {
  if (asked != 0) return asked;
  const char* recorded = model.metadata("embedding.max_length");
  if (recorded == nullptr) return 0;
  const size_t trained = std::strtoull(recorded, nullptr, 10);
  const size_t positions = model.position_limits().source;
  return positions != 0 && trained > positions ? positions : trained;
}

}  // namespace

Status Embedder::create(const Model& model, const EmbedderOptions& options, std::unique_ptr<Embedder>* out) {
  std::unique_ptr<Embedder> e(new Embedder());
  HEED_RETURN_IF_ERROR(models::EncoderOnly::create(model, options.max_batch, default_max_length(model, options.max_length),
                                                                    &options.arena, nullptr, &e->session_,
                                                                    options.threads));
  const fb::Tokenizer* tok = model.index().tokenizer();
  if (tok != nullptr && tok->kind() == fb::TokenizerKind::WordPiece) {
    HEED_RETURN_IF_ERROR(create_tokenizer(model, TokenizerSide::kTarget, &e->tokenizer_));
    e->cls_id_ = tok->bos_id();
    e->sep_id_ = tok->eos_id();
  }
  const char* recorded = model.metadata("embedding.pooling");
  const std::string pooling = recorded ? recorded : "";
  if (!pooling.empty() && !parse_pooling(pooling, &e->default_pooling_)) {
    return invalid_file("metadata embedding.pooling is '" + pooling + "' (mean or cls)");
  }
  const char* normalize = model.metadata("embedding.normalize");
  e->default_normalize_ = normalize != nullptr && std::string_view(normalize) == "true";
  *out = std::move(e);
  return Status::success();
}

Status Embedder::open(const std::string& path, const EmbedderOptions& options, std::unique_ptr<Embedder>* out) {
  std::unique_ptr<Model> model;
  HEED_RETURN_IF_ERROR(Model::open(path, options.load, &model));
  std::unique_ptr<Embedder> e;
  HEED_RETURN_IF_ERROR(create(*model, options, &e));
  e->owned_model_ = std::move(model);
  *out = std::move(e);
  return Status::success();
}

Status Embedder::plan(const Model& model, const EmbedderOptions& options, ArenaReport* out) {
  return models::EncoderOnly::create(model, options.max_batch, default_max_length(model, options.max_length), nullptr, out,
                                                      nullptr, options.threads);
}

size_t Embedder::dimension() const { return session_->dimension(); }
size_t Embedder::max_batch() const { return session_->max_batch(); }
size_t Embedder::max_length() const { return session_->max_length(); }
const ArenaReport& Embedder::arena_report() const { return session_->arena_report(); }

Status Embedder::embed_ids(const TokenBatch& batch, Pooling pooling, bool normalize, float* out) {
  if (out == nullptr) return invalid_argument("embed_ids needs an output buffer");
  HEED_RETURN_IF_ERROR(session_->encode(batch));
  session_->pool(pooling, normalize, out);
  return Status::success();
}

const float* Embedder::last_hidden_states(size_t i, size_t* length) const {
  return session_->hidden_states(i, length);
}

Status Embedder::encode(std::string_view text, std::vector<int32_t>* ids) const {
  if (!tokenizer_) return unsupported_model("the model has no WordPiece tokenizer: give token ids");
  if (cls_id_ < 0 || sep_id_ < 0) return invalid_file("the model's tokenizer has no [CLS] (bos_id) or [SEP] (eos_id)");
  std::vector<int32_t> pieces;
  HEED_RETURN_IF_ERROR(tokenizer_->encode(text, &pieces));
  const size_t room = max_length() >= 2 ? max_length() - 2 : 0;
  if (pieces.size() > room) pieces.resize(room);  // BertTokenizer's truncation keeps the first pieces
  ids->clear();
  ids->reserve(pieces.size() + 2);
  ids->push_back(cls_id_);
  ids->insert(ids->end(), pieces.begin(), pieces.end());
  ids->push_back(sep_id_);
  return Status::success();
}

Status Embedder::embed_text(const std::vector<std::string>& texts, Pooling pooling, bool normalize,
                            std::vector<float>* out) {
  if (max_length() < 2) return invalid_argument("max_length must be at least 2 for [CLS] and [SEP]");
  out->assign(texts.size() * dimension(), 0.0f);
  std::vector<int32_t> ids, one;
  std::vector<size_t> offsets;
  for (size_t begin = 0; begin < texts.size(); begin += max_batch()) {
    const size_t end = std::min(texts.size(), begin + max_batch());
    ids.clear();
    offsets.assign(1, 0);
    for (size_t i = begin; i < end; ++i) {
      HEED_RETURN_IF_ERROR(encode(texts[i], &one));
      ids.insert(ids.end(), one.begin(), one.end());
      offsets.push_back(ids.size());
    }
    TokenBatch batch;
    batch.ids = ids.data();
    batch.offsets = offsets.data();
    batch.size = end - begin;
    HEED_RETURN_IF_ERROR(embed_ids(batch, pooling, normalize, out->data() + begin * dimension()));
  }
  return Status::success();
}

}  // namespace heed
