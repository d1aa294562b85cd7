// The decoding controls (DecodeControls) that change a row's scores before a token is chosen
// (CTranslate2's logits processors): repetition penalty, unknown token, suppressed sequences,
// repeated n-grams, end tokens held back before min_length. Written once for greedy search,
// sampling and beam search. Pure functions over the row and its history: no allocation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "heed/decoding.h"
#include "heed/step_model.h"
#include "decoding/token_selection.h"

namespace heed::decoding {

class Controls {
 public:
  Controls(const DecodeControls& c, int32_t unk_id, int32_t model_eos);

  // The repetition penalty is defined on logits (its sign rule is not shift-invariant): the
  // engine then asks the model for logits and every row goes through prepare_row().
  bool needs_logits() const { return penalty_ != 1.0f; }
  bool is_end(int32_t token) const;
  int32_t first_end() const { return num_end_ > 0 ? end_ids_[0] : eos_; }

  // Makes one row a log-probability distribution with the controls applied. `history`: the
  // row's tokens so far (forced prefix included), `length` of them; `prefix_length` of them were
  // forced. `free_step`: the token is
  // chosen (not forced by a prefix); controls apply only then. `before_min_length`: the end
  // tokens are held back. `scores` are logits when needs_logits(), else log-probs.
  void prepare_row(float* scores, size_t vocab, const int32_t* history, size_t length, size_t prefix_length,
                   bool before_min_length, const StepModel& model) const;
  // The same controls without rewriting the row (beam search: the row is read once more, at the
  // candidates' scan): when !needs_logits(), `scores` are log-probs up to `shift` (x - shift; 0
  // for log-prob rows), the forbidden tokens become -inf and the returned view reads the entries
  // as prepare_row() would have left them. With needs_logits() the row is prepared in place and
  // the view is the identity.
  LogProbView prepare_view(float* scores, float shift, size_t vocab, const int32_t* history, size_t length,
                           size_t prefix_length, bool before_min_length, const StepModel& model) const;

 private:
  // Sets the forbidden tokens of a free step to -inf; returns the probability mass they held
  // (meaningful for log-prob rows, read as x - shift; each token counted once).
  double forbid(float* row, float shift, const int32_t* history, size_t length, bool before_min_length) const;
  void penalize_repetitions(float* logits, const int32_t* history, size_t length) const;

  const TokenBatch* suppress_;
  const int32_t* end_ids_;
  size_t num_end_;
  size_t ngram_;
  float penalty_;
  int32_t unk_;  // -1 unless disable_unk
  int32_t eos_;
  bool prefix_in_history_;
};

}  // namespace heed::decoding
