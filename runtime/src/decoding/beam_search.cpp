// Beam search over StepModel rows: sentence i owns rows [i * beam, (i + 1) * beam).
// Rows whose cumulative score is -inf hold no hypothesis (at the first step only row 0 of each
// sentence is alive, so the beam never holds duplicates).
//
// The algorithm is CTranslate2's (its BeamSearch::search), so that heed returns what CTranslate2
// returns for the same model; docs/decoding.md describes it with its edge cases. Per sentence and
// step t:
//  1. The alive rows' log-probs (after the decoding controls, decoding_controls.h: EOS removed
//     while t < min_length, ...) are added to each row's
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
// Done sentences leave the model's rows (StepModel::compact_rows, when the model can): the search
// keeps its own row numbering (sentence i's rows i * beam ..), and sentence i's hypotheses run in
// the model's rows sentence_rows[i] .. + beam, so a batch costs what its unfinished sentences need.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "decoding/decoding_controls.h"
#include "decoding/decoding_storage.h"
#include "decoding/length_penalty.h"
#include "decoding/start_batch.h"
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

constexpr size_t kScanBlock = 32;
constexpr size_t kScanChunk = 8 * kScanBlock;  // blocks tested together first

// The largest of the `n` values of x (a multiple of 16; NaN never wins, as in fmax): four floats
// at a time in GCC's vector extensions (SSE on x86-64, NEON on ARM), four accumulators. A block
// holds a score above the worst kept exactly when its largest value does, since a row's scores
// grow with its values (LogProbView::at and the base's addition are monotone).
typedef float Floats4 __attribute__((vector_size(16)));
inline float block_max(const float* x, size_t n) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  Floats4 m[4] = {{-kInf, -kInf, -kInf, -kInf}, {-kInf, -kInf, -kInf, -kInf}, {-kInf, -kInf, -kInf, -kInf},
                  {-kInf, -kInf, -kInf, -kInf}};
  for (size_t i = 0; i < n; i += 16) {
    for (size_t j = 0; j < 4; ++j) {
      Floats4 v;
      std::memcpy(&v, x + i + 4 * j, sizeof(v));
      m[j] = v > m[j] ? v : m[j];
    }
  }
  for (size_t j = 1; j < 4; ++j) m[0] = m[j] > m[0] ? m[j] : m[0];
  const float a = m[0][1] > m[0][0] ? m[0][1] : m[0][0], b = m[0][3] > m[0][2] ? m[0][3] : m[0][2];
  return b > a ? b : a;
}

// The `k` best candidates seen so far in `heap` (`better` as the heap order keeps the worst kept
// at heap[0]); candidates arrive in increasing (row, token) order.
struct CandidateHeap {
  Candidate* heap;
  size_t k, n = 0;

  // Once full, a candidate enters only with a score strictly above the worst kept (a tie ranks
  // after it).
  bool full() const { return n == k; }
  float worst() const { return heap[0].score; }
  void offer(float base, float lp, size_t row, size_t token) {
    if (lp == kNegInf) return;
    const Candidate c{base + lp, static_cast<int32_t>(row), static_cast<int32_t>(token)};
    if (n < k) {
      heap[n++] = c;
      std::push_heap(heap, heap + n, better);
    } else if (better(c, heap[0])) {
      std::pop_heap(heap, heap + n, better);
      heap[n - 1] = c;
      std::push_heap(heap, heap + n, better);
    }
  }
};

