// The baseline aarch64 NEON variant's slots (the rest stay the reference's).
#include "internal/rnn_cell_variants.h"
#include "internal/variants.h"

namespace heed::kernels {

void fill_neon(KernelTable& t) {
  t.quantize_rows_i8 = neon::quantize_rows_i8;
  t.gemm_i8 = neon::gemm_i8;
  t.gemm_i8_packed = neon::gemm_i8_packed;
  t.gemm_f32 = neon::gemm_f32;
  t.layer_norm = neon::layer_norm;
  t.rms_norm = neon::rms_norm;
  t.softmax = neon::softmax;
  t.log_softmax = neon::log_softmax;
  t.add = neon::add;
  t.dot_f32 = neon::dot_f32;
  t.axpy_f32 = neon::axpy_f32;
  t.f16_to_f32 = neon::f16_to_f32;
  t.f32_to_f16 = neon::f32_to_f16;
  t.gemm_f16 = neon::gemm_f16;
  t.activate = neon::activate;
  t.attention = neon::attention;
  // RNN cells
  t.tanh_f32 = neon::tanh_f32;
  t.lstm_cell = neon::lstm_cell;
  t.gru_cell = neon::gru_cell;
}

}  // namespace heed::kernels
