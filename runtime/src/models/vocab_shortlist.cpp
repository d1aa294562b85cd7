#include "models/vocab_shortlist.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "loader/model_index.h"
#include "threading/thread_pool.h"

namespace heed::models {

void VocabShortlist::load(const Model& model, const layers::Linear* full, int32_t unk, int32_t bos, int32_t eos) {
  map_ = file_index(model).vocab_map();  // the loader has checked every offset, id and the key order
  full_ = full;
  vocab_ = full->out_features();
  fixed_[0] = unk;
  fixed_[1] = bos;
  fixed_[2] = eos;
  active_ = false;
}

void VocabShortlist::plan(ArenaPlanner* p, uint32_t first, uint32_t last) {
  if (!available()) return;
  marks_.request(p, "vocab_shortlist.marks", vocab_, first, last);
  ids_.request(p, "vocab_shortlist.ids", blocks::saturating_product(vocab_, sizeof(int32_t)), first, last);
  storage_.request(p, "vocab_shortlist.projection", full_->gathered_bytes(vocab_), first, last);
}

void VocabShortlist::bind(const Arena& arena, const ArenaPlanner& p) {
  if (!available()) return;
  for (blocks::ArenaBuffer* b : {&marks_, &ids_, &storage_}) b->bind(arena, p);
}

long VocabShortlist::find_key(const int32_t* ids, size_t n) const {
  const auto& offsets = *map_->key_offsets();
  const int32_t* keys = map_->key_ids()->data();
  // Keys are sorted lexicographically on ids (a proper prefix first): binary search.
  size_t lo = 0, hi = offsets.size() - 1;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const int32_t* key = keys + offsets[mid];
    const size_t len = offsets[mid + 1] - offsets[mid];
    if (std::lexicographical_compare(key, key + len, ids, ids + n)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == offsets.size() - 1) return -1;
  const size_t len = offsets[lo + 1] - offsets[lo];
  return len == n && std::equal(ids, ids + n, keys + offsets[lo]) ? static_cast<long>(lo) : -1;
}

void VocabShortlist::mark_sentence(const int32_t* ids, size_t length, uint8_t* marks) const {
  const auto& targets = *map_->target_offsets();
  const int32_t* candidates = map_->target_ids()->data();
  const size_t max_n = map_->max_ngram();
  for (size_t i = 0; i < length; ++i) {
    for (size_t n = 1; n <= max_n && i + n <= length; ++n) {
      const long key = find_key(ids + i, n);
      if (key < 0) continue;
      for (uint32_t t = targets[key]; t < targets[key + 1]; ++t) marks[candidates[t]] = 1;
    }
  }
}

void VocabShortlist::build(const TokenBatch& sources, const TokenBatch* targets) {
  uint8_t* marks = marks_.as<uint8_t>();
  std::memset(marks, 0, vocab_);
  for (int32_t id : fixed_) {
    if (id >= 0 && static_cast<size_t>(id) < vocab_) marks[id] = 1;
  }
  if (map_->always() != nullptr) {
    for (int32_t id : *map_->always()) marks[id] = 1;
  }
  for (size_t s = 0; s < sources.size; ++s) mark_sentence(sources.sequence(s), sources.length(s), marks);
  if (targets != nullptr) {
    for (size_t i = 0; i < targets->offsets[targets->size]; ++i) {
      const int32_t id = targets->ids[i];
      if (id >= 0 && static_cast<size_t>(id) < vocab_) marks[id] = 1;
    }
  }
  int32_t* ids = ids_.as<int32_t>();
  count_ = 0;
  for (size_t v = 0; v < vocab_; ++v) {
    if (marks[v]) ids[count_++] = static_cast<int32_t>(v);
  }
  full_->gather_rows(ids, count_, storage_.ptr, &projection_);
  active_ = true;
  filled_rows_ = 0;
}

void VocabShortlist::expand(const kernels::KernelTable& k, const threading::ThreadPool* pool, float* rows, size_t n,
                            bool log_softmax) {
  const int32_t* ids = ids_.as<const int32_t>();
  const float minus_inf = -std::numeric_limits<float>::infinity();
  if (rows != filled_) filled_rows_ = 0;
  // Rows not filled yet get -inf from count_ on (the candidates' places among them are written below).
  for (size_t r = filled_rows_; r < n; ++r) std::fill(rows + r * vocab_ + count_, rows + (r + 1) * vocab_, minus_inf);
  filled_ = rows;
  filled_rows_ = std::max(filled_rows_, n);
  threading::parallel_ranges(pool, n, threading::min_items_for(4 * count_), [&](size_t, size_t b, size_t e) {
    for (size_t r = b; r < e; ++r) {
      float* row = rows + r * vocab_;
      if (log_softmax) k.log_softmax(row, count_);
      // In place from the last candidate down: ids[j] >= j, so no logit is overwritten before it
      // moves. Only [0, count_) needs -inf again between the candidates (the projection wrote it).
      size_t next = vocab_;
      for (size_t j = count_; j-- > 0;) {
        const size_t to = static_cast<size_t>(ids[j]);
        const float value = row[j];
        if (to + 1 < count_) std::fill(row + to + 1, row + std::min(next, count_), minus_inf);
        row[to] = value;
        next = to;
      }
      std::fill(row, row + std::min(next, count_), minus_inf);
    }
  });
}

}  // namespace heed::models
