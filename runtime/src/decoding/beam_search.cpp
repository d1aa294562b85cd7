// Beam search over StepModel rows: sentence i owns rows [i * beam, (i + 1) * beam).
// Rows whose cumulative score is -inf hold no hypothesis (at the first step only row 0 of each
// sentence is alive, so the beam never holds duplicates).
#include <algorithm>
#include <cstring>
#include <limits>

#include "decoding/decoding_storage.h"
#include "decoding/length_penalty.h"
#include "decoding/token_selection.h"
#include "heed/decoding.h"

namespace heed {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Ranking of candidates: higher score first, then lower (row, token) for a deterministic order.
inline bool better(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.row != b.row) return a.row < b.row;
  return a.token < b.token;
}

// The best `k` extensions of the alive rows of one sentence, best first, into `heap`.
// Returns how many were found (fewer when few rows are alive or tokens are -inf).
size_t top_candidates(const float* log_probs, const float* cumulative, size_t beam, size_t vocab, size_t k,
                      Candidate* heap) {
  // `better` as the heap order keeps the worst kept candidate at heap[0].
  size_t n = 0;
  for (size_t j = 0; j < beam; ++j) {
    const float base = cumulative[j];
    if (base == kNegInf) continue;
    const float* row = log_probs + j * vocab;
    for (size_t v = 0; v < vocab; ++v) {
      const float lp = row[v];
      if (lp == kNegInf) continue;
      const Candidate c{base + lp, static_cast<int32_t>(j), static_cast<int32_t>(v)};
      if (n < k) {
        heap[n++] = c;
        std::push_heap(heap, heap + n, better);
      } else if (better(c, heap[0])) {
        std::pop_heap(heap, heap + n, better);
        heap[n - 1] = c;
        std::push_heap(heap, heap + n, better);
      }
    }
  }
  std::sort_heap(heap, heap + n, better);
  return n;
}

}  // namespace

