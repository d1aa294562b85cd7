// Creating the StepModel of a loaded .heed file: the model family is read from the file and the
// matching implementation (Transformer encoder-decoder or decoder-only) is built over the mapped
// weights, with one session arena planned for the given limits.
#pragma once

#include <cstddef>
#include <memory>

#include "heed/arena.h"
#include "heed/model.h"
#include "heed/status.h"
#include "heed/step_model.h"
#include "threading/thread_pool.h"

namespace heed {

// Builds a session over `model` (which must outlive it). Validates every required tensor and its
// shape (errors name the tensor) and the limits, plans the arena and allocates it once (or uses
// arena.buffer; too small -> kInvalidArgument naming the needed size). Families without a
// StepModel implementation -> kUnsupportedModel naming the family.
// After creation, start()/step()/reorder() never allocate.
// `threads`: worker threads of the session (threading::ThreadPool, started here) and their spin
// budget; a bare count is 1 by default, 0 for one per core, at most 256. GEMM output rows and attention (rows x heads) are split between them;
// results are bitwise the same for every thread count.
Status create_step_model(const Model& model, const StepModelLimits& limits, ArenaOptions arena,
                         std::unique_ptr<StepModel>* out, threading::PoolOptions threads = 1);

// The arena a session with these limits would need, without allocating it: for callers that
// provide their own buffer. Same validation as create_step_model.
// The arena grows with `threads` (per-thread attention scores).
Status plan_step_model_arena(const Model& model, const StepModelLimits& limits, ArenaReport* out,
                             threading::PoolOptions threads = 1);

}  // namespace heed
