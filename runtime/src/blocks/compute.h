// What every block computes with: the kernel table chosen for this CPU and the session's worker
// threads. Blocks are free functions over weights, scratch and this context; the session that owns
// them (runtime/src/models/) builds it once.
#pragma once

#include "heed/kernels.h"
#include "threading/thread_pool.h"

namespace heed::blocks {

struct Compute {
  const kernels::KernelTable* k = nullptr;
  threading::ThreadPool* pool = nullptr;
};

}  // namespace heed::blocks
