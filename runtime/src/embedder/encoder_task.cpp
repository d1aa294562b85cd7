#include "embedder/encoder_task.h"

#include <cmath>

#include "loader/model_index.h"

namespace heed {

void apply_score_function(ScoreFunction f, float* x, size_t n) {
  if (f == ScoreFunction::kSigmoid) {
    for (size_t i = 0; i < n; ++i) x[i] = 1.0f / (1.0f + std::exp(-x[i]));
  }
  if (f != ScoreFunction::kSoftmax || n == 0) return;
  float max = x[0];
  for (size_t i = 1; i < n; ++i) max = std::max(max, x[i]);
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(x[i] / sum);
}

Status EncoderTask::create(const Model& model, models::EncoderTask task, size_t max_batch, size_t max_length,
                           const ArenaOptions* arena, ArenaReport* report, threading::PoolOptions threads,
                           std::unique_ptr<EncoderTask>* out) {
  std::unique_ptr<EncoderTask> t(new EncoderTask());
  HEED_RETURN_IF_ERROR(
      models::EncoderOnly::create(model, max_batch, max_length, arena, report, &t->session_, threads, task));
  if (arena == nullptr) return Status::success();
  const fb::Tokenizer* tok = file_index(model).tokenizer();
  // BERT's WordPiece ([CLS] ... [SEP]) or XLM-RoBERTa's Unigram (<s> ... </s>, the post-processor's).
  if (tok != nullptr && (tok->kind() == fb::TokenizerKind::WordPiece || tok->kind() == fb::TokenizerKind::Unigram)) {
    HEED_RETURN_IF_ERROR(create_tokenizer(model, TokenizerSide::kTarget, &t->tokenizer_));
    t->cls_id_ = tok->bos_id();
    t->sep_id_ = tok->eos_id();
  }
  *out = std::move(t);
  return Status::success();
}

Status EncoderTask::encode(std::string_view text, std::vector<int32_t>* ids) const {
  if (!tokenizer_) return unsupported_model("the model has no WordPiece or Unigram tokenizer: give token ids");
  if (cls_id_ < 0 || sep_id_ < 0) return invalid_file("the model's tokenizer has no [CLS] (bos_id) or [SEP] (eos_id)");
  std::vector<int32_t> pieces;
  HEED_RETURN_IF_ERROR(tokenizer_->encode(text, &pieces));
  const size_t max_length = session_->max_length();
  const size_t room = max_length >= 2 ? max_length - 2 : 0;
  if (pieces.size() > room) pieces.resize(room);  // BertTokenizer's truncation keeps the first pieces
  ids->clear();
  ids->reserve(pieces.size() + 2);
  ids->push_back(cls_id_);
  ids->insert(ids->end(), pieces.begin(), pieces.end());
  ids->push_back(sep_id_);
  return Status::success();
}

}  // namespace heed
