// activate for AVX2: x86/activation_impl.h on 8-float vectors (avx2::F32x8).
#include "internal/variants.h"
#include "x86/activation_impl.h"
#include "x86/avx2_math.h"

namespace heed::kernels::avx2 {

void activate(float* x, size_t n, Activation act) { x86::Activations<F32x8>::activate(x, n, act); }

}  // namespace heed::kernels::avx2
