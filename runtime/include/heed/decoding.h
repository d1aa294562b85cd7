// The decoding engine: greedy search, sampling, beam search (n-best, length penalty, min/max
// length), forced target prefixes and scoring of given targets, written once against StepModel
// (step_model.h) for every generative family.
//
// Memory: every buffer the engine needs (log-probs, hypothesis histories, candidate heaps,
// finished hypotheses, results) is sized from DecodingLimits when the engine is created and lives
// in one allocation made then. decode() and score() perform no heap allocation; their results are
// views into that storage, valid until the next call on the same engine. When the model captures
// attention (StepModel::attention_panels() > 0), the storage also holds every step's attention of
// every row and one [max_target_len, panels, max_source_len] matrix per returned hypothesis
// (beam search follows the back-pointers), so keep the limits small when capturing.
//
// Conventions (those of CTranslate2's translate_batch; docs/decoding.md has the details):
// - A hypothesis is the generated tokens, target prefix included, end token (EOS) excluded.
// - max_length counts decoder steps, so generated tokens with the EOS included: a hypothesis that
//   has not produced EOS after max_length tokens ends there (`finished_with_eos` = false).
// - min_length: EOS is forbidden while fewer than min_length tokens were generated (prefix
//   included); the step's distribution is renormalized over the other tokens (EOS removed before
//   the softmax, as CTranslate2 does by disabling the logit). DecodeOptions' default is 0 (the
//   engine's neutral value); translation_defaults() gives CTranslate2's translation default 1,
//   which keeps a beam from finishing an empty translation at the first step.
// - log_prob is the sum of every token's log-prob, forced prefix and EOS included: what score()
//   gives for the same target.
// - score = (log_prob without the forced prefix's tokens) / steps^length_penalty, steps being the
//   number of tokens, prefix and EOS included. This is CTranslate2's score: "a b c </s>" is
//   divided by 4, and a prefix counts in the length but not in the log-prob. length_penalty 1
//   (the default) is plain length normalization, 0 ranks by log-prob.
// - Beam search is CTranslate2's algorithm, step by step (beam_search.cpp, docs/decoding.md): the
//   2 x beam best extensions are ranked by cumulative log-prob; of the first `beam` of them, those
//   ending with EOS (and all of them at the last step) become finished hypotheses and each is
//   replaced in the beam by the next non-EOS candidate from the second half; EOS candidates
//   ranked below `beam` are dropped. A sentence stops at max_length, or once
//   round(beam x patience) hypotheses have finished, or, with length_penalty 0, once the best
//   candidate of some step was finished and n_best hypotheses have finished. The finished
//   hypotheses are then ranked by score. This is not an exact search: it can stop before a better,
//   longer hypothesis finishes (that is what CTranslate2 returns too).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heed/status.h"
#include "heed/step_model.h"

namespace heed {

// Decoding controls (CTranslate2's names in docs/decoding.md), shared by DecodeOptions and the
// Generator's GenerateOptions. They apply at every step after the forced prefix, to every row, in
// greedy search, sampling and beam search alike; the reported log-probs are those of the
// distribution they leave (what CTranslate2 reports).
struct DecodeControls {
  // - disable_unk: the model's unknown token (DecodingLimits::unk_id) is never produced.
  // - suppress_sequences: token sequences that may not be produced. A one-token sequence is never
  //   produced; a longer one is blocked at its last token when the hypothesis ends with the
  //   tokens before it (the forced prefix counts).
  // - repetition_penalty: the logit of every token already in the hypothesis is divided by it
  //   when positive and multiplied by it when negative (1: off; > 1 discourages repeating).
  // - no_repeat_ngram_size: no n-gram of this size occurs twice in a hypothesis (0: off).
  // - end_ids: the tokens that end a hypothesis, instead of the model's EOS (none: EOS). A
  //   hypothesis excludes the end token it finished with; min_length holds back all of them.
  // - prefix_in_history: whether the forced prefix is part of the history that suppressed
  //   sequences, repetitions and n-grams look at (CTranslate2's target prefixes are; the
  //   Generator turns it off for its prompt, as CTranslate2's generate_batch with
  //   include_prompt_in_result=False does).
  bool disable_unk = false;
  const TokenBatch* suppress_sequences = nullptr;
  float repetition_penalty = 1.0f;
  size_t no_repeat_ngram_size = 0;
  const int32_t* end_ids = nullptr;
  size_t num_end_ids = 0;
  bool prefix_in_history = true;
};

// Decoding controls given as token strings (suppressed sequences, end tokens) as the ids
// DecodeControls points to, owned here: map() them with the model's vocabulary, then bind() the
// controls to them (the command line and the Python package read controls as tokens).
struct ControlTokenIds {
  std::vector<int32_t> suppress_ids;
  std::vector<size_t> suppress_offsets{0};
  std::vector<int32_t> end_ids;
  TokenBatch suppress_batch;

