// Beam search over StepModel rows: sentence i owns rows [i * beam, (i + 1) * beam).
// Rows whose cumulative score is -inf hold no hypothesis (at the first step only row 0 of each
// sentence is alive, so the beam never holds duplicates).
//
// The algorithm is CTranslate2's (its BeamSearch::search), so that heed returns what CTranslate2
// returns for the same model; docs/decoding.md describes it with its edge cases. Per sentence and
// step t:
//  1. The alive rows' log-probs (EOS removed while t < min_length) are added to each row's
//     cumulative log-prob, and the 2 x beam best (row, token) extensions are ranked best first.
//     The cumulative log-prob starts after the forced prefix: prefix steps reset it to 0.
//  2. The first `beam` candidates fill the beam's slots in rank order. A candidate that ends with
//     EOS (or any candidate at the last step, t + 1 == max_length) becomes a finished hypothesis;
//     its slot goes to the next candidate from the second half (ranks beam .. 2 x beam - 1) that
//     does not end with EOS. EOS candidates of the second half are never finished hypotheses.
//     If the best candidate of the step finished, the sentence remembers it (`top_finished`).
//  3. At the first free step after a non-empty prefix, an EOS candidate ranked below the top
//     one is not finished: CTranslate2 turns it into a placeholder that holds its slot with a
//     score of -1e10 (a dead slot here), so that a short hypothesis cannot win through a
//     secondary beam of the prefix.
//  4. The sentence is done at the last step, when nothing is alive, when round(beam x patience)
//     hypotheses have finished, or, with length_penalty 0 only, when the best candidate of some
//     step finished and at least n_best hypotheses have finished.
//  5. Finished hypotheses are ranked by score = cumulative / tokens^length_penalty (tokens: prefix
//     and EOS included), ties to the earlier finished; the n_best first are returned.
#include <algorithm>
#include <cmath>
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

// Ranking of finished hypotheses: higher score first, then the earlier finished.
inline bool finished_before(const FinishedMeta& a, const FinishedMeta& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.order < b.order;
}

constexpr size_t kScanBlock = 16;

