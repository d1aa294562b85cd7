// IEEE binary16 <-> binary32 by bit manipulation, so the result does not depend on the compiler
// or the CPU having half-precision support. f32 -> f16 rounds to nearest, ties to even.
#include <cmath>
#include <cstring>

#include "internal/variants.h"

namespace heed::kernels::ref {

namespace {
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint16_t f32_to_f16_bits(float f) {
  const uint32_t u = bits_of(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf stays inf; NaN stays a (quiet) NaN
    return abs == 0x7f800000u ? uint16_t(sign | 0x7c00u)
                              : uint16_t(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  }
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (abs < 0x38800000u) {
    // Below the smallest normal half (2^-14): count units of 2^-24. The scaling is exact and
    // nearbyint rounds ties to even in the default rounding mode.
    const float units = std::nearbyint(float_of(abs) * 16777216.0f);
    return uint16_t(sign | static_cast<uint16_t>(units));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits. A carry out
  // of the mantissa correctly bumps the exponent.
  uint32_t h = (abs - (112u << 23)) >> 13;
  const uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return uint16_t(sign | h);
}
}  // namespace

float f16_bits_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in float
    const float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  if (exp == 31) return float_of(sign | 0x7f800000u | (mant << 13));
  return float_of(sign | ((exp + 112u) << 23) | (mant << 13));
}

void f16_to_f32(const uint16_t* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = f16_bits_to_f32(x[i]);
}

void f32_to_f16(const float* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = f32_to_f16_bits(x[i]);
}

}  // namespace heed::kernels::ref

namespace heed::kernels {

float f16_to_f32_value(uint16_t h) { return ref::f16_bits_to_f32(h); }
uint16_t f32_to_f16_value(float x) { return ref::f32_to_f16_bits(x); }

}  // namespace heed::kernels
