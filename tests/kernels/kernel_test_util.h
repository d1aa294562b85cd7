// Shared helpers for the kernel tests: seeded random data, tolerance checks, and the list of
// variants this CPU can run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "heed/kernels.h"

namespace heed::kernels::test {

// Fixed-seed generator so failures reproduce.
std::mt19937& rng();
std::vector<int8_t> random_i8(size_t n, int lo = -127, int hi = 127);
std::vector<float> random_f32(size_t n, float lo = -1.0f, float hi = 1.0f);

// Every non-scalar table this build and CPU provide (printed once, so logs show what ran).
std::vector<const KernelTable*> simd_variants();

// |got - want| <= rel * scale + abs_floor, where scale is a magnitude the error is relative to.
bool close(double got, double want, double scale, double rel = 1e-5, double abs_floor = 1e-30);

}  // namespace heed::kernels::test
