# Front ends build on heed's installed public headers only, and those headers show no internal
# type (docs/architecture.md, "Decisions kept here").
# Run as a script: cmake -DSOURCE_DIR=<repo> -DSCAN_DIRS="tools;python/src;samples" -P this file
# [-DPUBLIC_DIRS=dir;dir]. Fails, naming each file:
# - when a file under SCAN_DIRS (relative to SOURCE_DIR unless absolute) includes a header of the
#   runtime or kernels that is not installed: one that exists under runtime/src or kernels/src
#   rather than runtime/include or kernels/include (cmake/HeedInstall.cmake installs those two
#   include folders and nothing else of the runtime);
# - when an installed header (under PUBLIC_DIRS, relative to SOURCE_DIR unless absolute, by default
#   those two folders) mentions the FlatBuffers types (`fb::`, `flatbuffers`) or the runtime's
#   `TensorView`, or includes a header that is not installed with it.
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR OR NOT SCAN_DIRS)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=... -DSCAN_DIRS=dir;dir [-DPUBLIC_DIRS=dir;dir] -P CheckPublicIncludes.cmake")
endif()
set(private_roots ${SOURCE_DIR}/runtime/src ${SOURCE_DIR}/kernels/src)
set(public_roots ${SOURCE_DIR}/runtime/include ${SOURCE_DIR}/kernels/include)
if(NOT PUBLIC_DIRS)
  set(PUBLIC_DIRS ${public_roots})
endif()
list(TRANSFORM PUBLIC_DIRS PREPEND ${SOURCE_DIR}/ REGEX "^[^/]")  # relative to SOURCE_DIR
set(violations "")

# True in `out` when `header` exists under one of the folders in `roots`.
function(found_under out header)
  set(found FALSE)
  foreach(root IN LISTS ARGN)
    if(EXISTS ${root}/${header})
      set(found TRUE)
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# The installed headers: no internal type named, nothing included that is not installed.
foreach(dir IN LISTS PUBLIC_DIRS)
  file(GLOB_RECURSE headers ${dir}/*.h)
  foreach(file IN LISTS headers)
    file(RELATIVE_PATH shown ${SOURCE_DIR} ${file})
    file(READ ${file} text)
    string(REGEX MATCHALL "fb::|TensorView|flatbuffers" internal "${text}")
    if(internal)
      list(REMOVE_DUPLICATES internal)
      list(JOIN internal ", " internal)
      list(APPEND violations "${shown}: an installed header mentions ${internal}, internal to the runtime")
    endif()
    file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<][^\">]+[\">]")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*([\"<])([^\">]+)[\">].*" "\\1;\\2" parts "${line}")
      list(GET parts 0 quote)
      list(GET parts 1 header)
      found_under(installed ${header} ${PUBLIC_DIRS})
      if(installed OR (quote STREQUAL "<" AND NOT header MATCHES "^heed"))
        continue()  # an installed header, or a system or standard one
      endif()
      list(APPEND violations "${shown}: an installed header includes ${header}, which is not installed")
    endforeach()
  endforeach()
endforeach()

set(scanned 0)
foreach(dir IN LISTS SCAN_DIRS)
  if(NOT IS_ABSOLUTE ${dir})
    set(dir ${SOURCE_DIR}/${dir})
  endif()
  if(NOT IS_DIRECTORY ${dir})
    message(FATAL_ERROR "no folder ${dir} to check")
  endif()
  file(GLOB_RECURSE files ${dir}/*.h ${dir}/*.hpp ${dir}/*.cpp ${dir}/*.cc ${dir}/*.c ${dir}/*.in)
  foreach(file IN LISTS files)
    math(EXPR scanned "${scanned} + 1")
    file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<][^\">]+[\">]")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">].*" "\\1" header "${line}")
      get_filename_component(here ${file} DIRECTORY)
      if(EXISTS ${here}/${header})  # the front end's own header, beside the includer
        continue()
      endif()
      found_under(public ${header} ${public_roots})
      found_under(private ${header} ${private_roots})
      if(private AND NOT public)
        file(RELATIVE_PATH shown ${SOURCE_DIR} ${file})
        list(APPEND violations "${shown}: includes ${header}, a runtime header that is not installed")
      endif()
    endforeach()
  endforeach()
endforeach()
if(scanned EQUAL 0)
  message(FATAL_ERROR "no source files under ${SCAN_DIRS}")
endif()
if(violations)
  list(JOIN violations "\n" text)
  message(FATAL_ERROR "front ends must build on the installed public headers only, which show no internal "
                      "type:\n${text}")
endif()
message(STATUS "${scanned} files use the public headers only; the installed headers show no internal type")
