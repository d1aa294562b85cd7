// A StepModel view whose first decoder input (bos_id) the generator chooses per call: the model's
// start token when it has one, else the prompt's first token (language models trained without a
// start token, such as OpenNMT-py's transformer_lm, continue their first prompt token directly).
// In a batch, each sentence may start from its own token (set_starts). Everything else forwards
// to the wrapped model.
#pragma once

#include <vector>

#include "heed/step_model.h"

namespace heed::generation {

class StartTokenModel final : public StepModel {
 public:
  StartTokenModel(StepModel* inner, int32_t start)
      : inner_(inner), start_(start), first_inputs_(inner->limits().max_batch * inner->limits().max_beam) {}
  void set_start(int32_t start) {
    start_ = start;
    starts_ = nullptr;
  }
  // Sentence i of the next batches starts from starts[i] (null: bos_id() for all); kept by pointer.
  void set_starts(const int32_t* starts) { starts_ = starts; }

  size_t vocab_size() const override { return inner_->vocab_size(); }
  int32_t bos_id() const override { return start_; }
  int32_t eos_id() const override { return inner_->eos_id(); }
  const StepModelLimits& limits() const override { return inner_->limits(); }
  Status start(const TokenBatch* sources, size_t batch, size_t beam) override {
    beam_ = beam;
    return inner_->start(sources, batch, beam);
  }
  void step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) override {
    if (step == 0 && starts_ != nullptr && rows <= first_inputs_.size() && beam_ > 0) {
      for (size_t r = 0; r < rows; ++r) first_inputs_[r] = starts_[r / beam_];
      input_ids = first_inputs_.data();
    }
    inner_->step(input_ids, rows, step, log_probs);
  }
  bool set_raw_logits(bool on) override { return inner_->set_raw_logits(on); }
  void log_softmax_rows(float* scores, size_t rows) const override { inner_->log_softmax_rows(scores, rows); }
  bool log_softmax_shift(const float* scores, float* shift) const override {
    return inner_->log_softmax_shift(scores, shift);
  }
  void reorder(const int32_t* parents, size_t rows) override { inner_->reorder(parents, rows); }
  bool compact_rows(const int32_t* keep, size_t count) override { return inner_->compact_rows(keep, count); }
  void parallel_for(size_t count, void (*fn)(void*, size_t, size_t), void* context) const override {
    inner_->parallel_for(count, fn, context);
  }

 private:
  StepModel* inner_;
  int32_t start_;
  const int32_t* starts_ = nullptr;
  size_t beam_ = 0;
  std::vector<int32_t> first_inputs_;  // [max rows], sized once
};

}  // namespace heed::generation
