// Rotary position embedding, the specification: each pair (x0, x1) of a head's first rot_dim
// dimensions becomes (x0 cos - x1 sin, x0 sin + x1 cos), angle = position * theta^(-2i / rot_dim).
#include "internal/rope_impl.h"
#include "internal/variants.h"

namespace heed::kernels::ref {

namespace {
struct ScalarOps {
  void rotate_split(float* x0, float* x1, const float* c, const float* s, size_t n) const {
    for (size_t i = 0; i < n; ++i) {
      const float a = x0[i], b = x1[i];
      x0[i] = a * c[i] - b * s[i];
      x1[i] = a * s[i] + b * c[i];
    }
  }
  void rotate_interleaved(float* x, const float* c, const float* s, size_t n) const {
    for (size_t i = 0; i < n; ++i) {
      const float a = x[2 * i], b = x[2 * i + 1];
      x[2 * i] = a * c[i] - b * s[i];
      x[2 * i + 1] = a * s[i] + b * c[i];
    }
  }
};
}  // namespace

void rope(const RopeParams& p) { rope_impl(p, ScalarOps{}); }

}  // namespace heed::kernels::ref
