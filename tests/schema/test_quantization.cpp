// What an int8 tensor's quantization means (heed_format/quantization.h) and where the 16x4 packed
// layout puts a byte (heed/kernels.h), checked against values worked out by hand and against the
// reference packer.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "heed/kernels.h"
#include "heed_format/quantization.h"

using heed::fb::Quantization;
namespace format = heed::format;

TEST_CASE("scale counts and groups per row", "[format]") {
  CHECK(format::scale_count(Quantization::PerTensor, 7, 10, 0) == 1);
  CHECK(format::scale_count(Quantization::PerRow, 7, 10, 0) == 7);
  CHECK(format::scale_count(Quantization::PerGroup, 7, 10, 4) == 21);  // groups of 4, 4, 2
  CHECK(format::scale_count(Quantization::PerGroup, 7, 12, 4) == 21);
  CHECK(format::scale_count(Quantization::PerGroup, 7, 10, 0) == 0);   // meaningless
  CHECK(format::scale_count(Quantization::None, 7, 10, 0) == 0);
  // 64-bit: the largest shapes a file can declare do not wrap.
  CHECK(format::scale_count(Quantization::PerGroup, 0xFFFFFFFFu, 0xFFFFFFFFu, 1) == 0xFFFFFFFFull * 0xFFFFFFFFull);
  CHECK(format::groups_per_row(Quantization::PerRow, 10, 0) == 1);
  CHECK(format::groups_per_row(Quantization::PerGroup, 10, 4) == 3);
}

TEST_CASE("the scale of each element", "[format]") {
  CHECK(format::scale_index(Quantization::PerTensor, 5, 9, 1, 0) == 0);
  CHECK(format::scale_index(Quantization::PerRow, 5, 9, 1, 0) == 5);
  // Row 5 of rows with 3 groups of 4: column 9 is in its third group.
  CHECK(format::scale_index(Quantization::PerGroup, 5, 9, 3, 4) == 17);
}

TEST_CASE("packed 16x4 addresses, worked out by hand", "[format]") {
  // K = 5 rounds up to 8: two 64-byte units per block of 16 rows.
  CHECK(heed::kernels::packed_i8_16x4_index(0, 0, 5) == 0);
  CHECK(heed::kernels::packed_i8_16x4_index(1, 2, 5) == 6);      // lane 1, byte 2 of unit 0
  CHECK(heed::kernels::packed_i8_16x4_index(0, 4, 5) == 64);     // unit 1 of block 0
  CHECK(heed::kernels::packed_i8_16x4_index(16, 4, 5) == 192);   // unit 1 of block 1
  CHECK(heed::kernels::packed_i8_16x4_index(31, 3, 5) == 191);   // block 1 (128) + lane 15 (60) + byte 3
  CHECK(heed::kernels::packed_i8_16x4_block(16, 5) == 128);
  CHECK(heed::kernels::packed_i8_16x4_bytes(17, 5) == 256);
}

TEST_CASE("packed 16x4 addresses match the reference packer", "[format]") {
  for (size_t n : {1, 15, 16, 17, 33}) {
    for (size_t k : {1, 3, 4, 5, 9}) {
      std::vector<int8_t> b(n * k);
      for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int8_t>(i % 251 - 125);
      std::vector<int8_t> packed(heed::kernels::packed_i8_16x4_bytes(n, k));
      std::vector<int32_t> sums((n + 15) / 16 * 16);
      heed::kernels::pack_i8_16x4(b.data(), n, k, k, packed.data(), sums.data());
      for (size_t r = 0; r < n; ++r) {
        for (size_t c = 0; c < k; ++c) REQUIRE(packed[heed::kernels::packed_i8_16x4_index(r, c, k)] == b[r * k + c]);
      }
      // Blocks of 16 rows hold round_up(k, 4) bytes per row.
      CHECK(heed::kernels::packed_i8_16x4_block(16, k) == 16 * ((k + 3) / 4 * 4));
      CHECK(heed::kernels::packed_i8_16x4_block(32, k) == 32 * ((k + 3) / 4 * 4));
    }
  }
}
