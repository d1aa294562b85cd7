#include "kernel_test_util.h"

#include <cmath>
#include <cstdio>

namespace heed::kernels::test {

std::mt19937& rng() {
  static std::mt19937 gen(20240611u);
  return gen;
}

std::vector<int8_t> random_i8(size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(rng()));
  return v;
}

std::vector<float> random_f32(size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng());
  return v;
}

std::vector<const KernelTable*> simd_variants() {
  static const std::vector<const KernelTable*> variants = [] {
    std::vector<const KernelTable*> out;
    std::string ran, skipped;
    for (int i = 1; i < static_cast<int>(Isa::kCount); ++i) {
      const KernelTable* t = for_isa(static_cast<Isa>(i));
      const char* name = isa_name(static_cast<Isa>(i));
      if (t != nullptr) {
        out.push_back(t);
        ran += std::string(" ") + name;
      } else {
        skipped += std::string(" ") + name;
      }
    }
    std::printf("kernel variants tested against the reference:%s (not available here:%s); best=%s\n",
                ran.empty() ? " none" : ran.c_str(), skipped.empty() ? " none" : skipped.c_str(),
                isa_name(best().isa));
    std::fflush(stdout);
    return out;
  }();
  return variants;
}

bool close(double got, double want, double scale, double rel, double abs_floor) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= rel * std::fabs(scale) + abs_floor;
}

}  // namespace heed::kernels::test
