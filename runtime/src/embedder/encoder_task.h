// What the Embedder, Classifier and MaskFiller share: an encoder-only session created for one task,
// the model's WordPiece (or Unigram) tokenizer with [CLS] and [SEP] (<s> and </s>), the text layer that turns lines into
// [CLS] pieces [SEP] truncated to max_length and feeds them in batches of max_batch, and the
// model an open() keeps alive.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/arena.h"
#include "heed/encoder_tasks.h"
#include "heed/model.h"
#include "heed/status.h"
#include "heed/step_model.h"
#include "heed/tokenizer.h"
#include "models/encoder_only.h"

namespace heed {

// In place: softmax (max subtracted first), sigmoid or nothing over n values.
void apply_score_function(ScoreFunction f, float* x, size_t n);

class EncoderTask {
 public:
  // A session for `task` (with `arena` null only plans, filling `report`; *out stays empty).
  static Status create(const Model& model, models::EncoderTask task, size_t max_batch, size_t max_length,
                       const ArenaOptions* arena, ArenaReport* report, threading::PoolOptions threads, std::unique_ptr<EncoderTask>* out);
  template <typename Options>
  static Status create(const Model& model, models::EncoderTask task, const Options& o, std::unique_ptr<EncoderTask>* out) {
    return create(model, task, o.max_batch, o.max_length, &o.arena, nullptr, {o.threads, o.spin_microseconds}, out);
  }
  template <typename Options>
  static Status plan(const Model& model, models::EncoderTask task, const Options& o, ArenaReport* report) {
    return create(model, task, o.max_batch, o.max_length, nullptr, report, {o.threads, o.spin_microseconds}, nullptr);
  }
  // Opens the file and runs T::create(model, options, &t); t keeps the model (T befriends EncoderTask).
  template <typename T, typename Options>
  static Status open(const std::string& path, const Options& options, std::unique_ptr<T>* out) {
    std::unique_ptr<Model> model;
    HEED_RETURN_IF_ERROR(Model::open(path, options.load, &model));
    std::unique_ptr<T> t;
    HEED_RETURN_IF_ERROR(T::create(*model, options, &t));
    t->task_->owned_model_ = std::move(model);
    *out = std::move(t);
    return Status::success();
  }

  models::EncoderOnly& session() const { return *session_; }
  const Tokenizer* tokenizer() const { return tokenizer_.get(); }
  // [CLS] + the tokenizer's ids + [SEP], the pieces cut so the total fits max_length.
  Status encode(std::string_view text, std::vector<int32_t>* ids) const;
  // run(batch, first): the texts encoded, max_batch sentences at a time; `first` is the index of
  // the batch's first text.
  template <typename Run>
  Status for_each_batch(const std::vector<std::string>& texts, Run run) const {
    if (session_->max_length() < 2) return invalid_argument("max_length must be at least 2 for [CLS] and [SEP]");
    std::vector<int32_t> ids, one;
    std::vector<size_t> offsets;
    for (size_t begin = 0; begin < texts.size(); begin += session_->max_batch()) {
      const size_t end = std::min(texts.size(), begin + session_->max_batch());
      ids.clear();
      offsets.assign(1, 0);
      for (size_t i = begin; i < end; ++i) {
        HEED_RETURN_IF_ERROR(encode(texts[i], &one));
        ids.insert(ids.end(), one.begin(), one.end());
        offsets.push_back(ids.size());
      }
      HEED_RETURN_IF_ERROR(run(TokenBatch{ids.data(), offsets.data(), end - begin}, begin));
    }
    return Status::success();
  }

 private:
  std::unique_ptr<Model> owned_model_;
  std::unique_ptr<models::EncoderOnly> session_;
  std::unique_ptr<Tokenizer> tokenizer_;
  int32_t cls_id_ = -1, sep_id_ = -1;
};

}  // namespace heed
