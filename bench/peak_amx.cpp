// TDPBSSD throughput: four independent 16 x 16 int32 accumulator tiles fed by two A and two B
// tiles loaded once, so the loop is bound by how many tile multiplies the core issues, not by
// their latency or by memory. Needs the tile state granted (dispatch asks for it before it lists
// the amx table, which is the only caller's condition).
#include <immintrin.h>

#include <cstring>

#include "bench_machine.h"
#include "internal/amx_tiles.h"

namespace heed::bench {

int64_t peak_loop_amx_tdpbssd(int64_t iters, int64_t* macs_per_iter) {
  *macs_per_iter = 4 * 16 * 16 * 64;
  alignas(64) int8_t ones[16 * 64];
  std::memset(ones, 1, sizeof(ones));
  alignas(64) int32_t out[16 * 16];
  kernels::amx_configure_16x64();
  _tile_loadd(4, ones, 64);
  _tile_loadd(5, ones, 64);
  _tile_loadd(6, ones, 64);
  _tile_loadd(7, ones, 64);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (int64_t i = 0; i < iters; ++i) {
    _tile_dpbssd(0, 4, 6);
    _tile_dpbssd(1, 4, 7);
    _tile_dpbssd(2, 5, 6);
    _tile_dpbssd(3, 5, 7);
  }
  _tile_stored(0, out, 64);
  _tile_release();
  return out[0];
}

}  // namespace heed::bench
