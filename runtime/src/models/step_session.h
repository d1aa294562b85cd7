// What the generative families (Transformer encoder-decoder, decoder-only, RNN seq2seq) share on
// top of the session skeleton: the StepModel limits, the batch state start() sets, the checks of
// start() and step() calls, and the NaN answer to a step() call that cannot be run (step() has no
// Status to return).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "heed/model.h"
#include "heed/step_model.h"
#include "models/session.h"

namespace heed::models {

class StepSession : public StepModel, public Session {
 public:
  // The create() of every generative family S (EncoderDecoder, DecoderOnly, RnnSeq2Seq), called as
  // S::create(...): with `arena` null only plans (fills `report`); otherwise also allocates, binds
  // and sets *out. `threads` 0: one per core. S::load(model, limits) reads the weights and checks
  // the limits.
  template <typename S>
  static Status create(const Model& model, const StepModelLimits& limits, const ArenaOptions* arena,
                       ArenaReport* report, std::unique_ptr<S>* out, threading::PoolOptions threads = 1) {
    return create_family(threads, arena, report, "session", out, model, limits);
  }

  const StepModelLimits& limits() const override { return limits_; }
  // The first decoder input and the end id, from the file's tokenizer section. bos is -1 for
  // language models trained without a start token (OpenNMT-py's transformer_lm): their first
  // input is the prompt's first token, which heed::Generator arranges.
  int32_t bos_id() const override { return bos_id_; }
  int32_t eos_id() const override { return eos_id_; }
  bool set_raw_logits(bool on) override {
    raw_logits_ = on;
    return true;
  }
  void log_softmax_rows(float* scores, size_t rows) const override;
  bool log_softmax_shift(const float* scores, float* shift) const override;
  // One item per range task, over the session's pool.
  void parallel_for(size_t count, void (*fn)(void* context, size_t begin, size_t end), void* context) const override;

 protected:
  // Every limit at least 1 (max_source_len too when `needs_source`); remembers them.
  Status set_limits(const StepModelLimits& limits, bool needs_source);
  // Resets the batch state; batch and beam within the session's limits (kLimitExceeded).
  Status begin(size_t batch, size_t beam);
  // A step() call that can run: started, rows within batch * beam, ids inside the vocabulary, the
  // step within max_target_len and (when `in_order`) not skipping a position. Otherwise fills
  // log_probs with NaN (when rows is within the limits) and returns false.
  bool check_step(const int32_t* ids, size_t rows, size_t step, float* log_probs, size_t vocab,
                  bool in_order) const;
  // What every step() ends with: each row's log-softmax, unless raw logits were asked for.
  void finish_step(float* scores, size_t rows) const {
    if (!raw_logits_) log_softmax_rows(scores, rows);
  }
  // compact_rows() may run with this `keep`: started, increasing rows of the batch, each kept row at
  // or after its new place, and whole sentences (beam > 1: each sentence's rows together, in order).
  bool can_compact(const int32_t* keep, size_t count) const;
  // reorder() may run: started, rows within batch * beam, something cached.
  bool can_reorder(size_t rows) const { return started_ && rows > 0 && rows <= batch_ * beam_ && cache_length_ > 0; }

  StepModelLimits limits_;
  int32_t bos_id_ = -1, eos_id_ = -1;
  size_t max_rows_ = 0;  // max_batch * max_beam
  bool started_ = false;
  size_t batch_ = 0, beam_ = 0;
  size_t cache_length_ = 0;  // decoder positions held in the caches
  bool raw_logits_ = false;  // set_raw_logits()
};

}  // namespace heed::models