// Row j's extensions into `h`, its log-probs read through `view`: every token, whole blocks whose
// largest value is not above the worst kept skipped (the scan was 15 % of a batch-16 beam-4
// translation), or the candidates of a restricted vocabulary only (the others are -inf).
void scan_row(const float* row, const decoding::LogProbView& view, float base, size_t j,
              const decoding::RowTokens& tokens, CandidateHeap* h) {
  if (tokens.ids != nullptr) {
    for (size_t c = 0; c < tokens.count; ++c) {
      h->offer(base, view.at(row[tokens.ids[c]]), j, static_cast<size_t>(tokens.ids[c]));
    }
    return;
  }
  // Whole chunks of 8 blocks first (one test for 256 values: most of a row's chunks hold nothing
  // above the worst kept once the heap is full), then the blocks of a chunk that may.
  auto above_worst = [&](const float* x, size_t n) { return base + view.at(block_max(x, n)) > h->worst(); };
  for (size_t c0 = 0; c0 < tokens.size; c0 += kScanChunk) {
    const size_t c1 = std::min(c0 + kScanChunk, tokens.size);
    if (h->full() && c1 - c0 == kScanChunk && !above_worst(row + c0, kScanChunk)) continue;
    for (size_t v0 = c0; v0 < c1; v0 += kScanBlock) {
      const size_t v1 = std::min(v0 + kScanBlock, c1);
      if (h->full() && v1 - v0 == kScanBlock && !above_worst(row + v0, kScanBlock)) continue;
      for (size_t v = v0; v < v1; ++v) h->offer(base, view.at(row[v]), j, v);
    }
  }
}

// round(beam x patience), as CTranslate2 computes it (in float).
size_t max_finished(size_t beam, float patience) {
  return static_cast<size_t>(std::round(static_cast<float>(beam) * patience));
}

// One beam_search() call: the state of the search over the engine's storage, and its steps.
class BeamSearch {
 public:
  BeamSearch(DecodingEngine::Storage& s, StepModel& model, const TokenBatch* sources, size_t batch,
             const DecodeOptions& o, const TokenBatch* prefixes, size_t max_length, int32_t unk_id)
      : s_(s), model_(model), sources_(sources), prefixes_(prefixes), o_(o), batch_(batch), beam_(o.beam_size),
        rows_(batch * o.beam_size), max_length_(max_length), controls_(o.controls, unk_id, model.eos_id()),
        eos_(controls_.first_end()), enough_finished_(max_finished(o.beam_size, o.patience)) {}

  Status run(DecodeOutput* out) {
    HEED_RETURN_IF_ERROR(decoding::start_batch(model_, sources_, batch_, beam_, o_, prefixes_));
    reset();
    // The model leaves logits and rank_sentence reads each row through what the model's own
    // log-softmax would subtract (StepModel::log_softmax_shift, else it runs log_softmax_rows),
    // just before the row's controls and scan, while the row is in cache: at batch 16 x beam 4
    // the step's 8 MB of scores are read from memory once and never rewritten. Not under a
    // shortlist (its rows are log-softmaxed over its candidates only) nor with the repetition
    // penalty (its rows already arrive as logits).
    logits_ = !controls_.needs_logits() && decoding::row_tokens(model_, s_.vocab).ids == nullptr &&
              model_.set_raw_logits(true);
    // Attention capture: every alive row's attention of every step, and the parents each step
    // chose, so that a finished hypothesis's matrix is found by following the back-pointers.
    attention_ = s_.attention_floats > 0 ? model_.last_attention() : nullptr;
    size_t remaining = batch_;
    for (size_t t = 0; t < max_length_ && remaining > 0; ++t) {
      if (decoding::stop_requested(o_)) return decoding::stop_status(o_);
      model_.step(s_.inputs, model_rows_, t, s_.log_probs);
      rank_candidates(t);
      capture_attention(t);
      bool identity = true;
      for (size_t i = 0; i < batch_; ++i) {
        if (s_.done[i]) {
          retire_rows(i, 0);
        } else if (advance_sentence(i, t, &identity)) {
          --remaining;
        }
      }
      if (attention_ != nullptr) std::memcpy(s_.step_parents + t * rows_, s_.parents, rows_ * sizeof(int32_t));
      extend_histories(t);
      cur_ = 1 - cur_;
      if (remaining == 0) break;
      if (!identity) reorder_model();
      drop_finished();
      for (size_t m = 0; m < model_rows_; ++m) s_.inputs[m] = s_.next_tokens[search_row(m)];
    }
    for (size_t i = 0; i < batch_; ++i) collect(i);
    out->stride = s_.max_n_best;
    return Status::success();
  }

