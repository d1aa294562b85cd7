// f16 <-> f32 with aarch64's FCVTL / FCVTN (round to nearest even under the default FPCR): the
// same results as the reference's bit manipulation, subnormals and infinities included.
#include <arm_neon.h>

#include "internal/variants.h"

namespace heed::kernels::neon {

void f16_to_f32(const uint16_t* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(x + i))));
  for (; i < n; ++i) y[i] = ref::f16_bits_to_f32(x[i]);
}

void f32_to_f16(const float* x, uint16_t* y, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1_u16(y + i, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(x + i))));
  if (i < n) ref::f32_to_f16(x + i, y + i, n - i);
}

}  // namespace heed::kernels::neon
