# aarch64 variants, grouped by the flags they need (see kernels/CMakeLists.txt). Baseline NEON
# needs no flag: Advanced SIMD is part of every ARMv8-A CPU.
set(HEED_KERNEL_NEON_SOURCES
  arm/activation_neon.cpp
  arm/attention_neon.cpp
  arm/f16_convert_neon.cpp
  arm/gemm_f16_neon.cpp
  arm/gemm_f32_neon.cpp
  arm/gemm_i8_neon.cpp
  arm/gemm_i8_packed_neon.cpp
  arm/layer_norm_neon.cpp
  arm/log_softmax_neon.cpp
  arm/quantize_rows_i8_neon.cpp
  arm/rms_norm_neon.cpp
  arm/rnn_cell_neon.cpp
  arm/softmax_neon.cpp
  arm/vector_ops_neon.cpp
)
set(HEED_KERNEL_NEONDOT_SOURCES
  arm/gemm_i8_neondot.cpp
  arm/gemm_i8_packed_neondot.cpp
)
set(HEED_KERNEL_I8MM_SOURCES
  arm/gemm_i8_i8mm.cpp
  arm/gemm_i8_packed_i8mm.cpp
)