 private:
  void reset() {
    model_rows_ = rows_;
    for (size_t r = 0; r < rows_; ++r) {
      s_.cumulative[cur_][r] = (r % beam_ == 0) ? 0.0f : kNegInf;
      s_.inputs[r] = model_.bos_id();
      s_.row_sentences[r] = static_cast<int32_t>(r / beam_);
    }
    for (size_t i = 0; i < batch_; ++i) {
      s_.sentence_rows[i] = i * beam_;
      s_.done[i] = 0;
      s_.finished_count[i] = 0;
      s_.finished_total[i] = 0;
      s_.top_finished[i] = 0;
    }
  }

  // Where search row r (sentence r / beam) runs in the model, and the other way round.
  size_t model_row(size_t r) const { return s_.sentence_rows[r / beam_] + r % beam_; }
  size_t search_row(size_t m) const {
    const size_t i = static_cast<size_t>(s_.row_sentences[m]);
    return i * beam_ + (m - s_.sentence_rows[i]);
  }
  // Search row r's scores of the last step.
  float* log_probs_of(size_t r) const { return s_.log_probs + model_row(r) * s_.vocab; }

  // The model's rows continue from their parents (each within its own sentence).
  void reorder_model() {
    for (size_t m = 0; m < model_rows_; ++m) {
      const size_t r = search_row(m), first = r - r % beam_;
      s_.model_parents[m] = static_cast<int32_t>(model_row(first) + (static_cast<size_t>(s_.parents[r]) - first));
    }
    model_.reorder(s_.model_parents, model_rows_);
  }

  // The rows of done sentences leave the model, when it can move rows.
  void drop_finished() {
    int32_t* keep = s_.model_parents;  // scratch once the model is reordered
    size_t count = 0;
    for (size_t m = 0; m < model_rows_; ++m) {
      if (!s_.done[s_.row_sentences[m]]) keep[count++] = static_cast<int32_t>(m);
    }
    if (count == model_rows_ || count == 0 || !model_.compact_rows(keep, count)) return;
    for (size_t k = 0; k < count; ++k) s_.row_sentences[k] = s_.row_sentences[keep[k]];
    for (size_t k = 0; k < count; k += beam_) s_.sentence_rows[s_.row_sentences[k]] = k;
    model_rows_ = count;
  }

