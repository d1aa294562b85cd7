# Raspberry Pi 2/3/4 with a 32-bit OS (Raspberry Pi OS armhf). Debian's armhf default has no
# NEON, so NEON is switched on here: every Pi since the Pi 2 has it.
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(HEED_TRIPLE arm-linux-gnueabihf)
set(HEED_DEB_ARCH armhf)
set(HEED_QEMU qemu-arm)
set(CMAKE_C_FLAGS_INIT "-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard")
# -Wno-psabi: GCC notes on every std::map/sort instantiation that GCC 7.1 changed how such
# arguments are passed; heed links no code built by GCC < 7, so the notes only bury real warnings.
set(CMAKE_CXX_FLAGS_INIT "-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard -Wno-psabi")
include(${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake)
