// Fused attention for AVX2: the block path (internal/attention_block_impl.h) and the row loop
// (internal/attention_impl.h) for the calls blocks do not take, on the primitives of
// x86/attention_avx2_ops.h.
#include "x86/attention_avx2_ops.h"

#include "internal/variants.h"

namespace heed::kernels::avx2 {

void attention(const AttentionParams& p) { attention_block_impl(p, Avx2Ops<avx2::softmax>{}); }

}  // namespace heed::kernels::avx2
