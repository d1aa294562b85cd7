// VPDPBUSD zmm throughput: 16 independent accumulators, so the loop is bound by how many VPDPBUSD
// the core issues per cycle, not by their 5-cycle latency. Written in assembly so the compiler can
// neither hoist nor merge anything.
#include "bench_machine.h"

namespace heed::bench {

int64_t peak_loop_vpdpbusd_zmm(int64_t iters, int64_t* macs_per_iter) {
  *macs_per_iter = 16 * 64;
  int64_t n = iters;
  int32_t out = 0;
  __asm__ volatile(
      "vpternlogd $0xff, %%zmm16, %%zmm16, %%zmm16\n\t"  // a = all ones bytes
      "vpabsb %%zmm16, %%zmm17\n\t"                      // b = 1s
      "vpxord %%zmm0, %%zmm0, %%zmm0\n\t"
      "vmovdqa64 %%zmm0, %%zmm1\n\t vmovdqa64 %%zmm0, %%zmm2\n\t vmovdqa64 %%zmm0, %%zmm3\n\t"
      "vmovdqa64 %%zmm0, %%zmm4\n\t vmovdqa64 %%zmm0, %%zmm5\n\t vmovdqa64 %%zmm0, %%zmm6\n\t"
      "vmovdqa64 %%zmm0, %%zmm7\n\t vmovdqa64 %%zmm0, %%zmm8\n\t vmovdqa64 %%zmm0, %%zmm9\n\t"
      "vmovdqa64 %%zmm0, %%zmm10\n\t vmovdqa64 %%zmm0, %%zmm11\n\t vmovdqa64 %%zmm0, %%zmm12\n\t"
      "vmovdqa64 %%zmm0, %%zmm13\n\t vmovdqa64 %%zmm0, %%zmm14\n\t vmovdqa64 %%zmm0, %%zmm15\n\t"
      "1:\n\t"
      "vpdpbusd %%zmm17, %%zmm16, %%zmm0\n\t vpdpbusd %%zmm17, %%zmm16, %%zmm1\n\t"
      "vpdpbusd %%zmm17, %%zmm16, %%zmm2\n\t vpdpbusd %%zmm17, %%zmm16, %%zmm3\n\t"
      "vpdpbusd %%zmm17, %%zmm16, %%zmm4\n\t vpdpbusd %%zmm17, %%zmm16, %%zmm5\n\t"
      "vpdpbusd %%zmm17, %%zmm16, %%zmm6\n\t vpdpbusd %%zmm17, %%zmm16, %%zmm7\n\t"
      "vpdpbusd %%zmm17, %%zmm16, %%zmm8\n\t vpdpbusd %%zmm17, %%zmm16, %%zmm9\n\t"
      "vpdpbusd %%zmm17, %%zmm16, %%zmm10\n\t vpdpbusd %%zmm17, %%zmm16, %%zmm11\n\t"
      "vpdpbusd %%zmm17, %%zmm16, %%zmm12\n\t vpdpbusd %%zmm17, %%zmm16, %%zmm13\n\t"
      "vpdpbusd %%zmm17, %%zmm16, %%zmm14\n\t vpdpbusd %%zmm17, %%zmm16, %%zmm15\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      "vpaddd %%zmm1, %%zmm0, %%zmm0\n\t"
      "vmovd %%xmm0, %[out]\n\t"
      "vzeroupper\n\t"
      : [n] "+r"(n), [out] "=r"(out)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17");
  return out;
}

}  // namespace heed::bench
