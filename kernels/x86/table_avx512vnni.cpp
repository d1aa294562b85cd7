// The AVX-512 VNNI variant's slots; everything else comes from the AVX2 table.
#include "internal/variants.h"

namespace heed::kernels {

void fill_avx512vnni(KernelTable& t) {
  t.gemm_i8 = avx512vnni::gemm_i8;
  t.gemm_i8_packed = avx512vnni::gemm_i8_packed;
}

}  // namespace heed::kernels
