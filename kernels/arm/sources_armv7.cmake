# 32-bit ARM NEON variants (the toolchain file already passes -mfpu=neon-vfpv4).
set(HEED_KERNEL_ARMV7_SOURCES
  arm/gemm_i8_armv7.cpp
  arm/quantize_rows_i8_armv7.cpp
)
