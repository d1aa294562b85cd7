#include "decoding/decoding_storage.h"

#include <cstring>
#include <limits>
#include <string>

namespace heed {
namespace {

constexpr size_t kAlign = 64;

// Two passes over the same list of buffers: the first (base == nullptr) only sums the sizes,
// the second hands out pointers. Overflow of any size product is reported, never wrapped.
class Layout {
 public:
  explicit Layout(unsigned char* base) : base_(base) {}

  template <typename T>
  void take(T** out, size_t a, size_t b = 1, size_t c = 1) {
    size_t count = 0;
    if (!mul(a, b, &count) || !mul(count, c, &count) || !mul(count, sizeof(T), &count)) {
      overflow_ = true;
      return;
    }
    size_t start = (offset_ + kAlign - 1) / kAlign * kAlign;
    if (start < offset_ || start + count < start) {
      overflow_ = true;
      return;
    }
    if (base_) *out = reinterpret_cast<T*>(base_ + start);
    offset_ = start + count;
  }

  size_t size() const { return offset_; }
  bool overflow() const { return overflow_; }

 private:
  static bool mul(size_t a, size_t b, size_t* out) {
    if (a != 0 && b > std::numeric_limits<size_t>::max() / a) return false;
    *out = a * b;
    return true;
  }
  unsigned char* base_;
  size_t offset_ = 0;
  bool overflow_ = false;
};

void lay_out(DecodingEngine::Storage& s, Layout& l) {
  const size_t n = s.max_batch, r = s.rows, t = s.max_steps, v = s.vocab, f = s.finished_capacity;
  l.take(&s.log_probs, r, v);
  l.take(&s.inputs, r);
  l.take(&s.parents, r);
  l.take(&s.next_tokens, r);
  l.take(&s.row_sentences, r);
  l.take(&s.model_parents, r);
  l.take(&s.row_state, r);
  l.take(&s.row_lengths, r);
  for (int i = 0; i < 2; ++i) {
    l.take(&s.history_ids[i], r, t);
    l.take(&s.history_log_probs[i], r, t);
    l.take(&s.cumulative[i], r);
  }
  l.take(&s.done, n);
  l.take(&s.lengths, n);
  l.take(&s.with_eos, n);
  l.take(&s.sentence_rows, n);
  l.take(&s.candidates, n, 2 * s.max_beam);
  l.take(&s.row_views, r);
  l.take(&s.candidate_counts, n);
  l.take(&s.finished_ids, n, f, t);
  l.take(&s.finished_log_probs, n, f, t);
  l.take(&s.finished, n, f);
  l.take(&s.finished_count, n);
  l.take(&s.finished_total, n);
  l.take(&s.top_finished, n);
  l.take(&s.order, f);
  l.take(&s.sample_weights, v);
  l.take(&s.sample_ids, v);
  l.take(&s.hypotheses, n, s.max_n_best);
  l.take(&s.counts, n);
  l.take(&s.score_log_probs, n, t);
  l.take(&s.score_offsets, n + 1);
  if (s.attention_floats > 0) {
    const size_t rows_per_step = s.max_beam > 1 ? r : 0;  // greedy writes the results directly
    l.take(&s.step_attention, t, rows_per_step, s.attention_floats);
    l.take(&s.step_parents, t, rows_per_step);
    l.take(&s.hypothesis_attention, n * s.max_n_best, t, s.attention_floats);
  }
}

}  // namespace

Status DecodingEngine::Storage::allocate(size_t batch, size_t beam, size_t steps, size_t vocab_size,
                                         size_t n_best, size_t panels, size_t stride) {
  max_batch = batch;
  max_beam = beam;
  max_steps = steps;
  vocab = vocab_size;
  max_n_best = n_best;
  rows = batch * beam;
  finished_capacity = 2 * beam;
  if (beam != 0 && rows / beam != batch) return Status(StatusCode::kLimitExceeded, "decoding limits overflow (max_batch x max_beam)");
  attention_panels = panels;
  attention_stride = stride;
  attention_floats = panels * stride;
  if (stride != 0 && attention_floats / stride != panels) {
    return Status(StatusCode::kLimitExceeded, "attention buffers overflow (panels x max_source_len)");
  }

  Layout sizing(nullptr);
  lay_out(*this, sizing);
  if (sizing.overflow()) return Status(StatusCode::kLimitExceeded, "decoding buffers for these limits overflow the address space");
  bytes = sizing.size();
  const Status mapped = Arena::create(bytes, ArenaOptions{}, &memory);
  if (!mapped.is_ok()) {
    return Status(StatusCode::kOutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes of decoding buffers");
  }
  Layout placing(memory.base());  // page-aligned
  lay_out(*this, placing);
  return Status::success();
}

void DecodingEngine::Storage::copy_attention(const float* model_attention, size_t row, size_t source_len,
                                             float* dst) const {
  const float* src = model_attention + row * attention_floats;
  const size_t keep = source_len < attention_stride ? source_len : attention_stride;
  for (size_t p = 0; p < attention_panels; ++p) {
    const float* a = src + p * attention_stride;
    float* d = dst + p * attention_stride;
    std::memcpy(d, a, keep * sizeof(float));
    std::memset(d + keep, 0, (attention_stride - keep) * sizeof(float));
  }
}

}  // namespace heed
