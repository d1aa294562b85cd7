// A StepModel view whose first decoder input (bos_id) the generator chooses per call: the model's
// start token when it has one, else the prompt's first token (language models trained without a
// start token, such as OpenNMT-py's transformer_lm, continue their first prompt token directly).
// Everything else forwards to the wrapped model.
#pragma once

#include "heed/step_model.h"

namespace heed::generation {

class StartTokenModel final : public StepModel {
 public:
  StartTokenModel(StepModel* inner, int32_t start) : inner_(inner), start_(start) {}
  void set_start(int32_t start) { start_ = start; }

  size_t vocab_size() const override { return inner_->vocab_size(); }
  int32_t bos_id() const override { return start_; }
  int32_t eos_id() const override { return inner_->eos_id(); }
  const StepModelLimits& limits() const override { return inner_->limits(); }
  Status start(const TokenBatch* sources, size_t batch, size_t beam) override {
    return inner_->start(sources, batch, beam);
  }
  void step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) override {
    inner_->step(input_ids, rows, step, log_probs);
  }
  bool set_raw_logits(bool on) override { return inner_->set_raw_logits(on); }
  void log_softmax_rows(float* scores, size_t rows) const override { inner_->log_softmax_rows(scores, rows); }
  void reorder(const int32_t* parents, size_t rows) override { inner_->reorder(parents, rows); }

 private:
  StepModel* inner_;
  int32_t start_;
};

}  // namespace heed::generation
