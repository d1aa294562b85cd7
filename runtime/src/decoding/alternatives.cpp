// return_alternatives (decoding.h), CTranslate2's decode_alternatives with a greedy continuation:
// one sentence at a time, its n_best rows read the forced prefix together, the first free
// position is expanded into the n_best most likely tokens (end tokens held back), and each row
// then continues its own alternative greedily.
#include <algorithm>
#include <cmath>
#include <limits>

#include "decoding/decoding_controls.h"
#include "decoding/decoding_storage.h"
#include "decoding/length_penalty.h"
#include "decoding/start_batch.h"
#include "decoding/token_selection.h"
#include "heed/decoding.h"

namespace heed {
namespace {

constexpr size_t kAllForced = std::numeric_limits<size_t>::max();  // prepare_row: a forced step

class AlternativesSearch {
 public:
  AlternativesSearch(DecodingEngine::Storage& s, StepModel& model, const DecodeOptions& o, size_t max_length,
                     int32_t unk_id)
      : s_(s), model_(model), o_(o), max_length_(max_length), controls_(o.controls, unk_id, model.eos_id()) {}

  // Sentence i: its source (null for decoder-only models) and prefix (length 0 for none).
  Status run(size_t i, const TokenBatch* source, const int32_t* prefix, size_t prefix_length) {
    const size_t rows = o_.n_best;
    const size_t offsets[2] = {0, prefix_length};
    const TokenBatch prefix_batch{prefix, offsets, 1};
    HEED_RETURN_IF_ERROR(decoding::start_batch(model_, source, 1, rows, o_, &prefix_batch));
    i_ = i;
    prefix_length = std::min(prefix_length, max_length_);
    for (size_t r = 0; r < rows; ++r) s_.inputs[r] = model_.bos_id();
    for (size_t t = 0; t < prefix_length; ++t) force(t, prefix[t], rows);
    count_ = 0;
    if (prefix_length == max_length_) {
      finish_prefix_only(prefix_length);
      return Status::success();
    }
    expand(prefix_length, rows);
    for (size_t t = prefix_length + 1; t < max_length_ && alive() > 0; ++t) {
      if (decoding::stop_requested(o_)) return decoding::stop_status(o_);
      continue_rows(t, prefix_length);
    }
    for (size_t k = 0; k < count_; ++k) collect(k, prefix_length);
    s_.counts[i_] = std::max<size_t>(count_, 1);
    return Status::success();
  }

 private:
  int32_t* ids(size_t k) const { return s_.finished_ids + (i_ * s_.finished_capacity + k) * s_.max_steps; }
  float* lps(size_t k) const { return s_.finished_log_probs + (i_ * s_.finished_capacity + k) * s_.max_steps; }
  size_t alive() const {
    size_t n = 0;
    for (size_t k = 0; k < count_; ++k) n += s_.row_state[k] == 0 ? 1 : 0;
    return n;
  }

  // A prefix step: every row reads the same token (row 0's log-prob is the hypotheses').
  void force(size_t t, int32_t token, size_t rows) {
    model_.step(s_.inputs, rows, t, s_.log_probs);
    controls_.prepare_row(s_.log_probs, s_.vocab, ids(0), t, kAllForced, false, model_);
    for (size_t k = 0; k < o_.n_best; ++k) {
      ids(k)[t] = token;
      lps(k)[t] = s_.log_probs[token];
    }
    for (size_t r = 0; r < rows; ++r) s_.inputs[r] = token;
  }

  // The first free step: the n_best most likely tokens of row 0, end tokens held back.
  void expand(size_t t, size_t rows) {
    model_.step(s_.inputs, rows, t, s_.log_probs);
    float* row = s_.log_probs;
    controls_.prepare_row(row, s_.vocab, ids(0), 0, 0, /*before_min_length=*/true, model_);
    for (size_t j = 0; j < s_.vocab; ++j) s_.sample_ids[j] = static_cast<int32_t>(j);
    const auto better = [row](int32_t a, int32_t b) { return row[a] > row[b] || (row[a] == row[b] && a < b); };
    std::partial_sort(s_.sample_ids, s_.sample_ids + rows, s_.sample_ids + s_.vocab, better);
    for (size_t k = 0; k < rows; ++k) {
      const int32_t token = s_.sample_ids[k];
      const float lp = row[token];
      if (lp == -std::numeric_limits<float>::infinity() || std::exp(lp) < o_.min_alternative_probability) break;
      ids(k)[t] = token;
      lps(k)[t] = lp;
      s_.inputs[k] = token;
      s_.row_state[k] = t + 1 == max_length_ ? 1 : 0;
      s_.row_lengths[k] = t + 1;
      ++count_;
    }
    for (size_t r = count_; r < rows; ++r) s_.inputs[r] = controls_.first_end();  // rows without an alternative
  }

