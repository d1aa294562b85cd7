// activate for AVX-512: x86/activation_impl.h on 16-float vectors (avx512::F32x16), every tail
// through masked loads and stores.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 avx512 headers, as in gemm_i8

#include "internal/variants.h"
#include "x86/activation_impl.h"
#include "x86/avx512_math.h"

namespace heed::kernels::avx512vnni {

void activate(float* x, size_t n, Activation act) { x86::Activations<avx512::F32x16>::activate(x, n, act); }

}  // namespace heed::kernels::avx512vnni
