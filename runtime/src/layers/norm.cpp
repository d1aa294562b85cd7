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

void Norm::apply(const kernels::KernelTable& k, const float* x, size_t rows, float* y) const {
  if (rows == 0) return;
  if (rms_) {
    k.rms_norm(x, rows, dim_, gamma_.data(), epsilon_, y);
  } else {
    k.layer_norm(x, rows, dim_, gamma_.data(), beta_.data(), epsilon_, y);
  }
}

}  // namespace heed::layers
