#include "decoding/decoding_controls.h"

#include "decoding/token_selection.h"

#include <algorithm>
#include <cmath>

namespace heed::decoding {

namespace {

// Whether the last `n` tokens of the history equal `tokens`.
bool ends_with(const int32_t* history, size_t length, const int32_t* tokens, size_t n) {
  return n <= length && std::equal(tokens, tokens + n, history + (length - n));
}

}  // namespace

Controls::Controls(const DecodeControls& c, int32_t unk_id, int32_t model_eos)
    : suppress_(c.suppress_sequences), end_ids_(c.end_ids), num_end_(c.end_ids ? c.num_end_ids : 0),
      ngram_(c.no_repeat_ngram_size), penalty_(c.repetition_penalty), unk_(c.disable_unk ? unk_id : -1),
      eos_(model_eos), prefix_in_history_(c.prefix_in_history) {}

bool Controls::is_end(int32_t token) const {
  if (num_end_ == 0) return token == eos_;
  return std::find(end_ids_, end_ids_ + num_end_, token) != end_ids_ + num_end_;
}

double Controls::forbid(float* row, float shift, const int32_t* history, size_t length, bool before_min_length) const {
  double removed = 0;
  if (before_min_length) {
    if (num_end_ == 0) removed += remove_token(row, eos_, shift);
    for (size_t i = 0; i < num_end_; ++i) removed += remove_token(row, end_ids_[i], shift);
  }
  if (unk_ >= 0) removed += remove_token(row, unk_, shift);
  for (size_t s = 0; suppress_ != nullptr && s < suppress_->size; ++s) {
    const size_t n = suppress_->length(s);
    const int32_t* seq = suppress_->sequence(s);
    if (n > 0 && ends_with(history, length, seq, n - 1)) removed += remove_token(row, seq[n - 1], shift);
  }
  if (ngram_ > 0 && length >= ngram_) {
    // Every earlier occurrence of the last n - 1 tokens forbids the token that followed it.
    const size_t context = ngram_ - 1;
    const int32_t* tail = history + (length - context);
    for (size_t start = 0; start + ngram_ <= length; ++start) {
      if (std::equal(tail, tail + context, history + start)) removed += remove_token(row, history[start + context], shift);
    }
  }
  return removed;
}

void Controls::penalize_repetitions(float* logits, const int32_t* history, size_t length) const {
  // Each distinct token once: a token seen twice is penalized once, from its original logit.
  for (size_t i = 0; i < length; ++i) {
    if (std::find(history, history + i, history[i]) != history + i) continue;
    float& x = logits[history[i]];
    x = x < 0 ? x * penalty_ : x / penalty_;
  }
}

LogProbView Controls::prepare_view(float* scores, float shift, size_t vocab, const int32_t* history, size_t length,
                                   size_t prefix_length, bool before_min_length, const StepModel& model) const {
  const bool free_step = length >= prefix_length;
  if (free_step && !prefix_in_history_) {
    history += prefix_length;
    length -= prefix_length;
  }
  if (needs_logits()) {
    if (free_step) {
      penalize_repetitions(scores, history, length);
      forbid(scores, 0.0f, history, length, before_min_length);
    }
    model.log_softmax_rows(scores, 1);
    return {};
  }
  LogProbView view{shift, 0.0f};
  if (!free_step) return view;
  view.norm = renormalization(scores, vocab, forbid(scores, shift, history, length, before_min_length), shift);
  return view;
}

void Controls::prepare_row(float* scores, size_t vocab, const int32_t* history, size_t length, size_t prefix_length,
                           bool before_min_length, const StepModel& model) const {
  const LogProbView view = prepare_view(scores, 0.0f, vocab, history, length, prefix_length, before_min_length, model);
  // Subtracting +0 changes nothing (-0 does: it turns -0 into +0, as renormalize() would).
  if (view.norm != 0.0f || std::signbit(view.norm)) {
    for (size_t j = 0; j < vocab; ++j) scores[j] -= view.norm;  // -inf stays -inf
  }
}

}  // namespace heed::decoding
