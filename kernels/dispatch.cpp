// Builds one KernelTable per ISA and picks the best one for this CPU, once.
//
// Each ISA's table starts as a copy of its parent's (amx <- avx512bf16 <- avx512vnni <- avx2 <- scalar;
// i8mm <- dotprod <- neon <- scalar; armv7 <- scalar) and its variant overwrites the slots it
// implements, so a missing SIMD kernel falls back to the next best one, ending at the reference.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "heed/kernels.h"
#include "internal/cpu_features.h"
#include "internal/variants.h"

namespace heed::kernels {

namespace {

constexpr int kIsaCount = static_cast<int>(Isa::kCount);

Isa parent_of(Isa isa) {
  switch (isa) {
    case Isa::kNeonDotprod:
      return Isa::kNeon;
    case Isa::kNeonI8mm:
      return Isa::kNeonDotprod;
    case Isa::kNeonBf16:
      return Isa::kNeonI8mm;
    case Isa::kAvx512Vnni:
      return Isa::kAvx2;
    case Isa::kAvx512Bf16:
      return Isa::kAvx512Vnni;
    case Isa::kAmx:
      return Isa::kAvx512Bf16;
    default:
      return Isa::kScalar;
  }
}

KernelTable make_reference() {
  KernelTable t;
  t.isa = Isa::kScalar;
#define HEED_SLOT(name) t.name = ref::name;
#include "internal/slots_ref.inc"
#undef HEED_SLOT
  return t;
}

// Each variant's table fill, by ISA; null where this build has no code for it.
using FillTable = void (*)(KernelTable& t);
FillTable variant_fill(Isa isa) {
  switch (isa) {
#if defined(HEED_KERNELS_X86)
    case Isa::kAvx2: return fill_avx2;
    case Isa::kAvx512Vnni: return fill_avx512vnni;
    case Isa::kAvx512Bf16: return fill_avx512bf16;
    case Isa::kAmx: return fill_amx;
#endif
#if defined(HEED_KERNELS_AARCH64)
    case Isa::kNeon: return fill_neon;
    case Isa::kNeonDotprod: return fill_neondot;
    case Isa::kNeonI8mm: return fill_i8mm;
    case Isa::kNeonBf16: return fill_neonbf16;
#endif
#if defined(HEED_KERNELS_ARMV7)
    case Isa::kNeonArmv7: return fill_armv7;
#endif
    default: return nullptr;
  }
}

// Overwrites the slots of `isa`'s own variant; false when this build has no code for it.
bool fill_variant(Isa isa, KernelTable& t) {
  const FillTable fill = variant_fill(isa);
  if (fill != nullptr) fill(t);
  return fill != nullptr;
}

struct Tables {
  KernelTable table[kIsaCount];
  bool available[kIsaCount] = {};
  Isa best = Isa::kScalar;
};

// HEED_ISA as an Isa, or kCount when unset; an unknown name is reported once and ignored.
Isa requested_cap() {
  const char* env = std::getenv("HEED_ISA");
  if (env == nullptr || *env == '\0') return Isa::kCount;
  for (int i = 0; i < kIsaCount; ++i) {
    if (std::strcmp(env, isa_name(static_cast<Isa>(i))) == 0) return static_cast<Isa>(i);
  }
  std::fprintf(stderr,
               "heed: ignoring unknown HEED_ISA=%s (expected scalar, armv7, neon, dotprod, i8mm, bf16, "
               "avx2, avx512vnni, avx512bf16 or amx)\n",
               env);
  return Isa::kCount;
}

Tables build_tables() {
  Tables t;
  const uint32_t cpu = detect_cpu_isas();
  t.table[0] = make_reference();
  t.available[0] = true;
  // Parents have smaller enum values than their children, so one pass in enum order works.
  for (int i = 1; i < kIsaCount; ++i) {
    const Isa isa = static_cast<Isa>(i);
    KernelTable table = t.table[static_cast<int>(parent_of(isa))];
    table.isa = isa;
    const bool parent_ok = t.available[static_cast<int>(parent_of(isa))];
    if (fill_variant(isa, table) && parent_ok && (cpu & isa_bit(i)) != 0) {
      t.table[i] = table;
      t.available[i] = true;
    }
  }

  const Isa cap = requested_cap();
  if (cap == Isa::kCount) {
    // Most capable first.
    const Isa order[] = {Isa::kAmx,         Isa::kAvx512Bf16, Isa::kAvx512Vnni, Isa::kAvx2,
                         Isa::kNeonBf16,    Isa::kNeonI8mm,   Isa::kNeonDotprod, Isa::kNeon,
                         Isa::kNeonArmv7,   Isa::kScalar};
    for (Isa isa : order) {
      if (t.available[static_cast<int>(isa)]) {
        t.best = isa;
        break;
      }
    }
  } else {
    // The cap and its ancestors only: HEED_ISA=neon on a dotprod CPU runs plain NEON.
    Isa isa = cap;
    while (!t.available[static_cast<int>(isa)]) isa = parent_of(isa);
    if (isa != cap) {
      std::fprintf(stderr, "heed: HEED_ISA=%s is not available on this CPU or build; using %s\n",
                   isa_name(cap), isa_name(isa));
    }
    t.best = isa;
  }
  return t;
}

const Tables& tables() {
  static const Tables t = build_tables();  // thread-safe initialization (C++11 statics)
  return t;
}

}  // namespace

const char* isa_name(Isa isa) {
  // In the order of enum Isa; a new Isa without a name fails to compile here.
  static constexpr const char* kNames[] = {"scalar", "armv7",      "neon",       "dotprod", "i8mm",
                                           "bf16",   "avx2",       "avx512vnni", "avx512bf16", "amx"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(Isa::kCount));
  const auto i = static_cast<size_t>(isa);
  return i < static_cast<size_t>(Isa::kCount) ? kNames[i] : "unknown";
}

const KernelTable& best() {
  const Tables& t = tables();
  return t.table[static_cast<int>(t.best)];
}

const KernelTable* for_isa(Isa isa) {
  const int i = static_cast<int>(isa);
  if (i < 0 || i >= kIsaCount) return nullptr;
  const Tables& t = tables();
  return t.available[i] ? &t.table[i] : nullptr;
}

const KernelTable& reference() {
  static const KernelTable t = make_reference();
  return t;
}

}  // namespace heed::kernels
