// Pieces of the aarch64 micro-kernels written in inline assembly (gemm_i8_packed_neon.cpp,
// gemm_i8_packed_neondot.cpp). Those keep a tile's 16 accumulators in v16-v31 for the whole of K:
// the compiler spills arrays of 16 accumulators to the stack in these loops (a load and a store
// per accumulator and step), so the loops are written out, register by register.
#pragma once

#define HEED_ASM_ZERO_V16_V31                                                      \
  "movi v16.16b, #0\n movi v17.16b, #0\n movi v18.16b, #0\n movi v19.16b, #0\n" \
  "movi v20.16b, #0\n movi v21.16b, #0\n movi v22.16b, #0\n movi v23.16b, #0\n" \
  "movi v24.16b, #0\n movi v25.16b, #0\n movi v26.16b, #0\n movi v27.16b, #0\n" \
  "movi v28.16b, #0\n movi v29.16b, #0\n movi v30.16b, #0\n movi v31.16b, #0\n"

// Every vector register, the flags and memory (the kernels read and write through pointers).
#define HEED_ASM_CLOBBERS_ALL_V                                                                           \
  "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", \
      "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27",   \
      "v28", "v29", "v30", "v31"
