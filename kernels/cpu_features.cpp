// CPU feature detection for dispatch.
//
// x86-64: cpuinfo (it also checks that the OS saves the AVX/AVX-512 registers, via XGETBV);
// AMX by hand (amx_usable below).
// ARM Linux: getauxval(AT_HWCAP / AT_HWCAP2) is the source of truth. The kernel fills these from
// the CPU's ID registers, qemu-user fills them from the emulated CPU model (so -cpu cortex-a72
// correctly reports no dotprod), and the cpuinfo release heed builds against has no i8mm query at
// all. aarch64 always has NEON (Advanced SIMD is mandatory in ARMv8-A), so kNeon needs no check.
#include "internal/cpu_features.h"

#include "heed/kernels.h"

#include <thread>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#include <cpuinfo.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
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

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__linux__)
namespace {

// AMX: the CPU has AMX-TILE and AMX-INT8 (CPUID leaf 7, EDX bits 24 and 25; the cpuinfo release
// heed builds against has no AMX query), the OS saves the tile state (XCR0 bits 17 and 18), and
// Linux grants this process the tile data (arch_prctl ARCH_REQ_XCOMP_PERM; without the grant the
// first tile instruction kills the process). The grant is for the whole process, asked once here
// before any kernel runs.
bool amx_usable() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  constexpr unsigned kAmxTile = 1u << 24, kAmxInt8 = 1u << 25;
  if ((edx & kAmxTile) == 0 || (edx & kAmxInt8) == 0) return false;
  unsigned xcr0 = 0, xcr0_high = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
  constexpr unsigned kTileState = 3u << 17;  // XTILECFG and XTILEDATA
  if ((xcr0 & kTileState) != kTileState) return false;
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtileData = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtileData) == 0;
}

}  // namespace
#endif

uint32_t detect_cpu_isas() {
  uint32_t isas = isa_bit(static_cast<int>(Isa::kScalar));
#if defined(__x86_64__) || defined(_M_X64)
  if (!cpuinfo_initialize()) return isas;  // unknown CPU: the scalar reference always works
  const bool avx2 = cpuinfo_has_x86_avx2() && cpuinfo_has_x86_fma3() && cpuinfo_has_x86_f16c();
  if (avx2) isas |= isa_bit(static_cast<int>(Isa::kAvx2));
  if (avx2 && cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() &&
      cpuinfo_has_x86_avx512vl() && cpuinfo_has_x86_avx512vnni()) {
    isas |= isa_bit(static_cast<int>(Isa::kAvx512Vnni));
    if (cpuinfo_has_x86_avx512bf16()) {
      isas |= isa_bit(static_cast<int>(Isa::kAvx512Bf16));
#if defined(__linux__)
      if (amx_usable()) isas |= isa_bit(static_cast<int>(Isa::kAmx));
#endif
    }
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
