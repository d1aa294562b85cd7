// A toy autoregressive model for testing the decoding engine against exhaustive enumeration.
//
// The distribution of the next token depends on the sentence's source, the step, the last token
// fed and the sum of every token fed so far (mod 3), so a decoder that forgets to reorder the
// model's state after a beam step gets different numbers. toy_log_probs() is the model written as
// a plain function of the whole history (what the reference enumerates); ToyStepModel is the same
// model behind the StepModel interface with per-row state (what the engine drives), moving rows
// when the engine drops finished sentences only when built with `compacting`.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "heed/step_model.h"

namespace heed::test {

constexpr int32_t kToyBos = 1;
constexpr int32_t kToyEos = 2;

inline uint64_t toy_mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// A number identifying one source sentence.
inline uint64_t toy_source_key(const int32_t* ids, size_t n) {
  uint64_t k = 0x1234567 + n;
  for (size_t i = 0; i < n; ++i) k = toy_mix(k * 31 + static_cast<uint64_t>(ids[i]) + 7);
  return k;
}

// Log-softmax over `vocab` tokens, in double, after the token `fed` at position `step` with the
// running sum `sum` of every token fed so far (this one included).
inline std::vector<double> toy_log_probs_from_state(uint64_t source_key, size_t vocab, size_t step, int32_t fed,
                                                    int64_t sum) {
  std::vector<double> logits(vocab);
  for (size_t v = 0; v < vocab; ++v) {
    uint64_t h = toy_mix(source_key ^ toy_mix(step * 1000003ULL + static_cast<uint64_t>(fed) * 7919ULL +
                                              static_cast<uint64_t>(sum % 3) * 104729ULL + v));
    logits[v] = (static_cast<double>(h >> 11) / 9007199254740992.0) * 4.0 - 2.0;
    if (static_cast<int32_t>(v) == kToyEos) logits[v] += 0.6 * static_cast<double>(step) - 1.0;
  }
  double m = logits[0];
  for (double x : logits) m = std::max(m, x);
  double s = 0;
  for (double x : logits) s += std::exp(x - m);
  for (double& x : logits) x -= m + std::log(s);
  return logits;
}

// The same distribution as a function of the generated tokens so far (BOS is fed first).
inline std::vector<double> toy_log_probs(uint64_t source_key, size_t vocab, const std::vector<int32_t>& generated) {
  int64_t sum = kToyBos;
  for (int32_t t : generated) sum += t;
  const int32_t fed = generated.empty() ? kToyBos : generated.back();
  return toy_log_probs_from_state(source_key, vocab, generated.size(), fed, sum);
}

constexpr size_t kToyMaxVocab = 600;

// What the toy's step() writes when the engine asks for logits (StepModel::set_raw_logits).
enum class ToyLogits {
  kNone,       // log-probs only (set_raw_logits(true) fails)
  kRows,       // logits, normalized by log_softmax_rows()
  kShift,      // logits, and log_softmax_shift() says what log_softmax_rows() subtracts
};

// The float log-softmax the toy applies to its logits: x - shift, shift = max + log(sum exp(x - max)).
inline float toy_log_softmax_shift(const float* x, size_t n) {
  float m = x[0];
  for (size_t v = 1; v < n; ++v) m = std::fmax(m, x[v]);
  float s = 0.0f;
  for (size_t v = 0; v < n; ++v) s += std::exp(x[v] - m);
  return m + std::log(s);
}

class ToyStepModel : public StepModel {
 public:
  ToyStepModel(size_t vocab, const StepModelLimits& limits, bool compacting = false,
               ToyLogits logits = ToyLogits::kNone)
      : vocab_(vocab), limits_(limits), compacting_(compacting), logits_(logits),
        row_keys_(limits.max_batch * limits.max_beam), sums_(limits.max_batch * limits.max_beam),
        scratch_(limits.max_batch * limits.max_beam) {
    if (vocab > kToyMaxVocab) throw std::invalid_argument("toy vocabulary too large");
  }

  bool set_raw_logits(bool on) override {
    if (logits_ == ToyLogits::kNone) return !on;
    raw_ = on;
    return true;
  }
  void log_softmax_rows(float* scores, size_t rows) const override {
    for (size_t r = 0; r < rows; ++r) {
      float* row = scores + r * vocab_;
      const float shift = toy_log_softmax_shift(row, vocab_);
      for (size_t v = 0; v < vocab_; ++v) row[v] -= shift;
    }
  }
  bool log_softmax_shift(const float* scores, float* shift) const override {
    if (logits_ != ToyLogits::kShift) return false;
    *shift = toy_log_softmax_shift(scores, vocab_);
    return true;
  }

