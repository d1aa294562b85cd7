// Fused attention for AVX-512: the AVX2 variant's tiles (x86/attention_avx2_ops.h) with the
// AVX-512 softmax, which is most of the rest of the time on long encoder inputs.
#include "x86/attention_avx2_ops.h"

#include "internal/variants.h"

namespace heed::kernels::avx512vnni {

void attention(const AttentionParams& p) { attention_block_impl(p, avx2::Avx2Ops<avx512vnni::softmax>{}); }

}  // namespace heed::kernels::avx512vnni
