// The vocabulary shortlist of an encoder-decoder session (a file converted with `heed convert
// --vmap`, decoding with DecodeOptions::use_vmap; CTranslate2's use_vmap). For one batch, the
// candidates are the targets of every source n-gram the file's map holds, its always-candidates,
// the tokenizer's unk/bos/eos ids and the forced target prefixes' ids. The output projection then
// runs over the candidates' rows only, gathered once per batch into the arena in the layer's own
// format (layers::Linear::gather_rows): each candidate's logit is bitwise the full projection's.
// The log-softmax runs over the candidates (as CTranslate2's does), every other token gets -inf.
//
// Why: the vocabulary projection is a decoder step's largest product (32,000 x 512 of an
// OPUS-MT-size model's 38 M multiply-adds per row) and, at batch 1, the largest read of weights.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arena/arena.h"
#include "blocks/arena_buffer.h"
#include "heed/kernels.h"
#include "heed/model.h"
#include "heed/step_model.h"
#include "layers/linear.h"

namespace heed::threading {
class ThreadPool;
}

namespace heed::fb {
struct VocabMap;
}

namespace heed::models {

class VocabShortlist {
 public:
  // The file's map (none: available() is false and plan() asks for nothing); `full` is the
  // output projection the shortlist gathers from; unk (-1: none), bos and eos are always candidates.
  void load(const Model& model, const layers::Linear* full, int32_t unk, int32_t bos, int32_t eos);
  bool available() const { return map_ != nullptr; }

  // Room for a shortlist of the whole vocabulary, alive in phases [first, last].
  void plan(ArenaPlanner* planner, uint32_t first, uint32_t last);
  void bind(const Arena& arena, const ArenaPlanner& planner);

  // The candidates of `sources` (and of `targets`' ids when not null): steps run them until clear().
  void build(const TokenBatch& sources, const TokenBatch* targets);
  void clear() { active_ = false; }
  bool active() const { return active_; }
  size_t count() const { return count_; }
  // The candidates in increasing id order while active(), else null (*n 0).
  const int32_t* candidates(size_t* n) const {
    *n = active_ ? count_ : 0;
    return active_ ? ids_.as<const int32_t>() : nullptr;
  }
  // The output projection over the candidates, in increasing id order.
  const layers::Linear& projection() const { return projection_; }

  // `rows` rows of count() logits each (row stride `vocab`, as projection() wrote them) become
  // rows of `vocab` scores: the log-softmax over the candidates (when `log_softmax`), each at its
  // token's position, -inf at every other token.
  // The -inf beyond the first count() entries are written once per build() and buffer: the
  // decoding engine only lowers or shifts scores (-inf stays -inf), so they stay. Call
  // forget_rows() when something else wrote into the buffer (a step() that filled it with NaN).
  void expand(const kernels::KernelTable& k, const threading::ThreadPool* pool, float* rows, size_t n,
              bool log_softmax);
  void forget_rows() { filled_rows_ = 0; }

 private:
  // Marks the candidates of every n-gram of one source sentence.
  void mark_sentence(const int32_t* ids, size_t length, uint8_t* marks) const;
  // The index of the key equal to ids[0 .. n), or -1.
  long find_key(const int32_t* ids, size_t n) const;

  const fb::VocabMap* map_ = nullptr;
  const layers::Linear* full_ = nullptr;
  size_t vocab_ = 0;
  int32_t fixed_[3] = {-1, -1, -1};  // unk, bos, eos
  blocks::ArenaBuffer marks_, ids_, storage_;
  layers::Linear projection_;
  size_t count_ = 0;
  bool active_ = false;
  // expand(): rows [0, filled_rows_) of filled_ hold -inf at every non-candidate from count_ on.
  const float* filled_ = nullptr;
  size_t filled_rows_ = 0;
};

}  // namespace heed::models
