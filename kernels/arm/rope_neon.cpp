// RoPE for aarch64 NEON: the shared loop and angles (internal/rope_impl.h); the interleaved form
// de-interleaves pairs with LD2/ST2. Multiplies and adds stay separate (no fused multiply-add) so
// each lane rounds like the reference.
#include <arm_neon.h>

#include "internal/rope_impl.h"
#include "internal/variants.h"

namespace heed::kernels::neon {

namespace {
// x0 c - x1 s and x0 s + x1 c, with explicit separate roundings.
inline void rotate4(float32x4_t a, float32x4_t b, float32x4_t c, float32x4_t s, float32x4_t* r0,
                    float32x4_t* r1) {
  *r0 = vsubq_f32(vmulq_f32(a, c), vmulq_f32(b, s));
  *r1 = vaddq_f32(vmulq_f32(a, s), vmulq_f32(b, c));
}

struct NeonOps {
  void rotate_split(float* x0, float* x1, const float* c, const float* s, size_t n) const {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      float32x4_t r0, r1;
      rotate4(vld1q_f32(x0 + i), vld1q_f32(x1 + i), vld1q_f32(c + i), vld1q_f32(s + i), &r0, &r1);
      vst1q_f32(x0 + i, r0);
      vst1q_f32(x1 + i, r1);
    }
    for (; i < n; ++i) {
      const float a = x0[i], b = x1[i];
      x0[i] = a * c[i] - b * s[i];
      x1[i] = a * s[i] + b * c[i];
    }
  }
  void rotate_interleaved(float* x, const float* c, const float* s, size_t n) const {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      const float32x4x2_t v = vld2q_f32(x + 2 * i);
      float32x4x2_t r;
      rotate4(v.val[0], v.val[1], vld1q_f32(c + i), vld1q_f32(s + i), &r.val[0], &r.val[1]);
      vst2q_f32(x + 2 * i, r);
    }
    for (; i < n; ++i) {
      const float a = x[2 * i], b = x[2 * i + 1];
      x[2 * i] = a * c[i] - b * s[i];
      x[2 * i + 1] = a * s[i] + b * c[i];
    }
  }
};
}  // namespace

void rope(const RopeParams& p) { rope_impl(p, NeonOps{}); }

}  // namespace heed::kernels::neon
