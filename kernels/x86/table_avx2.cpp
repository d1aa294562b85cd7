// The AVX2 variant's slots of the kernel table (the rest stay the reference's).
#include "internal/rnn_cell_variants.h"
#include "internal/variants.h"

namespace heed::kernels {

void fill_avx2(KernelTable& t) {
  t.quantize_rows_i8 = avx2::quantize_rows_i8;
  t.gemm_i8 = avx2::gemm_i8;
  t.gemm_i8_packed = avx2::gemm_i8_packed;
  t.gemm_f32 = avx2::gemm_f32;
  t.gemm_f16 = avx2::gemm_f16;
  t.layer_norm = avx2::layer_norm;
  t.rms_norm = avx2::rms_norm;
  t.softmax = avx2::softmax;
  t.log_softmax = avx2::log_softmax;
  t.add = avx2::add;
  t.dot_f32 = avx2::dot_f32;
  t.axpy_f32 = avx2::axpy_f32;
  t.f16_to_f32 = avx2::f16_to_f32;
  t.f32_to_f16 = avx2::f32_to_f16;
  t.activate = avx2::activate;
  t.attention = avx2::attention;
  // RNN cells
  t.tanh_f32 = avx2::tanh_f32;
  t.lstm_cell = avx2::lstm_cell;
  t.gru_cell = avx2::gru_cell;
}

}  // namespace heed::kernels
