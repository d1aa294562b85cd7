// Dispatch: which table best() returns, with and without a HEED_ISA cap. ctest runs the
// [dispatch] cases again under several HEED_ISA values (tests/kernels/CMakeLists.txt).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

#include "kernel_test_util.h"

using namespace heed::kernels;

namespace {
bool is_ancestor_or_self(Isa a, Isa of) {
  // The fallback chains of dispatch.cpp, restated: avx512vnni > avx2; i8mm > dotprod > neon.
  for (;;) {
    if (a == of) return true;
    switch (of) {
      case Isa::kAvx512Vnni: of = Isa::kAvx2; break;
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
    CHECK(t->quantize_rows_i8);
    CHECK(t->gemm_i8);
    CHECK(t->gemm_f32);
    CHECK(t->gemm_f16);
    CHECK(t->layer_norm);
    CHECK(t->rms_norm);
    CHECK(t->softmax);
    CHECK(t->log_softmax);
    CHECK(t->activate);
    CHECK(t->add);
    CHECK(t->dot_f32);
    CHECK(t->axpy_f32);
    CHECK(t->f16_to_f32);
    CHECK(t->f32_to_f16);
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
    if (for_isa(Isa::kAvx512Vnni)) CHECK(chosen == Isa::kAvx512Vnni);
    else if (for_isa(Isa::kAvx2)) CHECK(chosen == Isa::kAvx2);
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