  // Per sentence still running, shared by the session's threads (StepModel::parallel_for; the
  // scan over the vocabulary is most of what a step costs outside the model): the decoding
  // controls on each alive row (its history: its tokens so far), then at a free step the sentence's
  // 2 x beam best extensions, ranked (rule 1).
  void rank_candidates(size_t t) {
    step_ = t;
    model_.parallel_for(batch_, [](void* self, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) static_cast<BeamSearch*>(self)->rank_sentence(i);
    }, this);
  }

  // Each alive row is read as it is (LogProbView): when the model says what its log-softmax
  // subtracts, the row of logits is never rewritten, and the controls' renormalization is not
  // applied either; the scan and the chosen tokens read through the view, bitwise the values the
  // rewritten row would hold. A row is scanned right after its log-sum-exp, while it is in cache.
  // At a free step: the sentence's 2 x beam best extensions, best first (fewer when few rows are
  // alive or tokens are -inf).
  void rank_sentence(size_t i) {
    if (s_.done[i]) return;
    const size_t base_row = i * beam_, prefix_len = prefixes_ ? prefixes_->length(i) : 0;
    const bool free_step = step_ >= prefix_len;
    const decoding::RowTokens tokens = decoding::row_tokens(model_, s_.vocab);
    CandidateHeap h{candidates_of(i), 2 * beam_};
    for (size_t r = base_row; r < base_row + beam_; ++r) {
      const float base = s_.cumulative[cur_][r];
      if (base == kNegInf) continue;
      float* row = log_probs_of(r);
      float shift = 0.0f;
      if (logits_ && !model_.log_softmax_shift(row, &shift)) model_.log_softmax_rows(row, 1);
      s_.row_views[r] = controls_.prepare_view(row, shift, s_.vocab, s_.history_ids[cur_] + r * s_.max_steps, step_,
                                               prefix_len, step_ < o_.min_length, model_);
      if (free_step) scan_row(row, s_.row_views[r], base, r - base_row, tokens, &h);
    }
    if (!free_step) return;
    std::sort_heap(h.heap, h.heap + h.n, better);
    s_.candidate_counts[i] = h.n;
  }

  // Search row r's log-prob of `token` at this step.
  float log_prob(size_t r, int32_t token) const { return s_.row_views[r].at(log_probs_of(r)[token]); }

  Candidate* candidates_of(size_t i) const { return s_.candidates + i * 2 * s_.max_beam; }

  void capture_attention(size_t t) {
    if (attention_ == nullptr) return;
    for (size_t r = 0; r < rows_; ++r) {
      if (s_.done[r / beam_] || s_.cumulative[cur_][r] == kNegInf) continue;
      s_.copy_attention(attention_, model_row(r), sources_ ? sources_->length(r / beam_) : 0,
                        s_.step_attention + (t * rows_ + r) * s_.attention_floats);
    }
  }

  // Rows `from`.. of sentence i hold no hypothesis in the next step.
  void retire_rows(size_t i, size_t from) {
    const size_t base_row = i * beam_;
    for (size_t j = from; j < beam_; ++j) {
      s_.parents[base_row + j] = static_cast<int32_t>(base_row + j);
      s_.next_tokens[base_row + j] = eos_;
      s_.cumulative[1 - cur_][base_row + j] = kNegInf;
    }
  }

  // Row `alive_` of sentence i's next beam continues row parent_local with `token`.
  void keep_alive(size_t i, size_t parent_local, int32_t token, float score) {
    const size_t base_row = i * beam_, r = base_row + alive_++;
    s_.parents[r] = static_cast<int32_t>(base_row + parent_local);
    s_.next_tokens[r] = token;
    s_.cumulative[1 - cur_][r] = score;
  }

  // One step of sentence i (not done yet); returns true when the sentence is done after it.
  bool advance_sentence(size_t i, size_t t, bool* identity) {
    const bool last = t + 1 == max_length_;
    const size_t base_row = i * beam_, prefix_len = prefixes_ ? prefixes_->length(i) : 0;
    alive_ = 0;
    if (t < prefix_len) {
      // Forced token: the single hypothesis of the prefix phase lives in row 0. Its cumulative
      // log-prob stays 0: the score counts only what follows the prefix.
      const int32_t token = prefixes_->sequence(i)[t];
      if (last) {
        register_finished(i, base_row, token, log_prob(base_row, token), 0.0f, t);
      } else {
        keep_alive(i, 0, token, 0.0f);
      }
    } else {
      expand(i, t, last, prefix_len > 0 && t == prefix_len);
    }
    // Stopping rules (rule 4).
    bool finished = last || alive_ == 0;
    if (!finished) {
      finished = o_.length_penalty == 0.0f ? s_.top_finished[i] && s_.finished_total[i] >= o_.n_best
                                           : s_.finished_total[i] >= enough_finished_;
    }
    if (finished) {
      s_.done[i] = 1;
      alive_ = 0;
    }
    retire_rows(i, alive_);
    for (size_t j = 0; j < alive_; ++j) {
      if (s_.parents[base_row + j] != static_cast<int32_t>(base_row + j)) *identity = false;
    }
    return finished;
  }

  // A free step of sentence i: rank the extensions, fill the beam, finish hypotheses (rules 1-3).
  void expand(size_t i, size_t t, bool last, bool first_free_step) {
    const size_t base_row = i * beam_;
    const Candidate* candidates = candidates_of(i);
    const size_t n = s_.candidate_counts[i];  // rank_candidates()
    size_t next_secondary = beam_;  // where the search for replacement candidates resumes
    for (size_t rank = 0; rank < std::min(beam_, n); ++rank) {
      const Candidate& c = candidates[rank];
      if (first_free_step && rank > 0 && is_end(c.token)) continue;  // rule 3: a dead slot
      if (!is_end(c.token) && !last) {
        keep_alive(i, static_cast<size_t>(c.row), c.token, c.score);
        continue;
      }
      if (rank == 0) s_.top_finished[i] = 1;
      const size_t parent = base_row + static_cast<size_t>(c.row);
      register_finished(i, parent, c.token, log_prob(parent, c.token), c.score, t);
      if (last) continue;
      // The slot goes to the next second-half candidate that does not end with EOS (at the
      // first free step after a prefix, an EOS there is a placeholder: the slot is dead).
      for (size_t j = next_secondary; j < n; ++j) {
        const Candidate& r = candidates[j];
        if (is_end(r.token) && !first_free_step) continue;
        next_secondary = j + 1;
        if (!is_end(r.token)) keep_alive(i, static_cast<size_t>(r.row), r.token, r.score);
        break;
      }
    }
  }

  // Registers the extension of row `parent` (global row) by `token` at step t as a finished
  // hypothesis with cumulative (post-prefix) log-prob `cum`. The store keeps the best ones.
  void register_finished(size_t i, size_t parent, int32_t token, float token_lp, float cum, size_t t) {
    const size_t steps = s_.max_steps, fcap = s_.finished_capacity;
    FinishedMeta meta;
    meta.with_eos = is_end(token);
    meta.length = meta.with_eos ? t : t + 1;
    meta.num_log_probs = t + 1;
    meta.order = s_.finished_total[i]++;
    meta.score = decoding::normalized_score(cum, meta.num_log_probs, o_.length_penalty);
    const float* parent_lps = s_.history_log_probs[cur_] + parent * steps;
    float sum = 0;
    for (size_t k = 0; k < t; ++k) sum += parent_lps[k];
    meta.log_prob = sum + token_lp;
    meta.end_row = parent;
    FinishedMeta* metas = s_.finished + i * fcap;
    size_t slot = s_.finished_count[i];
    if (slot < fcap) {
      ++s_.finished_count[i];
    } else {
      // Full: replace the worst kept hypothesis if this one ranks before it.
      slot = 0;
      for (size_t f = 1; f < fcap; ++f) {
        if (finished_before(metas[slot], metas[f])) slot = f;
      }
      if (!finished_before(meta, metas[slot])) return;
    }
    int32_t* ids = s_.finished_ids + (i * fcap + slot) * steps;
    float* lps = s_.finished_log_probs + (i * fcap + slot) * steps;
    std::memcpy(ids, s_.history_ids[cur_] + parent * steps, t * sizeof(int32_t));
    std::memcpy(lps, parent_lps, t * sizeof(float));
    ids[t] = token;
    lps[t] = token_lp;
    metas[slot] = meta;
  }

  bool is_end(int32_t token) const { return controls_.is_end(token); }

  // New histories: each alive row continues its parent's and appends its token.
  void extend_histories(size_t t) {
    const size_t steps = s_.max_steps, nxt = 1 - cur_;
    for (size_t r = 0; r < rows_; ++r) {
      if (s_.cumulative[nxt][r] == kNegInf) continue;
      const size_t p = static_cast<size_t>(s_.parents[r]);
      int32_t* dst_ids = s_.history_ids[nxt] + r * steps;
      float* dst_lps = s_.history_log_probs[nxt] + r * steps;
      std::memcpy(dst_ids, s_.history_ids[cur_] + p * steps, t * sizeof(int32_t));
      std::memcpy(dst_lps, s_.history_log_probs[cur_] + p * steps, t * sizeof(float));
      dst_ids[t] = s_.next_tokens[r];
      dst_lps[t] = log_prob(p, s_.next_tokens[r]);
    }
  }

  // Ranks sentence i's finished hypotheses and exposes the n best.
  void collect(size_t i) {
    const size_t count = s_.finished_count[i], fcap = s_.finished_capacity, steps = s_.max_steps;
    const FinishedMeta* meta = s_.finished + i * fcap;
    for (size_t f = 0; f < count; ++f) s_.order[f] = static_cast<int32_t>(f);
    std::sort(s_.order, s_.order + count, [meta](int32_t a, int32_t b) { return finished_before(meta[a], meta[b]); });
    const size_t keep = std::min(count, o_.n_best);
    for (size_t k = 0; k < keep; ++k) {
      const size_t f = static_cast<size_t>(s_.order[k]);
      Hypothesis& h = s_.hypotheses[i * s_.max_n_best + k];
      h.ids = s_.finished_ids + (i * fcap + f) * steps;
      h.token_log_probs = s_.finished_log_probs + (i * fcap + f) * steps;
      h.length = meta[f].length;
      h.num_log_probs = meta[f].num_log_probs;
      h.log_prob = meta[f].log_prob;
      h.score = meta[f].score;
      h.finished_with_eos = meta[f].with_eos;
      h.attention = attention_ != nullptr ? backtrack_attention(i, k, meta[f].end_row, h.num_log_probs) : nullptr;
    }
    if (keep == 0) {
      // Nothing could be generated (every token impossible): one empty, impossible hypothesis.
      Hypothesis& h = s_.hypotheses[i * s_.max_n_best];
      h = Hypothesis{};
      h.ids = s_.finished_ids + i * fcap * steps;
      h.token_log_probs = s_.finished_log_probs + i * fcap * steps;
      h.log_prob = kNegInf;
      h.score = kNegInf;
      h.attention = attention_ != nullptr ? s_.hypothesis_attention + i * s_.max_n_best * steps * s_.attention_floats
                                          : nullptr;
    }
    s_.counts[i] = std::max<size_t>(keep, 1);
  }

  // The attention matrix of hypothesis k of sentence i: the row that produced step u's token is
  // the parent chosen at step u - 1 for the row of step u.
  const float* backtrack_attention(size_t i, size_t k, size_t row, size_t steps) {
    const size_t floats = s_.attention_floats, matrix = s_.max_steps * floats;
    float* dst = s_.hypothesis_attention + (i * s_.max_n_best + k) * matrix;
    for (size_t u = steps; u-- > 0;) {
      std::memcpy(dst + u * floats, s_.step_attention + (u * rows_ + row) * floats, floats * sizeof(float));
      if (u > 0) row = static_cast<size_t>(s_.step_parents[(u - 1) * rows_ + row]);
    }
    return dst;
  }

  DecodingEngine::Storage& s_;
  StepModel& model_;
  const TokenBatch* sources_;
  const TokenBatch* prefixes_;
  const DecodeOptions& o_;
  const size_t batch_, beam_, rows_, max_length_;
  size_t model_rows_ = 0;  // rows the model runs: the unfinished sentences' (all, without compaction)
  const decoding::Controls controls_;
  const int32_t eos_;  // what rows without a hypothesis are fed
  const size_t enough_finished_;
  const float* attention_ = nullptr;
  int cur_ = 0;       // which history buffer holds the current hypotheses
  size_t alive_ = 0;  // rows filled in the sentence being advanced
  size_t step_ = 0;   // the step rank_candidates() works on
  bool logits_ = false;  // the model gives logits; rank_sentence normalizes the rows it reads
};

}  // namespace

Status DecodingEngine::beam_search(const TokenBatch* sources, size_t batch, const DecodeOptions& o,
                                   const TokenBatch* prefixes, size_t max_length, DecodeOutput* out) {
  return BeamSearch(*storage_, *model_, sources, batch, o, prefixes, max_length, unk_id_).run(out);
}

}  // namespace heed
