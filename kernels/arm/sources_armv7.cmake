# 32-bit ARM NEON variants (the toolchain file already passes -mfpu=neon-vfpv4).
set(HEED_KERNEL_ARMV7_SOURCES
  arm/attention_armv7.cpp
  arm/gemm_f32_armv7.cpp
  arm/gemm_i8_armv7.cpp
  arm/gemm_i8_packed_armv7.cpp
  arm/layer_norm_armv7.cpp
  arm/quantize_rows_i8_armv7.cpp
  arm/rnn_cell_armv7.cpp
  arm/softmax_armv7.cpp
  arm/vector_ops_armv7.cpp
)
