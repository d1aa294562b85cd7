// CPU feature detection for dispatch.
//
// x86-64: cpuinfo (it also checks that the OS saves the AVX/AVX-512 registers, via XGETBV).
// ARM Linux: getauxval(AT_HWCAP / AT_HWCAP2) is the source of truth. The kernel fills these from
// the CPU's ID registers, qemu-user fills them from the emulated CPU model (so -cpu cortex-a72
// correctly reports no dotprod), and the cpuinfo release heed builds against has no i8mm query at
// all. aarch64 always has NEON (Advanced SIMD is mandatory in ARMv8-A), so kNeon needs no check.
#include "internal/cpu_features.h"

#include "heed/kernels.h"

#include <thread>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuinfo.h>
#elif (defined(__aarch64__) || defined(__arm__)) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace heed::kernels {

size_t physical_cores() {
#if defined(__x86_64__) || defined(_M_X64)
  if (cpuinfo_initialize() && cpuinfo_get_cores_count() > 0) return cpuinfo_get_cores_count();
#endif
  const unsigned processors = std::thread::hardware_concurrency();
  return processors == 0 ? 1 : processors;
}

uint32_t detect_cpu_isas() {
  uint32_t isas = isa_bit(static_cast<int>(Isa::kScalar));
#if defined(__x86_64__) || defined(_M_X64)
  if (!cpuinfo_initialize()) return isas;  // unknown CPU: the scalar reference always works
  const bool avx2 = cpuinfo_has_x86_avx2() && cpuinfo_has_x86_fma3() && cpuinfo_has_x86_f16c();
  if (avx2) isas |= isa_bit(static_cast<int>(Isa::kAvx2));
  if (avx2 && cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() &&
      cpuinfo_has_x86_avx512vl() && cpuinfo_has_x86_avx512vnni()) {
    isas |= isa_bit(static_cast<int>(Isa::kAvx512Vnni));
    if (cpuinfo_has_x86_avx512bf16()) isas |= isa_bit(static_cast<int>(Isa::kAvx512Bf16));
  }
#elif defined(__aarch64__)
  isas |= isa_bit(static_cast<int>(Isa::kNeon));
#if defined(__linux__)
  // Bit values from the Linux uapi <asm/hwcap.h>, spelled out for older C libraries.
  constexpr unsigned long kHwcapAsimdDp = 1ul << 20;
  constexpr unsigned long kHwcap2I8mm = 1ul << 13;
  constexpr unsigned long kHwcap2Bf16 = 1ul << 14;
  const unsigned long hwcap = getauxval(AT_HWCAP);
  const unsigned long hwcap2 = getauxval(AT_HWCAP2);
  const bool dot = (hwcap & kHwcapAsimdDp) != 0;
  if (dot) isas |= isa_bit(static_cast<int>(Isa::kNeonDotprod));
  // The i8mm table inherits the dotprod table (its parent) for what it does not implement, so it
  // requires both.
  const bool i8mm = dot && (hwcap2 & kHwcap2I8mm) != 0;
  if (i8mm) isas |= isa_bit(static_cast<int>(Isa::kNeonI8mm));
  if (i8mm && (hwcap2 & kHwcap2Bf16) != 0) isas |= isa_bit(static_cast<int>(Isa::kNeonBf16));
#endif
#elif defined(__arm__)
#if defined(__linux__)
  constexpr unsigned long kHwcapArmNeon = 1ul << 12;
  if ((getauxval(AT_HWCAP) & kHwcapArmNeon) != 0) isas |= isa_bit(static_cast<int>(Isa::kNeonArmv7));
#elif defined(__ARM_NEON)
  isas |= isa_bit(static_cast<int>(Isa::kNeonArmv7));  // built for NEON: trust the build flags
#endif
#endif
  return isas;
}

}  // namespace heed::kernels