  // A continuation step of every row still decoding; its controls see only the continuation.
  void continue_rows(size_t t, size_t prefix_length) {
    model_.step(s_.inputs, o_.n_best, t, s_.log_probs);
    const size_t suffix_begin = prefix_length + 1, suffix_min = o_.min_length > suffix_begin ? o_.min_length - suffix_begin : 0;
    for (size_t k = 0; k < count_; ++k) {
      if (s_.row_state[k] != 0) continue;
      float* row = s_.log_probs + k * s_.vocab;
      const size_t s = t - suffix_begin;
      controls_.prepare_row(row, s_.vocab, ids(k) + suffix_begin, s, 0, s < suffix_min, model_);
      const int32_t token = decoding::argmax(row, s_.vocab);
      ids(k)[t] = token;
      lps(k)[t] = row[token];
      s_.inputs[k] = token;
      const bool end = controls_.is_end(token);
      if (end || t + 1 == max_length_) {
        s_.row_state[k] = end ? 2 : 1;
        s_.row_lengths[k] = end ? t : t + 1;
      }
    }
  }

  // Hypothesis k: the alternative token's log-prob plus the continuation's normalized score.
  void collect(size_t k, size_t prefix_length) {
    Hypothesis& h = s_.hypotheses[i_ * s_.max_n_best + k];
    h = Hypothesis{};
    h.ids = ids(k);
    h.token_log_probs = lps(k);
    h.length = s_.row_lengths[k];
    h.finished_with_eos = s_.row_state[k] == 2;
    h.num_log_probs = h.length + (h.finished_with_eos ? 1 : 0);
    float sum = 0, suffix = 0;
    for (size_t t = 0; t < h.num_log_probs; ++t) {
      sum += h.token_log_probs[t];
      if (t > prefix_length) suffix += h.token_log_probs[t];
    }
    h.log_prob = sum;
    const size_t suffix_steps = h.num_log_probs - prefix_length - 1;
    h.score = h.token_log_probs[prefix_length] +
              (suffix_steps > 0 ? decoding::normalized_score(suffix, suffix_steps, o_.length_penalty) : 0.0f);
  }

  void finish_prefix_only(size_t prefix_length) {
    Hypothesis& h = s_.hypotheses[i_ * s_.max_n_best];
    h = Hypothesis{};
    h.ids = ids(0);
    h.token_log_probs = lps(0);
    h.length = h.num_log_probs = prefix_length;
    for (size_t t = 0; t < prefix_length; ++t) h.log_prob += h.token_log_probs[t];
    s_.counts[i_] = 1;
  }

  DecodingEngine::Storage& s_;
  StepModel& model_;
  const DecodeOptions& o_;
  const size_t max_length_;
  const decoding::Controls controls_;
  size_t i_ = 0;
  size_t count_ = 0;  // alternatives of the sentence
};

}  // namespace

Status DecodingEngine::alternatives(const TokenBatch* sources, size_t batch, const DecodeOptions& o,
                                    const TokenBatch* prefixes, size_t max_length, DecodeOutput* out) {
  AlternativesSearch search(*storage_, *model_, o, max_length, unk_id_);
  for (size_t i = 0; i < batch; ++i) {
    const size_t offsets[2] = {0, sources ? sources->length(i) : 0};
    const TokenBatch source{sources ? sources->sequence(i) : nullptr, offsets, 1};
    const int32_t* prefix = prefixes ? prefixes->sequence(i) : nullptr;
    HEED_RETURN_IF_ERROR(search.run(i, sources ? &source : nullptr, prefix, prefixes ? prefixes->length(i) : 0));
  }
  out->stride = storage_->max_n_best;
  return Status::success();
}

}  // namespace heed
