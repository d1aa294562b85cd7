// The 32-bit ARM NEON variant's slots (the rest stay the reference's).
#include "internal/rnn_cell_variants.h"
#include "internal/variants.h"

namespace heed::kernels {

void fill_armv7(KernelTable& t) {
  t.quantize_rows_i8 = armv7::quantize_rows_i8;
  t.gemm_i8 = armv7::gemm_i8;
  t.gemm_i8_packed = armv7::gemm_i8_packed;
  t.gemm_f32 = armv7::gemm_f32;
  t.layer_norm = armv7::layer_norm;
  t.softmax = armv7::softmax;
  t.log_softmax = armv7::log_softmax;
  t.add = armv7::add;
  t.dot_f32 = armv7::dot_f32;
  t.axpy_f32 = armv7::axpy_f32;
  t.attention = armv7::attention;
  t.tanh_f32 = armv7::tanh_f32;
  t.lstm_cell = armv7::lstm_cell;
  t.gru_cell = armv7::gru_cell;
}

}  // namespace heed::kernels
