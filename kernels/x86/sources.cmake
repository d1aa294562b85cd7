# x86-64 variants, grouped by the flags they need (see kernels/CMakeLists.txt).
set(HEED_KERNEL_AVX2_SOURCES
  x86/f16_convert_avx2.cpp
  x86/gemm_f16_avx2.cpp
  x86/gemm_f32_avx2.cpp
  x86/gemm_i8_avx2.cpp
  x86/layer_norm_avx2.cpp
  x86/log_softmax_avx2.cpp
  x86/quantize_rows_i8_avx2.cpp
  x86/rms_norm_avx2.cpp
  x86/softmax_avx2.cpp
  x86/vector_ops_avx2.cpp
)
set(HEED_KERNEL_AVX512VNNI_SOURCES
  x86/gemm_i8_avx512vnni.cpp
)
