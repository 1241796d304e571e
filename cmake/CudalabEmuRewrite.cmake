# cudalab_emu_rewrite(<out_dir_var> <out_files_var> BASE_DIR <dir> FILES <file>...
#                     [OUT_DIR <dir>])
#
# The copies of plain-CUDA kernel files (.cuh/.cu/.hpp) that the emulator
# build compiles: tools/emu_rewrite.py turns their triple-chevron launches and
# __shared__ declarations into emulator calls and keeps every line where it
# was, with `#line` naming the original file (docs/emulator.md, "How plain
# CUDA reaches the emulator"). The GPU build compiles the originals with nvcc.
#
# Each FILE (absolute, or relative to the current source directory) must lie
# under BASE_DIR; its copy is ${CMAKE_CURRENT_BINARY_DIR}/emu_rewritten/<path
# relative to BASE_DIR> (or OUT_DIR/<...>, for a target that needs copies of
# its own), so that the copies include each other by the same relative paths
# as the originals. <out_dir_var> receives that folder,
# <out_files_var> the copies. A copy is made again when its original or the
# script changes, and rewritten only when its content changes.
#
# How a lab's emulator target uses it (in the directory that defines the
# target, which is where CMake sees the copies as generated):
#
#   cudalab_emu_rewrite(emu_dir emu_files BASE_DIR "${code_dir}" FILES ${kernel_files})
#   add_library(lab_emu STATIC lab_emu.cpp ${emu_files})   # the copies come first
#   target_include_directories(lab_emu PRIVATE "${emu_dir}")   # instead of ${code_dir}
#
# Listing the copies among the target's sources makes the build write them
# before it compiles the target; the compiler's dependency files then rewrite
# a copy again whenever the student edits its original.
include_guard(GLOBAL)

function(cudalab_emu_rewrite out_dir_var out_files_var)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "BASE_DIR;OUT_DIR" "FILES")
  if(NOT ARG_BASE_DIR OR NOT ARG_FILES)
    message(FATAL_ERROR "cudalab_emu_rewrite: BASE_DIR <dir> and FILES <file>... are required")
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../tools/emu_rewrite.py")
  cmake_path(ABSOLUTE_PATH script NORMALIZE)
  cmake_path(ABSOLUTE_PATH ARG_BASE_DIR BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/emu_rewritten")
  if(ARG_OUT_DIR)
    cmake_path(ABSOLUTE_PATH ARG_OUT_DIR BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE
               OUTPUT_VARIABLE out_dir)
  endif()
  set(outputs "")
  foreach(file IN LISTS ARG_FILES)
    cmake_path(ABSOLUTE_PATH file BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    cmake_path(IS_PREFIX ARG_BASE_DIR "${file}" NORMALIZE under_base)
    if(NOT under_base)
      message(FATAL_ERROR "cudalab_emu_rewrite: ${file} is not under BASE_DIR ${ARG_BASE_DIR}")
    endif()
    cmake_path(RELATIVE_PATH file BASE_DIRECTORY "${ARG_BASE_DIR}" OUTPUT_VARIABLE relative)
    set(output "${out_dir}/${relative}")
    add_custom_command(
      OUTPUT "${output}"
      COMMAND "${Python3_EXECUTABLE}" "${script}" "${file}" "${output}"
      DEPENDS "${file}" "${script}"
      COMMENT "Rewriting ${relative} for the emulator"
      VERBATIM)
    list(APPEND outputs "${output}")
  endforeach()
  set(${out_dir_var} "${out_dir}" PARENT_SCOPE)
  set(${out_files_var} "${outputs}" PARENT_SCOPE)
endfunction()
