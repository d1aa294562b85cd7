// The AVX2 int8 path's throughput: VPMADDUBSW (u8 x s8 -> pairs in s16), VPMADDWD by ones (pairs
// -> s32), VPADDD, 6 independent chains per round (only the VPADDD is loop-carried). heed's AVX2
// gemm_i8 adds one VPSIGNB per product for exactness with signed inputs, so this is an upper
// bound for it. Written in assembly so the compiler can neither hoist nor merge anything.
#include "bench_machine.h"

namespace heed::bench {

int64_t peak_loop_avx2_maddubs(int64_t iters, int64_t* macs_per_iter) {
  *macs_per_iter = 6 * 32;
  int64_t n = iters;
  int32_t out = 0;
#define HEED_CHAIN(t, acc)                                   \
  "vpmaddubsw %%ymm13, %%ymm12, %%ymm" #t "\n\t"             \
  "vpmaddwd %%ymm14, %%ymm" #t ", %%ymm" #t "\n\t"           \
  "vpaddd %%ymm" #t ", %%ymm" #acc ", %%ymm" #acc "\n\t"
  __asm__ volatile(
      "vpcmpeqb %%ymm12, %%ymm12, %%ymm12\n\t"  // a = 0xff bytes
      "vpabsb %%ymm12, %%ymm13\n\t"             // b = 1s
      "vpabsw %%ymm12, %%ymm14\n\t"             // ones (int16)
      "vpxor %%ymm0, %%ymm0, %%ymm0\n\t vmovdqa %%ymm0, %%ymm1\n\t vmovdqa %%ymm0, %%ymm2\n\t"
      "vmovdqa %%ymm0, %%ymm3\n\t vmovdqa %%ymm0, %%ymm4\n\t vmovdqa %%ymm0, %%ymm5\n\t"
      "1:\n\t"
      HEED_CHAIN(6, 0) HEED_CHAIN(7, 1) HEED_CHAIN(8, 2) HEED_CHAIN(9, 3) HEED_CHAIN(10, 4)
      HEED_CHAIN(11, 5)
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      "vpaddd %%ymm1, %%ymm0, %%ymm0\n\t"
      "vmovd %%xmm0, %[out]\n\t"
      "vzeroupper\n\t"
      : [n] "+r"(n), [out] "=r"(out)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14");
#undef HEED_CHAIN
  return out;
}

}  // namespace heed::bench
