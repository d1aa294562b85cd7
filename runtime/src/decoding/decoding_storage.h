// The engine's working memory: every buffer decode() and score() use, carved out of one
// allocation made when the engine is created (sizes from the StepModel's limits).
#pragma once

#include <cstddef>
#include <cstdint>

#include "arena/arena.h"
#include "decoding/token_selection.h"
#include "heed/decoding.h"
#include "heed/status.h"

namespace heed {

// A beam-search candidate: extending row `row` (index within the sentence's beam) by `token`.
struct Candidate {
  float score;    // cumulative log-prob after the extension
  int32_t row;
  int32_t token;
};

// A finished hypothesis of beam search, before ranking. Its tokens live in the finished store.
struct FinishedMeta {
  size_t length;
  size_t num_log_probs;
  size_t order;   // registration order within the sentence: ties in score rank the earlier first
  float log_prob;
  float score;
  bool with_eos;
  size_t end_row;  // the global row extended at the last step: attention back-tracking starts there
};

struct DecodingEngine::Storage {
  // Sizes.
  size_t rows = 0;          // max_batch * max_beam
  size_t max_batch = 0;
  size_t max_beam = 0;
  size_t max_steps = 0;     // max_target_len
  size_t vocab = 0;
  size_t max_n_best = 0;
  size_t finished_capacity = 0;  // per sentence: 2 * max_beam (>= max_n_best)

  // Step model input/output.
  float* log_probs = nullptr;     // [rows, vocab]
  int32_t* inputs = nullptr;      // [rows]
  int32_t* parents = nullptr;     // [rows]
  int32_t* next_tokens = nullptr; // [rows]
  int32_t* row_sentences = nullptr; // [rows] the sentence of each row the model runs (greedy, beam search)
  int32_t* model_parents = nullptr; // [rows] beam search: the parents in the model's rows
  uint8_t* row_state = nullptr;     // [rows] alternatives: 0 decoding, 1 done, 2 ended with an end token
  size_t* row_lengths = nullptr;    // [rows] alternatives: hypothesis length

  // Per-row histories (double-buffered: beam reordering copies from one into the other).
  int32_t* history_ids[2] = {nullptr, nullptr};    // [rows, max_steps]
  float* history_log_probs[2] = {nullptr, nullptr}; // [rows, max_steps]
  float* cumulative[2] = {nullptr, nullptr};       // [rows]; -inf: the row holds no hypothesis

  // Per-sentence state.
  uint8_t* done = nullptr;          // [max_batch]
  size_t* lengths = nullptr;        // [max_batch] greedy: hypothesis length
  uint8_t* with_eos = nullptr;      // [max_batch] greedy: ended with EOS
  size_t* sentence_rows = nullptr;  // [max_batch] beam search: the model row of each sentence's first hypothesis

  // Beam search.
  Candidate* candidates = nullptr;  // [max_batch, 2 * max_beam] each sentence's ranked extensions
  decoding::LogProbView* row_views = nullptr;  // [rows] how each row's step scores read as log-probs
  size_t* candidate_counts = nullptr;  // [max_batch] how many of them a step found
  int32_t* finished_ids = nullptr;  // [max_batch, finished_capacity, max_steps]
  float* finished_log_probs = nullptr;
  // The store keeps each sentence's best `finished_capacity` finished hypotheses (only n_best are
  // returned); finished_total counts every registered one, for the stopping rule.
  FinishedMeta* finished = nullptr; // [max_batch, finished_capacity]
  size_t* finished_count = nullptr; // [max_batch] hypotheses in the store
  size_t* finished_total = nullptr; // [max_batch] hypotheses registered
  uint8_t* top_finished = nullptr;  // [max_batch] the best candidate of some step was finished
  int32_t* order = nullptr;         // [finished_capacity] ranking scratch

  // Sampling scratch.
  float* sample_weights = nullptr;  // [vocab]
  int32_t* sample_ids = nullptr;    // [vocab]

  // Attention capture (attention_floats == 0: the model captures none and these stay null).
  size_t attention_panels = 0;
  size_t attention_stride = 0;          // the model's max_source_len
  size_t attention_floats = 0;          // panels * stride: one row's attention of one step
  float* step_attention = nullptr;      // [max_steps, rows, attention_floats] beam search
  int32_t* step_parents = nullptr;      // [max_steps, rows] beam search: parents chosen at step t
  float* hypothesis_attention = nullptr; // [max_batch, max_n_best, max_steps, attention_floats]

  // Results.
  Hypothesis* hypotheses = nullptr; // [max_batch, max_n_best]
  size_t* counts = nullptr;         // [max_batch]
  float* score_log_probs = nullptr; // [max_batch, max_steps]
  size_t* score_offsets = nullptr;  // [max_batch + 1]

  Arena memory;  // every buffer above, mapped once (huge pages where the kernel has them)
  size_t bytes = 0;

  // Lays every buffer out in one allocation. kLimitExceeded when the sizes overflow.
  // attention_panels x attention_stride > 0 adds the attention buffers.
  Status allocate(size_t max_batch, size_t max_beam, size_t max_steps, size_t vocab, size_t max_n_best,
                  size_t attention_panels = 0, size_t attention_stride = 0);

  // Copies row `row`'s attention of the last step (model layout [rows, panels, stride]) into
  // `dst`, keeping the first `source_len` positions of each panel and zeroing the rest.
  void copy_attention(const float* model_attention, size_t row, size_t source_len, float* dst) const;
};

}  // namespace heed
