# Included through CMAKE_PROJECT_heed_INCLUDE by scripts/fuzz.sh while the top-level CMakeLists.txt
# has no HEED_BUILD_FUZZ option yet: adds fuzz/ once the whole project has been read, unless the
# top-level file already did.
function(heed_fuzz_add_if_missing)
  if(NOT TARGET fuzz_heed_loader)
    # A deferred call may not add a subdirectory; fuzz/CMakeLists.txt works when included too.
    include(${CMAKE_SOURCE_DIR}/fuzz/CMakeLists.txt)
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL heed_fuzz_add_if_missing)