// Whether base + x[i] > worst for any of the kScanBlock values (no early exit, so it vectorizes).
inline bool any_above(const float* x, float base, float worst) {
  int any = 0;
  for (size_t i = 0; i < kScanBlock; ++i) any |= base + x[i] > worst;
  return any != 0;
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
    for (size_t v0 = 0; v0 < vocab; v0 += kScanBlock) {
      const size_t v1 = std::min(v0 + kScanBlock, vocab);
      // Candidates arrive in increasing (row, token) order, so once the heap is full one enters
      // only with a score strictly above the worst kept (a tie ranks after it): whole blocks
      // without such a score are skipped (the scan was 15 % of a batch-16 beam-4 translation).
      if (n == k && v1 - v0 == kScanBlock && !any_above(row + v0, base, heap[0].score)) continue;
      for (size_t v = v0; v < v1; ++v) {
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
  }
  std::sort_heap(heap, heap + n, better);
  return n;
}

// round(beam x patience), as CTranslate2 computes it (in float).
size_t max_finished(size_t beam, float patience) {
  return static_cast<size_t>(std::round(static_cast<float>(beam) * patience));
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
  const size_t enough_finished = max_finished(beam, o.patience);

  HEED_RETURN_IF_ERROR(model_->start(sources, batch, beam));
  int cur = 0;  // which history buffer holds the current hypotheses
  for (size_t r = 0; r < rows; ++r) {
    s.cumulative[cur][r] = (r % beam == 0) ? 0.0f : kNegInf;
    s.inputs[r] = model_->bos_id();
  }
  for (size_t i = 0; i < batch; ++i) {
    s.done[i] = 0;
    s.finished_count[i] = 0;
    s.finished_total[i] = 0;
    s.top_finished[i] = 0;
  }

  // Registers the extension of row `parent` (global row) by `token` at step t as a finished
  // hypothesis with cumulative (post-prefix) log-prob `cum`. The store keeps the best `fcap`.
  auto register_finished = [&](size_t i, size_t parent, int32_t token, float token_lp, float cum, size_t t) {
    FinishedMeta meta;
    meta.with_eos = token == eos;
    meta.length = meta.with_eos ? t : t + 1;
    meta.num_log_probs = t + 1;
    meta.order = s.finished_total[i]++;
    meta.score = decoding::normalized_score(cum, meta.num_log_probs, o.length_penalty);
    const float* parent_lps = s.history_log_probs[cur] + parent * steps;
    float sum = 0;
    for (size_t k = 0; k < t; ++k) sum += parent_lps[k];
    meta.log_prob = sum + token_lp;
    meta.end_row = parent;

    FinishedMeta* metas = s.finished + i * fcap;
    size_t slot = s.finished_count[i];
    if (slot < fcap) {
      ++s.finished_count[i];
    } else {
      // Full: replace the worst kept hypothesis if this one ranks before it.
      slot = 0;
      for (size_t f = 1; f < fcap; ++f) {
        if (finished_before(metas[slot], metas[f])) slot = f;
      }
      if (!finished_before(meta, metas[slot])) return;
    }
    int32_t* ids = s.finished_ids + (i * fcap + slot) * steps;
    float* lps = s.finished_log_probs + (i * fcap + slot) * steps;
    std::memcpy(ids, s.history_ids[cur] + parent * steps, t * sizeof(int32_t));
    std::memcpy(lps, parent_lps, t * sizeof(float));
    ids[t] = token;
    lps[t] = token_lp;
    metas[slot] = meta;
  };

  // Attention capture: every alive row's attention of every step, and the parents each step
  // chose, so that a finished hypothesis's matrix is found by following the back-pointers.
  const float* attention = s.attention_floats > 0 ? model_->last_attention() : nullptr;

  size_t remaining = batch;
  for (size_t t = 0; t < max_length && remaining > 0; ++t) {
    model_->step(s.inputs, rows, t, s.log_probs);
    if (attention != nullptr) {
      for (size_t r = 0; r < rows; ++r) {
        if (s.done[r / beam] || s.cumulative[cur][r] == kNegInf) continue;
        s.copy_attention(attention, r, sources ? sources->length(r / beam) : 0,
                         s.step_attention + (t * rows + r) * s.attention_floats);
      }
    }
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

      auto keep_alive = [&](size_t parent_local, int32_t token, float score) {
        const size_t r = base_row + alive++;
        s.parents[r] = static_cast<int32_t>(base_row + parent_local);
        s.next_tokens[r] = token;
        new_cum[r] = score;
      };

      if (t < prefix_len) {
        // Forced token: the single hypothesis of the prefix phase lives in row 0. Its cumulative
        // log-prob stays 0: the score counts only what follows the prefix.
        const int32_t token = prefixes->sequence(i)[t];
        if (last) {
          register_finished(i, base_row, token, lp[token], 0.0f, t);
        } else {
          keep_alive(0, token, 0.0f);
        }
      } else {
        if (t < o.min_length) {
          for (size_t j = 0; j < beam; ++j) {
            if (cum[j] != kNegInf) decoding::forbid_token(lp + j * vocab, vocab, eos);
          }
        }
        const size_t n = top_candidates(lp, cum, beam, vocab, 2 * beam, s.candidates);
        const bool first_free_step = prefix_len > 0 && t == prefix_len;
        size_t next_secondary = beam;  // where the search for replacement candidates resumes
        for (size_t rank = 0; rank < std::min(beam, n); ++rank) {
          const Candidate& c = s.candidates[rank];
          if (first_free_step && rank > 0 && c.token == eos) continue;  // rule 3: a dead slot
          if (c.token != eos && !last) {
            keep_alive(static_cast<size_t>(c.row), c.token, c.score);
            continue;
          }
          if (rank == 0) s.top_finished[i] = 1;
          const float token_lp = lp[static_cast<size_t>(c.row) * vocab + static_cast<size_t>(c.token)];
          register_finished(i, base_row + static_cast<size_t>(c.row), c.token, token_lp, c.score, t);
          if (last) continue;
          // The slot goes to the next second-half candidate that does not end with EOS (at the
          // first free step after a prefix, an EOS there is a placeholder: the slot is dead).
          for (size_t j = next_secondary; j < n; ++j) {
            const Candidate& r = s.candidates[j];
            if (r.token == eos && !first_free_step) continue;
            next_secondary = j + 1;
            if (r.token != eos) keep_alive(static_cast<size_t>(r.row), r.token, r.score);
            break;
          }
        }
      }

      // Stopping rules (rule 4).
      bool finished = last || alive == 0;
      if (!finished) {
        finished = o.length_penalty == 0.0f ? s.top_finished[i] && s.finished_total[i] >= o.n_best
                                            : s.finished_total[i] >= enough_finished;
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

    if (attention != nullptr) std::memcpy(s.step_parents + t * rows, s.parents, rows * sizeof(int32_t));

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
    std::sort(s.order, s.order + count, [meta](int32_t a, int32_t b) { return finished_before(meta[a], meta[b]); });
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
      h.attention = nullptr;
      if (attention != nullptr) {
        // Back-tracking: the row that produced step u's token is the parent chosen at step u - 1
        // for the row of step u.
        const size_t matrix = s.max_steps * s.attention_floats;
        float* dst = s.hypothesis_attention + (i * s.max_n_best + k) * matrix;
        size_t row = meta[f].end_row;
        for (size_t u = h.num_log_probs; u-- > 0;) {
          std::memcpy(dst + u * s.attention_floats, s.step_attention + (u * rows + row) * s.attention_floats,
                      s.attention_floats * sizeof(float));
          if (u > 0) row = static_cast<size_t>(s.step_parents[(u - 1) * rows + row]);
        }
        h.attention = dst;
      }
    }
    if (keep == 0) {
      // Nothing could be generated (every token impossible): one empty, impossible hypothesis.
      Hypothesis& h = s.hypotheses[i * s.max_n_best];
      h = Hypothesis{};
      h.ids = s.finished_ids + i * fcap * steps;
      h.token_log_probs = s.finished_log_probs + i * fcap * steps;
      h.log_prob = kNegInf;
      h.score = kNegInf;
      h.attention = attention != nullptr ? s.hypothesis_attention + i * s.max_n_best * s.max_steps * s.attention_floats : nullptr;
    }
    s.counts[i] = std::max<size_t>(keep, 1);
  }
  out->stride = s.max_n_best;
  return Status::ok();
}

}  // namespace heed
