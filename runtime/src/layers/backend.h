// How a session's Backend option (heed/step_model.h) maps onto its Linear layers.
#pragma once

#include <cstddef>
#include <initializer_list>

#include "heed/status.h"
#include "heed/step_model.h"
#include "layers/linear.h"

namespace heed::layers {

// Row count from which f32 calls go to XNNPACK under `backend`: 0 = never (heed's kernels),
// kXnnpackMinRowsAuto for kAuto (when XNNPACK supports the CPU), 1 for kXnnpack. kXnnpack in a
// build without XNNPACK (or on a CPU it does not support) -> kInvalidArgument.
// Every row count under kAuto: heed's gemm_f32 wins only one-row products over weights that stay
// in the cache, which a whole model's decoding step does not get (docs/benchmarks.md: XNNPACK
// from 1 row decoded 1.7x faster than from 4 rows on an AMD EPYC, greedy, float32).
inline constexpr size_t kXnnpackMinRowsAuto = 1;
Status xnnpack_min_rows(Backend backend, size_t* out);

// Applies `min_rows` (from xnnpack_min_rows) to every layer; f32 layers create their operator.
Status use_xnnpack(size_t min_rows, std::initializer_list<Linear*> layers);

}  // namespace heed::layers
