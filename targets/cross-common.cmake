# Shared by the Raspberry Pi toolchain files: search libraries and headers only in the sysroot
# folder scripts/install-deps.sh --cross unpacks, programs (flatc) only on the build machine, and
# run cross-built tests under qemu-user. QEMU_CPU in the environment picks the emulated CPU.
set(HEED_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/../build-deps/sysroot-${HEED_DEB_ARCH}")
get_filename_component(HEED_SYSROOT "${HEED_SYSROOT}" ABSOLUTE)
if(NOT EXISTS "${HEED_SYSROOT}/usr/lib/${HEED_TRIPLE}")
  message(FATAL_ERROR "ARM sysroot missing: ${HEED_SYSROOT}. Run scripts/install-deps.sh --cross first.")
endif()

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${HEED_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${HEED_TRIPLE}-g++)
set(CMAKE_FIND_ROOT_PATH "${HEED_SYSROOT}" "/usr/${HEED_TRIPLE}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_LIBRARY_ARCHITECTURE ${HEED_TRIPLE})

set(ENV{PKG_CONFIG_LIBDIR} "${HEED_SYSROOT}/usr/lib/${HEED_TRIPLE}/pkgconfig:${HEED_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${HEED_SYSROOT}")

# The sysroot's shared libraries link against each other (XNNPACK -> cpuinfo, pthreadpool;
# minizip -> zlib, whose package puts libz.so.1 into /lib/<triple>, not /usr/lib/<triple>).
set(HEED_SYSROOT_LIBS "${HEED_SYSROOT}/usr/lib/${HEED_TRIPLE}:${HEED_SYSROOT}/lib/${HEED_TRIPLE}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${HEED_SYSROOT_LIBS}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${HEED_SYSROOT_LIBS}")

# /usr/<triple>/lib first: a glibc from another package version makes pthread_create hang.
set(CMAKE_CROSSCOMPILING_EMULATOR
    "${HEED_QEMU};-L;/usr/${HEED_TRIPLE};-E;LD_LIBRARY_PATH=/usr/${HEED_TRIPLE}/lib:${HEED_SYSROOT_LIBS}")

# Multiarch headers (OpenSSL's opensslconf.h, which cpp-httplib's header reaches) live in
# <sysroot>/usr/include/<triple>, a folder the cross compiler does not search on its own.
set(CMAKE_C_STANDARD_INCLUDE_DIRECTORIES "${HEED_SYSROOT}/usr/include/${HEED_TRIPLE}")
set(CMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES "${HEED_SYSROOT}/usr/include/${HEED_TRIPLE}")
