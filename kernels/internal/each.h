// HEED_EACH(j, N): a loop over N register-held items, fully unrolled, for steps of a function of N
// independent vectors (each statement written once for all N) and for the rows and columns of
// register tiles. Stepping N vectors together gives the core N independent chains in flight: a
// long dependent chain such as exp or GELU, one vector at a time, fills the FP scheduler with
// waiting instructions long before the next vector's start (on an AMD EPYC, AVX2 GELU ran 1.4x
// faster with 4 vectors stepped together).
#pragma once

#include <cstddef>

#define HEED_EACH(j, N) _Pragma("GCC unroll 16") for (size_t j = 0; j < (N); ++j)