Status DecodingEngine::beam_search(const TokenBatch* sources, size_t batch, const DecodeOptions& o,
                                   const TokenBatch* prefixes, size_t max_length, DecodeOutput* out) {
  Storage& s = *storage_;
  const size_t beam = o.beam_size;
  const size_t rows = batch * beam;
  const size_t vocab = s.vocab;
  const size_t steps = s.max_steps;           // history row stride
  const size_t fcap = s.finished_capacity;
  const int32_t eos = model_->eos_id();

  HEED_RETURN_IF_ERROR(model_->start(sources, batch, beam));
  int cur = 0;  // which history buffer holds the current hypotheses
  for (size_t r = 0; r < rows; ++r) {
    s.cumulative[cur][r] = (r % beam == 0) ? 0.0f : kNegInf;
    s.inputs[r] = model_->bos_id();
  }
  for (size_t i = 0; i < batch; ++i) {
    s.done[i] = 0;
    s.finished_count[i] = 0;
  }

  // Registers the extension of row `parent` (global row) by `token` as a finished hypothesis.
  auto register_finished = [&](size_t i, size_t parent, int32_t token, float token_lp, float cum, size_t t) {
    const size_t slot = s.finished_count[i]++;
    int32_t* ids = s.finished_ids + (i * fcap + slot) * steps;
    float* lps = s.finished_log_probs + (i * fcap + slot) * steps;
    std::memcpy(ids, s.history_ids[cur] + parent * steps, t * sizeof(int32_t));
    std::memcpy(lps, s.history_log_probs[cur] + parent * steps, t * sizeof(float));
    ids[t] = token;
    lps[t] = token_lp;
    FinishedMeta& m = s.finished[i * fcap + slot];
    m.with_eos = token == eos;
    m.length = m.with_eos ? t : t + 1;
    m.num_log_probs = t + 1;
    m.log_prob = cum;
    m.score = decoding::normalized_score(cum, m.num_log_probs, o.length_penalty);
  };

  size_t remaining = batch;
  for (size_t t = 0; t < max_length && remaining > 0; ++t) {
    model_->step(s.inputs, rows, t, s.log_probs);
    const bool last = t + 1 == max_length;
    const int nxt = 1 - cur;
    float* new_cum = s.cumulative[nxt];
    bool identity = true;

    for (size_t i = 0; i < batch; ++i) {
      const size_t base_row = i * beam;
      if (s.done[i]) {
        for (size_t j = 0; j < beam; ++j) {
          s.parents[base_row + j] = static_cast<int32_t>(base_row + j);
          s.next_tokens[base_row + j] = eos;
          new_cum[base_row + j] = kNegInf;
        }
        continue;
      }
      const float* cum = s.cumulative[cur] + base_row;
      float* lp = s.log_probs + base_row * vocab;
      const size_t prefix_len = prefixes ? prefixes->length(i) : 0;
      size_t alive = 0;
      float best_alive = kNegInf;

      auto keep_alive = [&](size_t parent_local, int32_t token, float score) {
        const size_t r = base_row + alive++;
        s.parents[r] = static_cast<int32_t>(base_row + parent_local);
        s.next_tokens[r] = token;
        new_cum[r] = score;
        if (score > best_alive) best_alive = score;
      };

      if (t < prefix_len) {
        // Forced token: the single hypothesis of the prefix phase lives in row 0.
        const int32_t token = prefixes->sequence(i)[t];
        const float score = cum[0] + lp[token];
        if (last) {
          register_finished(i, base_row, token, lp[token], score, t);
        } else {
          keep_alive(0, token, score);
        }
      } else {
        if (t < o.min_length) {
          for (size_t j = 0; j < beam; ++j) {
            if (cum[j] != kNegInf) decoding::forbid_token(lp + j * vocab, vocab, eos);
          }
        }
        const size_t n = top_candidates(lp, cum, beam, vocab, 2 * beam, s.candidates);
        for (size_t rank = 0; rank < n; ++rank) {
          const Candidate& c = s.candidates[rank];
          const float token_lp = lp[static_cast<size_t>(c.row) * vocab + static_cast<size_t>(c.token)];
          if (c.token == eos || last) {
            if (rank < beam) register_finished(i, base_row + c.row, c.token, token_lp, c.score, t);
          } else if (alive < beam) {
            keep_alive(static_cast<size_t>(c.row), c.token, c.score);
          }
        }
      }

      // Stopping rules (decoding.h).
      bool finished = last || alive == 0 || s.finished_count[i] >= beam;
      if (!finished && o.length_penalty == 0.0f && s.finished_count[i] >= o.n_best) {
        size_t at_least_best_alive = 0;
        for (size_t f = 0; f < s.finished_count[i]; ++f) {
          if (s.finished[i * fcap + f].log_prob >= best_alive) ++at_least_best_alive;
        }
        finished = at_least_best_alive >= o.n_best;
      }
      if (finished) {
        s.done[i] = 1;
        --remaining;
        alive = 0;
      }
      for (size_t j = alive; j < beam; ++j) {
        s.parents[base_row + j] = static_cast<int32_t>(base_row + j);
        s.next_tokens[base_row + j] = eos;
        new_cum[base_row + j] = kNegInf;
      }
      for (size_t j = 0; j < alive; ++j) {
        if (s.parents[base_row + j] != static_cast<int32_t>(base_row + j)) identity = false;
      }
    }

    // New histories: each row continues its parent's and appends its token.
    for (size_t r = 0; r < rows; ++r) {
      if (new_cum[r] == kNegInf) continue;
      const size_t p = static_cast<size_t>(s.parents[r]);
      int32_t* dst_ids = s.history_ids[nxt] + r * steps;
      float* dst_lps = s.history_log_probs[nxt] + r * steps;
      std::memcpy(dst_ids, s.history_ids[cur] + p * steps, t * sizeof(int32_t));
      std::memcpy(dst_lps, s.history_log_probs[cur] + p * steps, t * sizeof(float));
      dst_ids[t] = s.next_tokens[r];
      dst_lps[t] = s.log_probs[p * vocab + static_cast<size_t>(s.next_tokens[r])];
    }
    cur = nxt;
    if (remaining == 0) break;
    if (!identity) model_->reorder(s.parents, rows);
    for (size_t r = 0; r < rows; ++r) s.inputs[r] = s.next_tokens[r];
  }

  // Rank each sentence's finished hypotheses and expose the n best.
  for (size_t i = 0; i < batch; ++i) {
    const size_t count = s.finished_count[i];
    const FinishedMeta* meta = s.finished + i * fcap;
    for (size_t f = 0; f < count; ++f) s.order[f] = static_cast<int32_t>(f);
    std::sort(s.order, s.order + count, [meta](int32_t a, int32_t b) {
      if (meta[a].score != meta[b].score) return meta[a].score > meta[b].score;
      return a < b;  // earlier registered first
    });
    const size_t keep = std::min(count, o.n_best);
    for (size_t k = 0; k < keep; ++k) {
      const size_t f = static_cast<size_t>(s.order[k]);
      Hypothesis& h = s.hypotheses[i * s.max_n_best + k];
      h.ids = s.finished_ids + (i * fcap + f) * steps;
      h.token_log_probs = s.finished_log_probs + (i * fcap + f) * steps;
      h.length = meta[f].length;
      h.num_log_probs = meta[f].num_log_probs;
      h.log_prob = meta[f].log_prob;
      h.score = meta[f].score;
      h.finished_with_eos = meta[f].with_eos;
    }
    if (keep == 0) {
      // Nothing could be generated (every token impossible): one empty, impossible hypothesis.
      Hypothesis& h = s.hypotheses[i * s.max_n_best];
      h = Hypothesis{};
      h.ids = s.finished_ids + i * fcap * steps;
      h.token_log_probs = s.finished_log_probs + i * fcap * steps;
      h.log_prob = kNegInf;
      h.score = kNegInf;
    }
    s.counts[i] = std::max<size_t>(keep, 1);
  }
  out->stride = s.max_n_best;
  return Status::ok();
}

}  // namespace heed
