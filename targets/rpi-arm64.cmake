# Raspberry Pi 3/4/5 (and any aarch64 Linux) with a 64-bit OS.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(HEED_TRIPLE aarch64-linux-gnu)
set(HEED_DEB_ARCH arm64)
set(HEED_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake)
