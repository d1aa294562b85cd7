# 32-bit ARM NEON variants (the toolchain file already passes -mfpu=neon-vfpv4). The *_neon.cpp
# sources are shared with aarch64 through arm/neon_shim.h.
set(HEED_KERNEL_ARMV7_SOURCES
  arm/attention_neon.cpp
  arm/gemm_f32_neon.cpp
  arm/gemm_i8_neon.cpp
  arm/gemm_i8_packed_armv7.cpp
  arm/layer_norm_neon.cpp
  arm/quantize_rows_i8_armv7.cpp
  arm/rnn_cell_neon.cpp
  arm/softmax_armv7.cpp
  arm/vector_ops_neon.cpp
)
