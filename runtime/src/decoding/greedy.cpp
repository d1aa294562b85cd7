// Greedy search and sampling: one hypothesis per sentence, one row per sentence.
#include <algorithm>
#include <cmath>

#include "decoding/decoding_controls.h"
#include "decoding/decoding_storage.h"
#include "decoding/length_penalty.h"
#include "decoding/start_batch.h"
#include "decoding/token_selection.h"
#include "heed/decoding.h"

namespace heed {

namespace {

// The hypothesis of sentence i once decoding stopped.
void collect(DecodingEngine::Storage& s, size_t i, const TokenBatch* prefixes, const DecodeOptions& o,
             bool with_attention) {
  const size_t stride = s.max_steps;
  Hypothesis& h = s.hypotheses[i * s.max_n_best];
  h.ids = s.history_ids[0] + i * stride;
  h.length = s.lengths[i];
  h.finished_with_eos = s.with_eos[i] != 0;
  h.token_log_probs = s.history_log_probs[0] + i * stride;
  h.num_log_probs = h.length + (h.finished_with_eos ? 1 : 0);
  h.attention = with_attention ? s.hypothesis_attention + i * s.max_n_best * s.max_steps * s.attention_floats : nullptr;
  // log_prob counts every token; the score only those after the forced prefix, over the whole
  // length (decoding.h), as CTranslate2 scores a translation with a target prefix.
  const size_t prefix_len = prefixes ? std::min(prefixes->length(i), h.num_log_probs) : 0;
  float sum = 0, free_sum = 0;
  for (size_t t = 0; t < h.num_log_probs; ++t) {
    sum += h.token_log_probs[t];
    if (t >= prefix_len) free_sum += h.token_log_probs[t];
  }
  h.log_prob = sum;
  h.score = decoding::normalized_score(free_sum, h.num_log_probs, o.length_penalty);
  s.counts[i] = 1;
}

// One greedy() call. Sentence i starts in row i; once some sentences finished, the rows of the
// others move to the front (StepModel::compact_rows, when the model can) so that the model runs
// only rows that still decode: a batch of prompts costs what its unfinished prompts need.
class GreedySearch {
 public:
  GreedySearch(DecodingEngine::Storage& s, StepModel& model, const TokenBatch* sources, size_t batch,
               const DecodeOptions& o, const TokenBatch* prefixes, size_t max_length, int32_t unk_id)
      : s_(s), model_(model), sources_(sources), prefixes_(prefixes), o_(o), batch_(batch), max_length_(max_length),
        controls_(o.controls, unk_id, model.eos_id()), params_{o.sampling_top_k, o.sampling_temperature,
                                                              o.sampling_top_p},
        rng_(o.seed) {}

  Status run(DecodeOutput* out) {
    HEED_RETURN_IF_ERROR(decoding::start_batch(model_, sources_, batch_, 1, o_, prefixes_));
    for (size_t i = 0; i < batch_; ++i) {
      s_.done[i] = 0;
      s_.lengths[i] = 0;
      s_.with_eos[i] = 0;
      s_.inputs[i] = model_.bos_id();
      s_.row_sentences[i] = static_cast<int32_t>(i);
    }
    // Attention capture: each sentence's matrix is written in place, one row per step.
    attention_ = s_.attention_floats > 0 ? model_.last_attention() : nullptr;
    size_t rows = batch_, remaining = batch_;
    for (size_t t = 0; t < max_length_ && remaining > 0; ++t) {
      if (decoding::stop_requested(o_)) return decoding::stop_status(o_);
      model_.step(s_.inputs, rows, t, s_.log_probs);
      size_t finished = 0;
      for (size_t r = 0; r < rows; ++r) finished += advance_row(r, t) ? 1 : 0;
      remaining -= finished;
      if (finished > 0 && remaining > 0) rows = drop_finished(rows);
    }
    for (size_t i = 0; i < batch_; ++i) collect(s_, i, prefixes_, o_, attention_ != nullptr);
    out->stride = s_.max_n_best;
    return Status::success();
  }

 private:
  // Chooses row r's token of step t; true when its sentence finished with it.
  bool advance_row(size_t r, size_t t) {
    const size_t i = static_cast<size_t>(s_.row_sentences[r]), vocab = s_.vocab, stride = s_.max_steps;
    if (s_.done[i]) {
      s_.inputs[r] = controls_.first_end();  // a finished row the model still runs; its output is ignored
      return false;
    }
    if (attention_ != nullptr) {
      float* dst = s_.hypothesis_attention + i * s_.max_n_best * s_.max_steps * s_.attention_floats +
                   t * s_.attention_floats;
      s_.copy_attention(attention_, r, sources_ ? sources_->length(i) : 0, dst);
    }
    float* row = s_.log_probs + r * vocab;
    int32_t* ids = s_.history_ids[0] + i * stride;
    const size_t prefix_len = prefixes_ ? prefixes_->length(i) : 0;
    controls_.prepare_row(row, vocab, ids, t, prefix_len, t < o_.min_length, model_);
    int32_t token;
    if (t < prefix_len) {
      token = prefixes_->sequence(i)[t];
    } else {
      token = o_.sampling_top_k != 1 ? decoding::sample_token(row, vocab, params_, rng_, s_.sample_weights, s_.sample_ids)
                                     : decoding::argmax(row, decoding::row_tokens(model_, vocab));
    }
    ids[t] = token;
    s_.history_log_probs[0][i * stride + t] = row[token];
    s_.inputs[r] = token;
    const bool stopped = o_.on_token != nullptr && !o_.on_token(o_.on_token_user, i, t, token, row[token]);
    const bool end = t >= prefix_len && controls_.is_end(token);
    if (!end && !stopped && t + 1 != max_length_) return false;
    s_.done[i] = 1;
    s_.with_eos[i] = end;
    s_.lengths[i] = end ? t : t + 1;
    return true;
  }

  // Moves the rows of unfinished sentences to the front; returns the rows the model runs next.
  size_t drop_finished(size_t rows) {
    int32_t* keep = s_.parents;  // scratch: parents are a beam search's
    size_t count = 0;
    for (size_t r = 0; r < rows; ++r) {
      if (!s_.done[s_.row_sentences[r]]) keep[count++] = static_cast<int32_t>(r);
    }
    if (count == rows || !model_.compact_rows(keep, count)) return rows;
    for (size_t k = 0; k < count; ++k) {
      s_.inputs[k] = s_.inputs[keep[k]];
      s_.row_sentences[k] = s_.row_sentences[keep[k]];
    }
    return count;
  }

  DecodingEngine::Storage& s_;
  StepModel& model_;
  const TokenBatch* sources_;
  const TokenBatch* prefixes_;
  const DecodeOptions& o_;
  const size_t batch_, max_length_;
  const decoding::Controls controls_;
  const decoding::SamplingParams params_;
  decoding::Rng rng_;
  const float* attention_ = nullptr;
};

}  // namespace

Status DecodingEngine::greedy(const TokenBatch* sources, size_t batch, const DecodeOptions& o,
                              const TokenBatch* prefixes, size_t max_length, DecodeOutput* out) {
  return GreedySearch(*storage_, *model_, sources, batch, o, prefixes, max_length, unk_id_).run(out);
}

}  // namespace heed
