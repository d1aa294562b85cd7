// What this CPU can run, as a bit set over Isa (bit i = Isa(i)). Detection only; whether this
// build contains a variant is dispatch.cpp's business.
#pragma once

#include <cstdint>

namespace heed::kernels {

uint32_t detect_cpu_isas();

constexpr uint32_t isa_bit(int isa) { return 1u << isa; }

}  // namespace heed::kernels
