// How a Linear layer's output rows (N) are shared between a session's threads: contiguous ranges
// of whole tiles of `step` rows, a multiple of 16 (the granularity of the packed int8 weight
// layout, and a multiple of every GEMM kernel's N tile, so each output sees the same kernel path
// and arithmetic as on one thread; larger where the packed int8 kernel's tiles are wider:
// KernelTable::gemm_i8_packed_n_step), and only when each task gets enough multiply-adds to pay
// for waking a thread.
#pragma once

#include <cstddef>

#include "threading/thread_pool.h"

namespace heed::layers {

inline constexpr size_t kOutputTileRows = 16;
// Calls fn(n0, n1) over [0, n) in ranges of whole tiles of `step` rows (the last range ends at
// n), one per task.
template <typename F>
void for_each_output_range(const threading::ThreadPool* pool, size_t m, size_t n, size_t k, size_t step, const F& fn) {
  const size_t tiles = (n + step - 1) / step;
  threading::parallel_ranges(pool, tiles, threading::min_items_for(m * k * step), [&](size_t, size_t t0, size_t t1) {
    const size_t n0 = t0 * step;
    const size_t n1 = t1 * step < n ? t1 * step : n;
    fn(n0, n1);
  });
}

}  // namespace heed::layers
