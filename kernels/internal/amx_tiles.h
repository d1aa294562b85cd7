// The AMX tile configuration heed uses (x86/gemm_i8_packed_amx.cpp, bench/peak_amx.cpp): palette 1,
// tiles 0-7 of 16 rows x 64 bytes. Include only from files compiled with -mamx-tile; `static
// inline` for the reason internal/gemm_epilogue.h gives.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace heed::kernels {

// LDTILECFG's 64-byte operand.
struct alignas(64) AmxTileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// Tiles 0-7: 16 rows of 64 bytes (as int32 sums: 16 x 16). For this thread, until TILERELEASE.
static inline void amx_configure_16x64() {
  AmxTileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
}

}  // namespace heed::kernels
