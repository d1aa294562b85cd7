# Installation and packaging: the heed CLI, the static libraries with their public headers, a CMake
# package (find_package(heed) -> heed::heed_runtime, ...), a pkg-config file and a Debian package
# (cpack -G DEB, or the `package` target). Included last by the top-level CMakeLists.txt, so every
# target exists here.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(HEED_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/heed)

# The libraries' include folders are absolute build paths; installed consumers find the same
# headers under <prefix>/include.
set_target_properties(heed_runtime PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
  "$<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/runtime/include>;$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
set_target_properties(heed_kernels PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
  "$<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/kernels/include>;$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
set_target_properties(heed_schema PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
  "$<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/schema/include>;$<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/schema/include>;$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")

install(TARGETS heed RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(TARGETS heed_runtime heed_kernels heed_schema EXPORT heedTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# libheed.so.1 (heed::heed): what C programs and other languages link.
set_target_properties(heed_shared PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
  "$<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/runtime/include>;$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
install(TARGETS heed_shared EXPORT heedTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library NAMELINK_COMPONENT development)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/runtime/include/heed ${CMAKE_SOURCE_DIR}/kernels/include/heed
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development FILES_MATCHING PATTERN "*.h")

install(EXPORT heedTargets NAMESPACE heed:: DESTINATION ${HEED_INSTALL_CMAKEDIR} COMPONENT development)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/heedConfig.cmake.in ${CMAKE_BINARY_DIR}/heedConfig.cmake
                              INSTALL_DESTINATION ${HEED_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/heedConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/heedConfig.cmake ${CMAKE_BINARY_DIR}/heedConfigVersion.cmake
        DESTINATION ${HEED_INSTALL_CMAKEDIR} COMPONENT development)

# pkg-config: the libraries in link order, then the system libraries they need. The prefix is
# relative to the .pc file, so the file stays right with `cmake --install --prefix` and in the .deb.
set(HEED_PC_XNNPACK "")
if(HEED_WITH_XNNPACK)
  set(HEED_PC_XNNPACK "-lXNNPACK ")
endif()
file(RELATIVE_PATH HEED_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(${CMAKE_SOURCE_DIR}/cmake/heed.pc.in ${CMAKE_BINARY_DIR}/heed.pc @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/heed-static.pc.in ${CMAKE_BINARY_DIR}/heed-static.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/heed.pc ${CMAKE_BINARY_DIR}/heed-static.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)

# The license, where Debian looks for it (/usr/share/doc/<package>/copyright, in each package) and
# under the name every other installation expects. Machine-readable format: the license text
# follows its name, each line indented by one space and empty lines written " .".
set(HEED_DEB_COPYRIGHT ${CMAKE_BINARY_DIR}/copyright)
file(STRINGS ${CMAKE_SOURCE_DIR}/LICENSE heed_license_lines)
set(heed_license_text "")
foreach(line IN LISTS heed_license_lines)
  if(line STREQUAL "")
    string(APPEND heed_license_text " .\n")
  else()
    string(APPEND heed_license_text " ${line}\n")
  endif()
endforeach()
file(WRITE ${HEED_DEB_COPYRIGHT} "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
     "Upstream-Name: heed\n\nFiles: *\nCopyright: 2026 the heed authors\nLicense: Expat\n${heed_license_text}")
foreach(pair "cli;heed" "library;libheed1" "development;libheed-dev")
  list(GET pair 0 component)
  list(GET pair 1 package)
  install(FILES ${HEED_DEB_COPYRIGHT} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package} COMPONENT ${component})
endforeach()
install(FILES ${CMAKE_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/licenses/heed COMPONENT library)

# Debian packages, as Debian splits a library: heed (the command line), libheed1 (libheed.so.1)
# and libheed-dev (headers, static libraries, CMake and pkg-config files). The architecture comes
# from the toolchain file (HEED_DEB_ARCH: arm64, armhf) or, on the build machine, from dpkg.
if(NOT HEED_DEB_ARCH)
  find_program(HEED_DPKG dpkg)
  if(HEED_DPKG)
    execute_process(COMMAND ${HEED_DPKG} --print-architecture OUTPUT_VARIABLE HEED_DEB_ARCH
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
  endif()
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME heed)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "heed maintainers <heed@localhost>")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "heed maintainers <heed@localhost>")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
if(HEED_DEB_ARCH)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${HEED_DEB_ARCH})
endif()
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli library development)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME heed)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION science)
set(CPACK_DEBIAN_LIBRARY_PACKAGE_NAME libheed1)
set(CPACK_DEBIAN_LIBRARY_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libheed-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_CLI_DESCRIPTION "heed command line: convert, translate, generate, embed, score, bench, serve")
set(CPACK_COMPONENT_LIBRARY_DESCRIPTION "heed runtime shared library (libheed.so.1, the C API)")
set(CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION "heed headers, static libraries, CMake and pkg-config files")
# Versioned dependencies. On the build machine dpkg-shlibdeps computes them from the binaries; it
# cannot read foreign-architecture ones, so cross builds list the shared libraries the binaries link
# with the versions of Debian 12 (bookworm) the sysroots hold.
set(heed_runtime_depends "libc6 (>= 2.36), libstdc++6 (>= 12), libgcc-s1 (>= 3.0), libsentencepiece0 (>= 0.1.97), "
                         "libcpuinfo0 (>= 0.0~git20220617), libpthreadpool0 (>= 0.0~git20210507), libutf8proc2 (>= 2.8.0), libicu72 (>= 72.1)")
string(REPLACE ";" "" heed_runtime_depends "${heed_runtime_depends}")
set(heed_dev_depends "libheed1 (= ${PROJECT_VERSION}), libflatbuffers-dev, libsentencepiece-dev, libcpuinfo-dev, "
                     "libpthreadpool-dev, libutf8proc-dev, libicu-dev")
string(REPLACE ";" "" heed_dev_depends "${heed_dev_depends}")
if(HEED_WITH_XNNPACK)  # the f32 GEMM backend
  string(APPEND heed_runtime_depends ", libxnnpack0 (>= 0.0~git20220216)")
  string(APPEND heed_dev_depends ", libxnnpack-dev")
endif()
if(CMAKE_CROSSCOMPILING)
  set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "${heed_runtime_depends}, libminizip1 (>= 1.1), libcpp-httplib0.11 (>= 0.11.4)")
  set(CPACK_DEBIAN_LIBRARY_PACKAGE_DEPENDS "${heed_runtime_depends}")
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "${heed_dev_depends}")
include(CPack)
