// The contract between a model family and the decoding engine (decoding.h). Every generative
// family (Transformer encoder-decoder, decoder-only, RNN seq2seq) implements StepModel; greedy,
// beam search, sampling and scoring are written once against it.
//
// Rows: the engine works on `rows` = batch * beam hypotheses, row r belongs to sentence r / beam.
// Everything here runs inside a session: implementations use their arena, never the heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "heed/status.h"

namespace heed {

// A batch of token-id sequences, stored flat: sequence i is ids[offsets[i] .. offsets[i + 1]).
struct TokenBatch {
  const int32_t* ids = nullptr;
  const size_t* offsets = nullptr;  // size + 1 entries
  size_t size = 0;
  size_t length(size_t i) const { return offsets[i + 1] - offsets[i]; }
  const int32_t* sequence(size_t i) const { return ids + offsets[i]; }
};

// Which GEMM code runs the f32 Linear layers of a session (int8 and f16 weights always run heed's
// own kernels: they measured faster than XNNPACK's, docs/benchmarks.md).
//   kAuto:    XNNPACK's fully connected operator for f32 layers (it measured 1.5-4.9x faster
//             from 4 rows per call, and faster at 1 row too once the weights come from memory);
//             heed's kernels when heed is built without XNNPACK (HEED_WITH_XNNPACK=OFF) or
//             XNNPACK does not support the CPU.
//             XNNPACK packs its own copy of the f32 weights at creation; the pages of the mapped
//             ones are then released (Model::release_pages), so they are resident about once.
//   kHeed:    heed's kernels for everything.
//   kXnnpack: XNNPACK for every f32 layer call it can take (any row count); without XNNPACK in
//             the build, session creation fails with kInvalidArgument.
enum class Backend : int { kAuto = 0, kHeed = 1, kXnnpack = 2 };

// "auto", "heed", "xnnpack" (static storage); parse_backend is false for any other name.
const char* backend_name(Backend backend);
bool parse_backend(const char* name, Backend* out);
// True when this build links XNNPACK.
bool built_with_xnnpack();

struct StepModelLimits {
  size_t max_batch = 0;        // sentences per call
  size_t max_beam = 0;         // hypotheses per sentence
  size_t max_source_len = 0;   // tokens per source (encoder-decoder only)
  size_t max_target_len = 0;   // decoder steps, prefix included
  // Attention you can see: when set, the session also plans a buffer for the attention
  // probabilities of each step (attention_panels() > 0 then, for families that have attention
  // over a source). Off by default: the normal path neither plans nor writes it.
  bool capture_attention = false;
  // The GEMM backend of f32 Linear layers (see Backend). Chosen once, at session creation.
  Backend backend = Backend::kAuto;
};

class StepModel {
 public:
  virtual ~StepModel() = default;

  virtual size_t vocab_size() const = 0;
  virtual int32_t bos_id() const = 0;           // first decoder input
  virtual int32_t eos_id() const = 0;
  virtual const StepModelLimits& limits() const = 0;

  // Starts a batch: encodes the sources (encoder-decoder; decoder-only models take an empty or
  // null batch and just reset), replicates each sentence's state `beam` times, resets the caches.
  // Errors: a source longer than max_source_len, batch or beam above the limits, ids out of range.
  virtual Status start(const TokenBatch* sources, size_t batch, size_t beam) = 0;

  // One decoder step for `rows` hypotheses: input_ids[r] is the token fed at position `step`
  // (0-based). Writes log-probabilities [rows, vocab_size] (log-softmax over the vocabulary).
  virtual void step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) = 0;

  // Raw logits from step() instead of log-probabilities, until called again with false. The
  // engine asks for them when a control is defined on logits (the repetition penalty) and then
  // normalizes each row itself with log_softmax_rows(). False: this model cannot give logits.
  virtual bool set_raw_logits(bool on) { return !on; }
  // The log-softmax step() applies, over `rows` rows of vocab_size() scores, in place.
  virtual void log_softmax_rows(float* scores, size_t rows) const {
    (void)scores;
    (void)rows;
  }
  // What log_softmax_rows() subtracts from each score of one row of logits: after it, entry j
  // holds exactly scores[j] - *shift (one float subtraction; 0 for a row it leaves as it is).
  // Lets a caller that reads few entries of the row skip rewriting it. False: this model does not
  // say (the caller runs log_softmax_rows()).
  virtual bool log_softmax_shift(const float* scores, float* shift) const {
    (void)scores;
    (void)shift;
    return false;
  }

  // Batches drop finished sentences: rows keep[0] < keep[1] < ... < keep[count - 1] become rows
  // 0 .. count - 1 (each with its cached state and its sentence's source), and later step() and
  // reorder() calls run those rows only. With beam > 1 whole sentences move: count is a multiple
  // of beam and each kept sentence's rows stay together and in order, so row r still belongs to
  // the sentence block r / beam. False: the model cannot move rows (or `keep` breaks these
  // rules); the engine then keeps running the finished rows.
  virtual bool compact_rows(const int32_t* keep, size_t count) {
    (void)keep;
    (void)count;
    return false;
  }

  // Vocabulary shortlist (a model converted with `heed convert --vmap`; DecodeOptions::use_vmap):
  // has_vocab_map() tells whether the model has a map. restrict_vocabulary(), called after start()
  // with the same sources, makes the steps of this batch compute the candidates of the sources'
  // n-grams only (plus the map's always-candidates, unk, bos, eos and the ids of `targets`, the
  // forced prefixes, when not null): their log-softmax is taken over the candidates and every
  // other token's log-prob is -inf. The next start() returns to the whole vocabulary.
  virtual bool has_vocab_map() const { return false; }
  // While a restriction holds: its candidates in increasing id order (*count of them); the search
  // then reads only those scores (every other one is -inf). Null, *count 0: every token.
  virtual const int32_t* vocabulary_candidates(size_t* count) const {
    *count = 0;
    return nullptr;
  }
  virtual Status restrict_vocabulary(const TokenBatch* sources, const TokenBatch* targets) {
    (void)sources;
    (void)targets;
    return invalid_argument("this model has no vocabulary map");
  }

  // Runs fn(context, begin, end) over [0, count) in ranges shared by the session's threads (the
  // calling thread takes ranges too) and returns when all are done; without threads, one range.
  // The engine ranks each sentence's beam candidates this way, so fn must treat every item on its
  // own: the results are then the same for any thread count.
  virtual void parallel_for(size_t count, void (*fn)(void* context, size_t begin, size_t end), void* context) const {
    fn(context, 0, count);
  }

  // Beam bookkeeping: after this call, row r continues from the state of row parents[r] (cache
  // entries of positions < current step are copied/permuted). rows as in the last step().
  virtual void reorder(const int32_t* parents, size_t rows) = 0;

  // Attention over the source of the last step(), when the session was created with
  // limits().capture_attention (0 panels otherwise, and for families without a source).
  // A panel is one alignment vector per row: the RNN family has 1 (its attention), the
  // Transformer encoder-decoder num_layers x num_heads (cross-attention, panel = layer * heads +
  // head). last_attention() is [rows, panels, max_source_len] in session memory, valid until the
  // next start()/step()/reorder(); entry s of row r's panel is the probability of source position
  // s (positions at or beyond the row's source length are unspecified).
  virtual size_t attention_panels() const { return 0; }
  // Panels per layer (the Transformer's heads): attention_panels() / attention_heads() layers.
  virtual size_t attention_heads() const { return attention_panels(); }
  virtual const float* last_attention() const { return nullptr; }
};

}  // namespace heed