  // `to_id`: the vocabulary's id of a token, -1 when it has none (an error naming the token and
  // what it was given as: `suppress_name` or `end_name`).
  template <typename ToId>
  Status map(const std::vector<std::vector<std::string>>& suppress, const std::vector<std::string>& end_tokens,
             ToId to_id, const char* suppress_name, const char* end_name) {
    const auto one = [&](const std::string& token, const char* name, std::vector<int32_t>* ids) {
      const int32_t id = to_id(token);
      if (id < 0) return invalid_argument(std::string(name) + ": '" + token + "' is not in the model's vocabulary");
      ids->push_back(id);
      return Status::success();
    };
    for (const auto& sequence : suppress) {
      for (const std::string& token : sequence) HEED_RETURN_IF_ERROR(one(token, suppress_name, &suppress_ids));
      suppress_offsets.push_back(suppress_ids.size());
    }
    for (const std::string& token : end_tokens) HEED_RETURN_IF_ERROR(one(token, end_name, &end_ids));
    return Status::success();
  }
  // Points the controls' suppressed sequences and end ids at the mapped ids.
  void bind(DecodeControls* controls) {
    suppress_batch = TokenBatch{suppress_ids.data(), suppress_offsets.data(), suppress_offsets.size() - 1};
    controls->suppress_sequences = suppress_batch.size > 0 ? &suppress_batch : nullptr;
    controls->end_ids = end_ids.empty() ? nullptr : end_ids.data();
    controls->num_end_ids = end_ids.size();
  }
};

struct DecodeOptions {
  size_t beam_size = 1;        // 1: greedy or sampling; >1: beam search
  size_t n_best = 1;           // hypotheses returned per sentence, at most beam_size
  float length_penalty = 1.0f; // score = log-prob after the prefix / steps^length_penalty (see above)
  size_t min_length = 0;       // tokens before EOS is allowed (prefix included)
  size_t max_length = 0;       // decoder steps, EOS included; 0: the limits' max_target_len
  // Beam search stops once round(beam_size * patience) hypotheses have finished (CTranslate2's
  // patience factor; 1 is classic beam search). n_best must not exceed that number.
  float patience = 1.0f;

  // CTranslate2's return_alternatives: at the first position after the prefix, the n_best most
  // likely tokens (the end token held back) each start a hypothesis, continued greedily; a
  // hypothesis scores its alternative token's log-prob plus the continuation's own normalized
  // score, and the controls' history of the continuation starts after the alternative token
  // (both as CTranslate2 computes them). Alternatives below min_alternative_probability are
  // dropped. Needs beam_size 1 (n_best then up to the session's max_beam), no sampling, no
  // streaming and no attention capture.
  bool return_alternatives = false;
  float min_alternative_probability = 0.0f;

  // Sampling (beam_size 1 only). sampling_top_k 1 is greedy (argmax, the default); 0 samples from
  // the whole vocabulary; k > 1 from the k most likely tokens. Before sampling, log-probs are
  // divided by sampling_temperature and the candidates cut to the smallest set whose probability
  // reaches sampling_top_p. The PRNG is heed's own (SplitMix64), reseeded with `seed` at every
  // call, so results are reproducible on every platform. Reported log-probs are the model's
  // (untempered) ones.
  size_t sampling_top_k = 1;
  float sampling_temperature = 1.0f;
  float sampling_top_p = 1.0f;
  uint64_t seed = 0;

  DecodeControls controls;  // unknown token, suppressed sequences, repetition, end tokens

  // CTranslate2's use_vmap: decode over the vocabulary shortlist of each batch (a model converted
  // with `heed convert --vmap`; StepModel::restrict_vocabulary). Faster, and the same tokens as the
  // whole vocabulary whenever the map holds the tokens chosen; log-probs are normalized over the
  // candidates. Refused for a model without a map.
  bool use_vmap = false;

  // Streaming (beam_size 1 only; decode() refuses it with beam search): when set, called inside
  // decode() after every step with each running sentence's token, in step order: forced prefix
  // tokens and the end token included (step = index in the hypothesis), with the token's log-prob
  // as the hypothesis records it (after the controls). It must not call the engine or the model.
  // `on_token_user` is passed through.
  // Returning false stops that sentence after this token (it is kept; finished_with_eos false).
  bool (*on_token)(void* user, size_t sentence, size_t step, int32_t token, float log_prob) = nullptr;
  void* on_token_user = nullptr;

