// gemm_i8_packed for AVX2. A 64-byte unit of the 16x4 layout is two ymm of 8 weight rows x 4 k.
// VPMADDUBSW multiplies unsigned by signed bytes, so, as in the row-major gemm_i8_avx2.cpp, A is
// fed as |a| and the weights take a's sign (VPSIGNB): |a| * (sign(a) * b) = a * b, and a pair of
// products (<= 2 * 128 * 127) never saturates the int16 lanes. VPMADDWD by ones then adds the
// pairs into one exact int32 per weight row, so every accumulator lane is one output. (The
// a + 128 shift of the VNNI kernel would overflow here: 2 * 255 * 127 > 32767.) The sign trick
// negates B, so -128 in B is outside this variant's range, as for the row-major AVX2 kernel.
//
// Tile: 4 rows of A x 16 weight rows (8 accumulators); M = 1 takes 2 blocks (32 weight rows:
// 4 accumulators would do for latency, 2 streams measured as fast as 4 at K = 512 and faster at 2048).
#include <immintrin.h>

#include <cstring>

#include "internal/gemm_i8_packed_driver.h"

namespace heed::kernels::avx2 {

namespace {

template <size_t R, size_t NB>
struct Kernel {
  static void run(const int8_t* a, size_t lda, const int8_t* b, size_t block_bytes, size_t groups,
                  int32_t* out, size_t ldo) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc[R][NB][2];
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < NB; ++c) acc[r][c][0] = acc[r][c][1] = _mm256_setzero_si256();
    for (size_t g = 0; g < groups; ++g) {
      __m256i w[NB][2];
      for (size_t c = 0; c < NB; ++c)
        for (size_t h = 0; h < 2; ++h)
          w[c][h] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + c * block_bytes + g * 64 + 32 * h));
      for (size_t r = 0; r < R; ++r) {
        int32_t four, four_abs;
        std::memcpy(&four, a + r * lda + 4 * g, 4);
        std::memcpy(&four_abs, a + r * lda + lda / 2 + 4 * g, 4);
        const __m256i va = _mm256_set1_epi32(four), abs_a = _mm256_set1_epi32(four_abs);
        for (size_t c = 0; c < NB; ++c)
          for (size_t h = 0; h < 2; ++h) {
            const __m256i prod16 = _mm256_maddubs_epi16(abs_a, _mm256_sign_epi8(w[c][h], va));
            acc[r][c][h] = _mm256_add_epi32(acc[r][c][h], _mm256_madd_epi16(prod16, ones));
          }
      }
    }
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < NB; ++c)
        for (size_t h = 0; h < 2; ++h)
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + r * ldo + 16 * c + 8 * h), acc[r][c][h]);
  }
};

}  // namespace

// |a| comes precomputed from the driver's chunk (kAbsCopy): two broadcasts from memory (load-port
// operations) per row and group instead of one broadcast and a VPABSB on the vector ALUs.
void gemm_i8_packed(const GemmI8PackedParams& p) { gemm_i8_packed_blocked<Kernel, 4, 1, 2, true>(p); }

}  // namespace heed::kernels::avx2