  size_t vocab_size() const override { return vocab_; }
  int32_t bos_id() const override { return kToyBos; }
  int32_t eos_id() const override { return kToyEos; }
  const StepModelLimits& limits() const override { return limits_; }

  Status start(const TokenBatch* sources, size_t batch, size_t beam) override {
    if (batch > limits_.max_batch || beam > limits_.max_beam) return Status(StatusCode::kLimitExceeded, "toy limits");
    batch_ = batch;
    beam_ = beam;
    for (size_t r = 0; r < batch * beam; ++r) {
      const size_t i = r / beam;
      row_keys_[r] = sources ? toy_source_key(sources->sequence(i), sources->length(i)) : 99;
      sums_[r] = 0;
    }
    rows_ = batch * beam;
    next_step_ = 0;
    ++starts;
    return Status::success();
  }

  void step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) override {
    // Contract checks: the engine must call steps in order with every row it did not drop.
    if (rows != rows_ || step != next_step_ || step >= limits_.max_target_len) contract_violations++;
    ++next_step_;
    ++steps;
    for (size_t r = 0; r < rows; ++r) {
      const int32_t fed = input_ids[r];
      if (fed < 0 || static_cast<size_t>(fed) >= vocab_) {
        contract_violations++;
        continue;
      }
      sums_[r] += fed;
      // Evaluated without heap allocation: the formula of toy_log_probs_from_state, inline.
      fill_row(row_keys_[r], step, fed, sums_[r], log_probs + r * vocab_);
    }
  }

  void reorder(const int32_t* parents, size_t rows) override {
    ++reorders;
    if (rows != rows_) contract_violations++;
    for (size_t r = 0; r < rows; ++r) {
      if (parents[r] < 0 || static_cast<size_t>(parents[r]) / beam_ != r / beam_) contract_violations++;
    }
    for (size_t r = 0; r < rows; ++r) scratch_[r] = sums_[static_cast<size_t>(parents[r])];
    for (size_t r = 0; r < rows; ++r) sums_[r] = scratch_[r];
  }

  // Whole sentences move (StepModel::compact_rows): increasing rows, each sentence's beam together.
  bool compact_rows(const int32_t* keep, size_t count) override {
    if (!compacting_) return false;
    ++compactions;
    if (count == 0 || count >= rows_ || count % beam_ != 0) contract_violations++;
    for (size_t k = 0; k < count; ++k) {
      const size_t from = static_cast<size_t>(keep[k]);
      if (from < k || from >= rows_ || from % beam_ != k % beam_ || (k > 0 && keep[k] <= keep[k - 1]) ||
          (k % beam_ != 0 && keep[k] != keep[k - 1] + 1)) {
        contract_violations++;
        return false;
      }
      row_keys_[k] = row_keys_[from];
      sums_[k] = sums_[from];
    }
    rows_ = count;
    return true;
  }

  size_t steps = 0, starts = 0, reorders = 0, compactions = 0, contract_violations = 0;

 private:
  // The row's log-probs, or its logits (rounded to float) when the engine asked for them.
  void fill_row(uint64_t key, size_t step, int32_t fed, int64_t sum, float* out) const {
    double logits[kToyMaxVocab];
    double m = -1e300;
    for (size_t v = 0; v < vocab_; ++v) {
      uint64_t h = toy_mix(key ^ toy_mix(step * 1000003ULL + static_cast<uint64_t>(fed) * 7919ULL +
                                         static_cast<uint64_t>(sum % 3) * 104729ULL + v));
      logits[v] = (static_cast<double>(h >> 11) / 9007199254740992.0) * 4.0 - 2.0;
      if (static_cast<int32_t>(v) == kToyEos) logits[v] += 0.6 * static_cast<double>(step) - 1.0;
      m = std::max(m, logits[v]);
    }
    if (raw_) {
      for (size_t v = 0; v < vocab_; ++v) out[v] = static_cast<float>(logits[v]);
      return;
    }
    double s = 0;
    for (size_t v = 0; v < vocab_; ++v) s += std::exp(logits[v] - m);
    for (size_t v = 0; v < vocab_; ++v) out[v] = static_cast<float>(logits[v] - m - std::log(s));
  }

  size_t vocab_;
  StepModelLimits limits_;
  const bool compacting_;
  const ToyLogits logits_;
  bool raw_ = false;  // set_raw_logits()
  std::vector<uint64_t> row_keys_;  // each row's sentence
  std::vector<int64_t> sums_, scratch_;
  size_t batch_ = 0, beam_ = 0, rows_ = 0, next_step_ = 0;
};

}  // namespace heed::test
