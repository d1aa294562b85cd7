// Reordering a session's per-row caches after a beam search step (StepModel::reorder): row r
// continues the hypothesis that was row parents[r].
#pragma once

#include <cstddef>
#include <cstdint>

namespace heed::layers {

// True when `parents` is a valid reorder that moves something: every parent in [0, rows) and in
// its row's own sentence (rows of one sentence are beam consecutive rows), and not the identity.
// Invalid parents are ignored by the callers (the decoding engine never sends them).
bool beam_reorder_moves(const int32_t* parents, size_t rows, size_t beam);

// Row r of `cache` (row stride `stride` floats, the first `used` live) becomes the old row
// parents[r]. Rows whose parent is themselves are left alone (in a beam step most rows often
// are); the others are gathered into `scratch` (rows x used floats) before any is overwritten,
// so a row can be both copied and replaced.
void beam_reorder_rows(float* cache, size_t stride, size_t used, const int32_t* parents, size_t rows,
                       float* scratch);

}  // namespace heed::layers
