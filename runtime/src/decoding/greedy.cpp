// Greedy search and sampling: one hypothesis per sentence, one row per sentence.
#include <algorithm>
#include <cmath>

#include "decoding/decoding_controls.h"
#include "decoding/decoding_storage.h"
#include "decoding/length_penalty.h"
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

}  // namespace

Status DecodingEngine::greedy(const TokenBatch* sources, size_t batch, const DecodeOptions& o,
                              const TokenBatch* prefixes, size_t max_length, DecodeOutput* out) {
  Storage& s = *storage_;
  const size_t vocab = s.vocab;
  const size_t stride = s.max_steps;
  const decoding::Controls controls(o.controls, unk_id_, model_->eos_id());
  const int32_t eos = controls.first_end();  // what a finished row is fed
  const bool sampling = o.sampling_top_k != 1;
  const decoding::SamplingParams params{o.sampling_top_k, o.sampling_temperature, o.sampling_top_p};
  decoding::Rng rng(o.seed);
  int32_t* ids = s.history_ids[0];
  float* lps = s.history_log_probs[0];

  HEED_RETURN_IF_ERROR(model_->start(sources, batch, 1));
  for (size_t i = 0; i < batch; ++i) {
    s.done[i] = 0;
    s.lengths[i] = 0;
    s.with_eos[i] = 0;
    s.inputs[i] = model_->bos_id();
  }
  size_t remaining = batch;
  // Attention capture: each sentence's matrix is written in place, one row per step.
  const float* attention = s.attention_floats > 0 ? model_->last_attention() : nullptr;
  const size_t attention_matrix = s.max_steps * s.attention_floats;
  for (size_t t = 0; t < max_length && remaining > 0; ++t) {
    model_->step(s.inputs, batch, t, s.log_probs);
    for (size_t i = 0; i < batch; ++i) {
      if (s.done[i]) {
        s.inputs[i] = eos;  // a finished sentence's row still runs; its output is ignored
        continue;
      }
      if (attention != nullptr) {
        float* dst = s.hypothesis_attention + i * s.max_n_best * attention_matrix + t * s.attention_floats;
        s.copy_attention(attention, i, sources ? sources->length(i) : 0, dst);
      }
      float* row = s.log_probs + i * vocab;
      const size_t prefix_len = prefixes ? prefixes->length(i) : 0;
      controls.prepare_row(row, vocab, ids + i * stride, t, prefix_len, t < o.min_length, *model_);
      int32_t token;
      if (t < prefix_len) {
        token = prefixes->sequence(i)[t];
      } else {
        token = sampling ? decoding::sample_token(row, vocab, params, rng, s.sample_weights, s.sample_ids)
                         : decoding::argmax(row, vocab);
      }
      ids[i * stride + t] = token;
      lps[i * stride + t] = row[token];
      const bool stopped = o.on_token != nullptr && !o.on_token(o.on_token_user, i, t, token);
      const bool end = t >= prefix_len && controls.is_end(token);
      if (end || stopped || t + 1 == max_length) {
        s.done[i] = 1;
        s.with_eos[i] = end;
        s.lengths[i] = end ? t : t + 1;
        --remaining;
      }
      s.inputs[i] = token;
    }
  }
  for (size_t i = 0; i < batch; ++i) collect(s, i, prefixes, o, attention != nullptr);
  out->stride = s.max_n_best;
  return Status::ok();
}

}  // namespace heed
