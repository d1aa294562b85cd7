#include "layers/norm.h"

namespace heed::layers {

Status Norm::load(const Model& model, const std::string& prefix, size_t dim, bool rms, float epsilon) {
  dim_ = dim;
  rms_ = rms;
  epsilon_ = epsilon;
  HEED_RETURN_IF_ERROR(gamma_.load(model, prefix + ".gamma", dim, /*optional=*/false));
  if (!rms) HEED_RETURN_IF_ERROR(beta_.load(model, prefix + ".beta", dim, /*optional=*/true));
  return Status::success();
}

void Norm::apply(const kernels::KernelTable& k, const float* x, size_t rows, float* y,
                 const threading::ThreadPool* pool) const {
  threading::parallel_ranges(pool, rows, threading::min_items_for(4 * dim_), [&](size_t, size_t begin, size_t end) {
    const float* xr = x + begin * dim_;
    float* yr = y + begin * dim_;
    if (rms_) {
      k.rms_norm(xr, end - begin, dim_, gamma_.data(), epsilon_, yr);
    } else {
      k.layer_norm(xr, end - begin, dim_, gamma_.data(), beta_.data(), epsilon_, yr);
    }
  });
}

}  // namespace heed::layers
