// Dispatch: which table best() returns, with and without a HEED_ISA cap. ctest runs the
// [dispatch] cases again under several HEED_ISA values (tests/kernels/CMakeLists.txt).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

#include "kernel_test_util.h"

using namespace heed::kernels;

namespace {
bool is_ancestor_or_self(Isa a, Isa of) {
  // The fallback chains of dispatch.cpp, restated: amx > avx512bf16 > avx512vnni > avx2;
  // bf16 > i8mm > dotprod > neon.
  for (;;) {
    if (a == of) return true;
    switch (of) {
      case Isa::kAmx: of = Isa::kAvx512Bf16; break;
      case Isa::kAvx512Bf16: of = Isa::kAvx512Vnni; break;
      case Isa::kAvx512Vnni: of = Isa::kAvx2; break;
      case Isa::kNeonBf16: of = Isa::kNeonI8mm; break;
      case Isa::kNeonI8mm: of = Isa::kNeonDotprod; break;
      case Isa::kNeonDotprod: of = Isa::kNeon; break;
      case Isa::kScalar: return false;
      default: of = Isa::kScalar; break;
    }
  }
}
}  // namespace

TEST_CASE("every available table is complete and names its ISA", "[dispatch]") {
  for (int i = 0; i < static_cast<int>(Isa::kCount); ++i) {
    const KernelTable* t = for_isa(static_cast<Isa>(i));
    if (i == 0) REQUIRE(t != nullptr);  // the reference is always there
    if (t == nullptr) continue;
    CHECK(t->isa == static_cast<Isa>(i));
    CHECK(std::string(isa_name(t->isa)) != "unknown");
    // Every slot of the reference's list (the list of all slots) is filled in every table.
#define HEED_SLOT(name) CHECK(t->name != nullptr);
#include "internal/slots_ref.inc"
#undef HEED_SLOT
    // Linear cuts N between threads at multiples of it: whole 16-row blocks of the packed layout.
    CHECK(t->gemm_i8_packed_n_step >= 16);
    CHECK(t->gemm_i8_packed_n_step % 16 == 0);
  }
  CHECK(for_isa(Isa::kCount) == nullptr);
  CHECK(for_isa(static_cast<Isa>(-1)) == nullptr);
  CHECK(reference().isa == Isa::kScalar);
  CHECK(reference().gemm_i8 == for_isa(Isa::kScalar)->gemm_i8);
}

TEST_CASE("best() is the most capable available table, capped by HEED_ISA", "[dispatch]") {
  const Isa chosen = best().isa;
  REQUIRE(for_isa(chosen) != nullptr);
  CHECK(&best() == for_isa(chosen));
  heed::kernels::test::simd_variants();  // prints what this CPU offers

  const char* env = std::getenv("HEED_ISA");
  Isa cap = Isa::kCount;
  if (env != nullptr) {
    for (int i = 0; i < static_cast<int>(Isa::kCount); ++i)
      if (std::strcmp(env, isa_name(static_cast<Isa>(i))) == 0) cap = static_cast<Isa>(i);
  }
  INFO("HEED_ISA=" << (env ? env : "(unset)") << " chose " << isa_name(chosen));
  if (cap == Isa::kCount) {
    // Unset or unknown (ignored): nothing available may beat the choice.
    if (for_isa(Isa::kAmx)) CHECK(chosen == Isa::kAmx);
    else if (for_isa(Isa::kAvx512Bf16)) CHECK(chosen == Isa::kAvx512Bf16);
    else if (for_isa(Isa::kAvx512Vnni)) CHECK(chosen == Isa::kAvx512Vnni);
    else if (for_isa(Isa::kAvx2)) CHECK(chosen == Isa::kAvx2);
    else if (for_isa(Isa::kNeonBf16)) CHECK(chosen == Isa::kNeonBf16);
    else if (for_isa(Isa::kNeonI8mm)) CHECK(chosen == Isa::kNeonI8mm);
    else if (for_isa(Isa::kNeonDotprod)) CHECK(chosen == Isa::kNeonDotprod);
    else if (for_isa(Isa::kNeon)) CHECK(chosen == Isa::kNeon);
    else if (for_isa(Isa::kNeonArmv7)) CHECK(chosen == Isa::kNeonArmv7);
    else CHECK(chosen == Isa::kScalar);
  } else {
    // The cap or the closest available ancestor of it.
    CHECK(is_ancestor_or_self(chosen, cap));
    if (for_isa(cap) != nullptr) CHECK(chosen == cap);
  }
}

TEST_CASE("each ARM table carries its own GEMM kernels, and i8mm and bf16 only where the CPU has them",
          "[dispatch]") {
  const KernelTable* neon = for_isa(Isa::kNeon);
  const KernelTable* dot = for_isa(Isa::kNeonDotprod);
  const KernelTable* mm = for_isa(Isa::kNeonI8mm);
  const KernelTable* bf16 = for_isa(Isa::kNeonBf16);
  // The chain needs its parents: no bf16 without i8mm, no i8mm without dotprod, no dotprod without NEON.
  if (bf16 != nullptr) REQUIRE(mm != nullptr);
  if (mm != nullptr) REQUIRE(dot != nullptr);
  if (dot != nullptr) REQUIRE(neon != nullptr);
  // A table whose variant has its own kernel for a slot must not fall back to the parent's:
  // dotprod's gemm_i8 / gemm_i8_packed are SDOT, i8mm's are SMMLA (not the dotprod code).
  if (dot != nullptr) {
    CHECK(dot->gemm_i8 != neon->gemm_i8);
    CHECK(dot->gemm_i8_packed != neon->gemm_i8_packed);
  }
  if (mm != nullptr) {
    CHECK(mm->gemm_i8 != dot->gemm_i8);
    CHECK(mm->gemm_i8_packed != dot->gemm_i8_packed);
  }
  if (bf16 != nullptr) CHECK(bf16->attention != mm->attention);  // BFDOT, not NEON's FMLA
#if defined(__aarch64__) && defined(__linux__)
  // The CPU's own report (qemu fills it from the -cpu model): -cpu max has I8MM, cortex-a76 has
  // dotprod only and cortex-a72 neither, so SMMLA is never reached where it would be SIGILL.
  const unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
  const bool has_dot = (hwcap & (1ul << 20)) != 0;     // HWCAP_ASIMDDP
  const bool has_i8mm = (hwcap2 & (1ul << 13)) != 0;  // HWCAP2_I8MM
  const bool has_bf16 = (hwcap2 & (1ul << 14)) != 0;  // HWCAP2_BF16
  INFO("HWCAP asimddp " << has_dot << " HWCAP2 i8mm " << has_i8mm << " bf16 " << has_bf16);
  CHECK((dot != nullptr) == has_dot);
  CHECK((mm != nullptr) == (has_dot && has_i8mm));
  CHECK((bf16 != nullptr) == (has_dot && has_i8mm && has_bf16));
#endif
}