  // Cancellation, for servers whose client went away or whose time ran out: decode() looks at
  // both before each batch is started (the encoder) and before every decoder step, and stops with
  // kCancelled once *cancel is true (set from any thread) or kDeadlineExceeded once the steady
  // clock reaches `deadline`. The output is then undefined; the engine is ready for the next call.
  // A check is an atomic load and a clock read: no allocation, also on the way out.
  const std::atomic<bool>* cancel = nullptr;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// CTranslate2's translate_batch defaults: beam 2, patience 1, length penalty 1, min length 1
// (no empty translation), max length 0 (the session's max_target_len; heed's Translator and
// `heed translate` default it to 256, CTranslate2's max_decoding_length).
inline DecodeOptions translation_defaults() {
  DecodeOptions o;
  o.beam_size = 2;
  o.min_length = 1;
  return o;
}

// One output hypothesis: views into the engine's storage. "EOS" below means the end token the
// hypothesis finished with (DecodeOptions::end_ids, else the model's EOS).
struct Hypothesis {
  const int32_t* ids = nullptr;          // `length` tokens, prefix included, EOS excluded
  size_t length = 0;
  const float* token_log_probs = nullptr;  // length + (finished_with_eos ? 1 : 0) entries
  size_t num_log_probs = 0;
  float log_prob = 0;    // sum of token_log_probs
  float score = 0;       // log_prob normalized with the length penalty
  bool finished_with_eos = false;
  // Attention you can see (DecodeOutput::attention_panels > 0, else null): one row per generated
  // token, EOS included (num_log_probs rows), each `attention_panels` vectors of
  // `attention_stride` floats over the source positions; positions beyond the sentence's source
  // length are 0. Forced prefix tokens have the attention the model computed while reading them.
  const float* attention = nullptr;  // [num_log_probs, attention_panels, attention_stride]
};

// Results of one decode() call: `batch` sentences, up to n_best hypotheses each, best first.
struct DecodeOutput {
  size_t batch = 0;
  size_t stride = 0;                   // hypotheses slots per sentence
  const Hypothesis* hypotheses = nullptr;
  const size_t* counts = nullptr;      // hypotheses per sentence (>= 1 after a successful call)
  size_t attention_panels = 0;         // the model's attention_panels(): 0 without capture
  size_t attention_stride = 0;         // the model's max_source_len when panels > 0

  size_t count(size_t sentence) const { return counts[sentence]; }
  const Hypothesis& at(size_t sentence, size_t rank) const { return hypotheses[sentence * stride + rank]; }
};

// Results of one score() call: sentence i has target length + 1 log-probs (the EOS last).
struct ScoreOutput {
  size_t batch = 0;
  const float* log_probs = nullptr;
  const size_t* offsets = nullptr;     // batch + 1 entries into log_probs
  size_t length(size_t i) const { return offsets[i + 1] - offsets[i]; }
  const float* sentence(size_t i) const { return log_probs + offsets[i]; }
  float total(size_t i) const;
};

// The one check of decoding options against a session's limits, made by the decoding engine, the
// command line and the C API alike: beam_size 1..max_beam (kLimitExceeded, as the session's own check of
// start()), n_best 1..beam_size and at most round(beam_size x patience),
// max_length within max_target_len (kLimitExceeded), finite length penalty, positive patience,
// streaming and sampling only with beam_size 1, sampling temperature above 0 and top_p in (0, 1],
// a finite positive repetition penalty, end ids and suppressed sequences given with their counts.
// Token ids are checked against the vocabulary by the engine (decode()).
Status check_decode_options(const DecodeOptions& options, const StepModelLimits& limits);

struct DecodingLimits {
  size_t max_n_best = 0;  // 0: the model's max_beam
  int32_t unk_id = -1;    // the unknown token, for disable_unk; -1: the model has none
};

class DecodingEngine {
 public:
  // `model` must outlive the engine; its limits() size every buffer. Allocates once, here.
  static Status create(StepModel* model, const DecodingLimits& limits, std::unique_ptr<DecodingEngine>* out);
  ~DecodingEngine();
  DecodingEngine(const DecodingEngine&) = delete;
  DecodingEngine& operator=(const DecodingEngine&) = delete;

  // Decodes `batch` sentences. sources: null for decoder-only models. prefixes: null, or one
  // (possibly empty) forced target prefix per sentence. Errors (options out of range, a prefix
  // longer than max_length or containing EOS or out-of-vocabulary ids, limits exceeded) are
  // returned before any model call.
  Status decode(const TokenBatch* sources, size_t batch, const DecodeOptions& options,
                const TokenBatch* prefixes, DecodeOutput* out);

  // Teacher forcing: the log-prob of every target token and then of EOS, for each sentence.
  Status score(const TokenBatch* sources, const TokenBatch& targets, ScoreOutput* out);

  StepModel& model() { return *model_; }
  size_t storage_bytes() const;  // the one allocation made at creation

  struct Storage;  // private layout, decoding_storage.h

 private:
  DecodingEngine() = default;
  Status check_prefixes(const TokenBatch* prefixes, size_t batch, size_t max_length) const;
  Status check_control_ids(const DecodeControls& c) const;
  Status greedy(const TokenBatch* sources, size_t batch, const DecodeOptions& options,
                const TokenBatch* prefixes, size_t max_length, DecodeOutput* out);
  Status beam_search(const TokenBatch* sources, size_t batch, const DecodeOptions& options,
                     const TokenBatch* prefixes, size_t max_length, DecodeOutput* out);
  Status alternatives(const TokenBatch* sources, size_t batch, const DecodeOptions& options,
                      const TokenBatch* prefixes, size_t max_length, DecodeOutput* out);

  StepModel* model_ = nullptr;
  int32_t unk_id_ = -1;
  std::unique_ptr<Storage> storage_;
};

}  // namespace heed
