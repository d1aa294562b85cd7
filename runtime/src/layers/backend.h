// How a session's Backend option (heed/step_model.h) maps onto its Linear layers.
#pragma once

#include <cstddef>
#include <initializer_list>

#include "heed/status.h"
#include "heed/step_model.h"
#include "layers/linear.h"

namespace heed::layers {

// Row count from which f32 calls go to XNNPACK under `backend`: 0 = never (heed's kernels),
// kXnnpackMinRowsAuto for kAuto, 1 for kXnnpack. kXnnpack in a build without XNNPACK (or on a CPU
// it does not support) -> kInvalidArgument.
inline constexpr size_t kXnnpackMinRowsAuto = 4;  // docs/benchmarks.md: XNNPACK wins from M = 4
Status xnnpack_min_rows(Backend backend, size_t* out);

// Applies `min_rows` (from xnnpack_min_rows) to every layer; f32 layers create their operator.
Status use_xnnpack(size_t min_rows, std::initializer_list<Linear*> layers);

}  // namespace heed::layers
