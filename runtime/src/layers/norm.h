// LayerNorm (gamma, optional beta) or RMSNorm (gamma), epsilon from the stack's hyperparameters.
#pragma once

#include <cstddef>
#include <string>

#include "heed/kernels.h"
#include "heed/model.h"
#include "heed/status.h"
#include "layers/weights.h"
#include "threading/thread_pool.h"

namespace heed::layers {

class Norm {
 public:
  // Loads PREFIX.gamma [dim] (required) and PREFIX.beta [dim] (LayerNorm, optional: zero).
  Status load(const Model& model, const std::string& prefix, size_t dim, bool rms, float epsilon);
  // y[rows, dim] = norm(x[rows, dim]); y is x (in place) or does not overlap it. With a pool the
  // rows are split between its threads (each row's result is the same on any thread).
  void apply(const kernels::KernelTable& k, const float* x, size_t rows, float* y,
             const threading::ThreadPool* pool = nullptr) const;

 private:
  size_t dim_ = 0;
  bool rms_ = false;
  float epsilon_ = 1e-6f;
  F32Vector gamma_, beta_;
};

}  // namespace heed::layers
