// GELU(x) = x Phi(x) = x (1/2 + erf(x / sqrt 2) / 2) for the vector kernels of every ISA
// (x86/simd_math.h, arm/neon_activation_math.h): one rational
// function and no exp. With c = clamp(x, -kGeluClamp, kGeluClamp) and s = c^2,
//   erf(c / sqrt 2) / 2 ~= c P(s) / Q(s),   GELU(x) = x (1/2 + c P(s) / Q(s)).
// P (degree 5) and Q (degree 5, Q(0) = 1, positive on the range) are a minimax fit of
// |c P/Q - erf(c / sqrt 2) / 2| over [0, kGeluClamp] (Lawson's reweighted least squares in
// double): 7.2e-9 in double, about 1.2e-7 as float32 evaluates it with FMA. Past the clamp
// erf(c / sqrt 2) differs from 1 by less than 4e-8. The error is absolute in the factor, so for
// large negative x (where 1/2 + erf/2 cancels) it is at most about 2e-7 |x|, as the reference's
// own float rounding allows (tests/kernels: 2e-6 relative with a 2e-7 |x| floor).
// Coefficients from the highest power down (Horner order).
#pragma once

namespace heed::kernels {

inline constexpr float kGeluClamp = 5.5f;
inline constexpr float kGeluNumerator[] = {2.274911282e-08f, 6.352170203e-06f, 1.688309567e-04f,
                                           4.677292891e-03f, 3.385314718e-02f, 3.989422321e-01f};
inline constexpr float kGeluDenominator[] = {1.197500410e-06f, 7.364928024e-05f, 1.884474652e-03f,
                                             2.864616178e-02f, 2.515231669e-01f, 1.0f};

}  // namespace heed::kernels
