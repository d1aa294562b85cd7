// The MaskFiller: an encoder-only session with the masked-LM head; the vocabulary's probabilities
// at each [MASK] and their top candidates, and its text layer.
#include <cstring>

#include "embedder/encoder_task.h"
#include "heed/encoder_tasks.h"

namespace heed {

namespace {

// out[0 .. k) = the k largest of p[0 .. n), largest first (the lower id first among equals).
void top_k(const float* p, size_t n, size_t k, MaskCandidate* out) {
  size_t filled = 0;
  for (size_t i = 0; i < n; ++i) {
    if (filled == k && !(p[i] > out[k - 1].score)) continue;
    size_t j = filled < k ? filled++ : k - 1;
    for (; j > 0 && out[j - 1].score < p[i]; --j) out[j] = out[j - 1];
    out[j] = MaskCandidate{static_cast<int32_t>(i), p[i]};
  }
}

size_t count_masks(const int32_t* ids, size_t n, int32_t mask_id) {
  size_t masks = 0;
  for (size_t i = 0; i < n; ++i) masks += ids[i] == mask_id ? 1 : 0;
  return masks;
}

}  // namespace

Status MaskFiller::create(const Model& model, const EncoderTaskOptions& options, std::unique_ptr<MaskFiller>* out) {
  std::unique_ptr<MaskFiller> f(new MaskFiller());
  HEED_RETURN_IF_ERROR(EncoderTask::create(model, models::EncoderTask::kFillMask, options, &f->task_));
  if (f->task_->tokenizer() == nullptr) return unsupported_model("the model has no WordPiece tokenizer: no [MASK] token");
  const char* recorded = model.metadata("tokenizer.mask_token");
  const std::string mask = recorded ? recorded : "[MASK]";
  f->mask_id_ = f->task_->tokenizer()->id(mask);
  if (f->mask_id_ < 0) return invalid_file("the model's vocabulary has no mask token '" + mask + "'");
  *out = std::move(f);
  return Status::success();
}

Status MaskFiller::open(const std::string& path, const EncoderTaskOptions& options, std::unique_ptr<MaskFiller>* out) {
  return EncoderTask::open(path, options, out);
}

Status MaskFiller::plan(const Model& model, const EncoderTaskOptions& options, ArenaReport* out) {
  return EncoderTask::plan(model, models::EncoderTask::kFillMask, options, out);
}

int32_t MaskFiller::mask_id() const { return mask_id_; }
size_t MaskFiller::vocab_size() const { return task_->session().masked_lm().vocab_size(); }
const std::string& MaskFiller::token(int32_t id) const { return task_->tokenizer()->token(id); }

// Encodes the batch, then calls each(m, logits) for its masks m = 0, 1, .. in order with the
// vocabulary's logits (writable session memory), `per_mask` values of `capacity` per mask.
template <typename Each>
Status MaskFiller::for_each_mask(const TokenBatch& batch, size_t per_mask, size_t capacity, size_t* masks, Each each) {
  if (masks == nullptr) return invalid_argument("the mask count pointer is null");
  models::EncoderOnly& s = task_->session();
  HEED_RETURN_IF_ERROR(s.encode(batch));
  *masks = count_masks(batch.ids + batch.offsets[0], batch.offsets[batch.size] - batch.offsets[0], mask_id_);
  if (*masks > capacity / per_mask) {
    return invalid_argument("the output holds " + std::to_string(capacity) + " values; " + std::to_string(*masks) +
                            " masks need " + std::to_string(*masks * per_mask));
  }
  size_t rows[models::kMaskChunk];
  size_t n = 0, done = 0;
  const auto flush = [&] {
    float* logits = s.mask_logits(rows, n);
    for (size_t i = 0; i < n; ++i) each(done + i, logits + i * vocab_size());
    done += n;
    n = 0;
  };
  for (size_t sentence = 0; sentence < batch.size; ++sentence) {
    for (size_t t = batch.offsets[sentence]; t < batch.offsets[sentence + 1]; ++t) {
      if (batch.ids[t] != mask_id_) continue;
      rows[n++] = s.offsets()[sentence] + (t - batch.offsets[sentence]);
      if (n == s.masked_lm().chunk_rows()) flush();
    }
  }
  if (n > 0) flush();
  return Status::success();
}

Status MaskFiller::fill_ids(const TokenBatch& batch, size_t top_k_count, MaskCandidate* out, size_t capacity,
                            size_t* masks) {
  if (top_k_count == 0 || top_k_count > vocab_size()) {
    return invalid_argument("top_k must be from 1 to the vocabulary's " + std::to_string(vocab_size()));
  }
  if (out == nullptr && capacity > 0) return invalid_argument("fill_ids: out is null");
  return for_each_mask(batch, top_k_count, capacity, masks, [&](size_t m, float* logits) {
    apply_score_function(ScoreFunction::kSoftmax, logits, vocab_size());
    top_k(logits, vocab_size(), top_k_count, out + m * top_k_count);
  });
}

Status MaskFiller::mask_logits(const TokenBatch& batch, float* out, size_t capacity, size_t* masks) {
  if (out == nullptr && capacity > 0) return invalid_argument("mask_logits: out is null");
  return for_each_mask(batch, vocab_size(), capacity, masks, [&](size_t m, const float* logits) {
    std::memcpy(out + m * vocab_size(), logits, vocab_size() * sizeof(float));
  });
}

Status MaskFiller::fill_text(const std::vector<std::string>& texts, size_t top_k_count,
                             std::vector<std::vector<std::vector<MaskCandidate>>>* out) {
  out->assign(texts.size(), {});
  std::vector<MaskCandidate> candidates;
  return task_->for_each_batch(texts, [&](const TokenBatch& batch, size_t first) -> Status {
    candidates.resize(count_masks(batch.ids, batch.offsets[batch.size], mask_id_) * top_k_count);  // offsets from 0
    size_t masks = 0;
    HEED_RETURN_IF_ERROR(fill_ids(batch, top_k_count, candidates.data(), candidates.size(), &masks));
    const MaskCandidate* next = candidates.data();
    for (size_t s = 0; s < batch.size; ++s) {
      auto& sentence = (*out)[first + s];
      const size_t n = count_masks(batch.ids + batch.offsets[s], batch.offsets[s + 1] - batch.offsets[s], mask_id_);
      for (size_t m = 0; m < n; ++m, next += top_k_count) sentence.emplace_back(next, next + top_k_count);
    }
    return Status::success();
  });
}

}  // namespace heed
