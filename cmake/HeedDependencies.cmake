# Finds heed's dependencies. All come from Debian packages (scripts/install-deps.sh); for the ARM
# targets, from the sysroot folders that script unpacks (targets/*.cmake point the search there).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

# FlatBuffers 2.0.8: the library for the target, flatc always from the build machine.
find_package(FlatBuffers CONFIG REQUIRED)
find_program(HEED_FLATC flatc REQUIRED NO_CMAKE_FIND_ROOT_PATH)

find_library(PTHREADPOOL_LIBRARY pthreadpool REQUIRED)
find_library(CPUINFO_LIBRARY cpuinfo REQUIRED)
find_path(CPUINFO_INCLUDE_DIR cpuinfo.h REQUIRED)
# XNNPACK (2022 snapshot) ships neither a CMake config nor a .pc file. Optional
# (HEED_WITH_XNNPACK): the runtime's f32 backend and heed_bench_xnnpack use it.
if(HEED_WITH_XNNPACK)
  find_path(XNNPACK_INCLUDE_DIR xnnpack.h REQUIRED)
  find_library(XNNPACK_LIBRARY XNNPACK REQUIRED)
  add_library(heed::xnnpack INTERFACE IMPORTED)
  target_include_directories(heed::xnnpack INTERFACE ${XNNPACK_INCLUDE_DIR})
  target_link_libraries(heed::xnnpack INTERFACE ${XNNPACK_LIBRARY} ${PTHREADPOOL_LIBRARY} ${CPUINFO_LIBRARY})
endif()
add_library(heed::cpuinfo INTERFACE IMPORTED)
target_include_directories(heed::cpuinfo INTERFACE ${CPUINFO_INCLUDE_DIR})
target_link_libraries(heed::cpuinfo INTERFACE ${CPUINFO_LIBRARY})
add_library(heed::pthreadpool INTERFACE IMPORTED)
target_link_libraries(heed::pthreadpool INTERFACE ${PTHREADPOOL_LIBRARY} Threads::Threads)

pkg_check_modules(SENTENCEPIECE REQUIRED IMPORTED_TARGET sentencepiece)
# minizip (zlib's contrib, Debian's libminizip-dev): Argos Translate packages are zip files.
pkg_check_modules(MINIZIP REQUIRED IMPORTED_TARGET minizip)
# utf8proc: Unicode normalization, case folding and categories for the WordPiece (BERT) tokenizer.
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
# ICU (Debian's libicu-dev): sentence boundaries and the languages' abbreviation lists for the
# sentence splitter (runtime/src/text/).
pkg_check_modules(ICU REQUIRED IMPORTED_TARGET icu-uc)
find_package(nlohmann_json 3 REQUIRED)
# OpenSSL's libcrypto (Debian's libssl-dev): the converter's SHA-256 of chat templates.
pkg_check_modules(LIBCRYPTO REQUIRED IMPORTED_TARGET libcrypto)
# CLI11 (Debian's libcli11-dev, header-only): the `heed` command line's option parsing.
find_package(CLI11 2 REQUIRED)
# cpp-httplib (Debian's libcpp-httplib-dev, a compiled library): `heed serve`'s HTTP/1.1 server. Its
# .pc file carries the CPPHTTPLIB_* definitions the library was built with, which the header's
# class layouts depend on.
pkg_check_modules(CPPHTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)

if(HEED_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)
  include(Catch)
endif()
if(HEED_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
