// The constants of the x86 vector exp and GELU-tanh (avx2_math.h, simd_math.h and their
// AVX-512 forms in avx512_math.h), written once so the two widths compute the same functions.
#pragma once

namespace heed::kernels::x86 {

// exp(x) = 2^n e^r, n = round(x log2 e), r = x - n ln2 with ln2 split in two (kLn2Hi is exact in
// few bits, so n * kLn2Hi has no rounding error); e^r = 1 + r + r^2 P(r), P of degree 5 below
// (highest power first). Below kExpLo the result would be subnormal and is flushed to 0; above
// kExpHi it is +inf.
inline constexpr float kExpLo = -87.33654f, kExpHi = 88.72283f;
inline constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
inline constexpr float kExpPoly[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                     4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};

inline constexpr float kGeluTanhScale = 0.79788456080286536f;      // sqrt(2 / pi)
inline constexpr float kGeluTanhCubic = 0.044715f;

}  // namespace heed::kernels::x86
