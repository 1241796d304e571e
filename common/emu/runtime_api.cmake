# cudalab_write_runtime_api(<undef header> <rename header>)
#
# Generates, from the runtime API table cudalab/emu/runtime_api.def (the
# one list of the CUDA runtime functions the emulator provides; the table's
# header comment describes its rows), the two headers shim.hpp includes:
#
#   <undef header>   `#undef cudaX` for every provided name. Included before
#                    the emulator's declarations where nvcc's --default-stream
#                    per-thread made CUDA's headers rename the calls that take
#                    a stream (cudaMemcpy -> cudaMemcpy_ptds).
#   <rename header>  `#define cudaX ::cudalab::emu::cudaX` for every provided
#                    name (a _LAUNCH row: a function-like macro that drops a
#                    cast of the kernel), then one macro per CUDA runtime
#                    function the emulator does not provide, renaming it to
#                    <name>_is_not_provided_by_the_cudalab_emulator: a call
#                    such as cudaIpcGetMemHandle(&h, p) in emulator code then
#                    fails to compile with a message that names the function,
#                    instead of linking silently to the real libcudart (which
#                    the GPU backend of the same test binary brings in).
#
# The not-provided list is made from the installed toolkit's own headers, not
# committed: it then matches whichever CUDA release a student has. The
# declarations come from the same table, through an X-macro in runtime.hpp.
#
# Each row is checked here: its support word, that its implementing file in
# common/emu (or, for a template row, its header in cudalab/emu) has a
# definition `return_type name(`, that all rows of one name agree, and that
# CUDA declares the name. (That a definition's parameters match its row is
# checked by the compiler: a call to a declared function with no matching
# definition does not link.)
function(cudalab_write_runtime_api undef_output rename_output)
  set(include_dir "${PROJECT_SOURCE_DIR}/common/include/cudalab/emu")
  set(table "${include_dir}/runtime_api.def")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${table}")
  file(READ "${table}" table_text)
  # Comments go first (they may hold `;` and parentheses); then each row is
  # CUDALAB_EMU_RUNTIME[_KIND]( ... ) with at most one level of parentheses
  # inside (the parameter list).
  string(REGEX REPLACE "//[^\n]*" "" table_text "${table_text}")
  string(REGEX REPLACE "[ \t\n]+" " " table_text "${table_text}")
  string(REGEX MATCHALL "CUDALAB_EMU_RUNTIME[A-Z_]*\\(([^()]|\\([^()]*\\))*\\)" rows
         "${table_text}")

  set(provided "")
  set(launch_names "")
  foreach(row IN LISTS rows)
    if(NOT row MATCHES "^CUDALAB_EMU_RUNTIME(_TEMPLATE|_LAUNCH)?\\( ?(cuda[A-Za-z0-9_]+) ?, ?([a-z]+) ?, ?([A-Za-z0-9_.]+) ?,(.*)\\)$")
      message(FATAL_ERROR "cudalab emulator: runtime_api.def: cannot read the row `${row}`")
    endif()
    set(kind "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    set(support "${CMAKE_MATCH_3}")
    set(implemented_in "${CMAKE_MATCH_4}")
    set(rest "${CMAKE_MATCH_5}")
    if(NOT support MATCHES "^(modelled|accepted)$")
      message(FATAL_ERROR "cudalab emulator: runtime_api.def: ${name}: the support is `${support}`, "
                          "not modelled or accepted")
    endif()
    if(NOT EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${implemented_in}")
      message(FATAL_ERROR "cudalab emulator: runtime_api.def: ${name} is implemented in "
                          "${implemented_in}, which is not in common/emu")
    endif()
    # Where the definition must be: the implementing file for a declared row,
    # the header for a template row. (Read without a configure dependency:
    # a check at each configure, not a reason to configure again.)
    if(kind STREQUAL "")
      set(must_name "${CMAKE_CURRENT_SOURCE_DIR}/${implemented_in}")
      if(NOT rest MATCHES "^ ?([A-Za-z_][A-Za-z0-9_: ]*[A-Za-z0-9_*]) ?, ?\\(.*\\) ?$")
        message(FATAL_ERROR "cudalab emulator: runtime_api.def: ${name}: expected "
                            "`return_type, (parameters)` after the file, got `${rest}`")
      endif()
      set(definition "${CMAKE_MATCH_1} ${name}(")
    else()
      string(STRIP "${rest}" declared_in)
      set(must_name "${include_dir}/${declared_in}")
      if(NOT EXISTS "${must_name}")
        message(FATAL_ERROR "cudalab emulator: runtime_api.def: ${name}'s overloads are in "
                            "${declared_in}, which is not in cudalab/emu")
      endif()
      set(definition "cudaError_t ${name}(")
    endif()
    file(READ "${must_name}" text)
    string(FIND "${text}" "${definition}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "cudalab emulator: runtime_api.def: ${must_name} has no `${definition}`")
    endif()
    # Every row of one name agrees on what the emulator does with it.
    if(DEFINED cudalab_support_${name} AND NOT cudalab_support_${name} STREQUAL support)
      message(FATAL_ERROR "cudalab emulator: runtime_api.def: the rows of ${name} disagree on "
                          "its support (${cudalab_support_${name}}, ${support})")
    endif()
    set(cudalab_support_${name} "${support}")
    list(APPEND provided "${name}")
    if(kind STREQUAL "_LAUNCH")
      list(APPEND launch_names "${name}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES provided)
  list(LENGTH provided provided_count)
  if(provided_count LESS 10)
    message(FATAL_ERROR "cudalab emulator: read only ${provided_count} names from runtime_api.def")
  endif()

  # The C API declares each function as `... CUDARTAPI cudaName(`; the C++
  # overloads and helpers of cuda_runtime.h as `__host__ ... cudaName(`.
  set(names "")
  foreach(header cuda_runtime_api.h cuda_runtime.h cuda_profiler_api.h)
    find_file(cudalab_header_${header} ${header} PATHS ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH)
    if(NOT cudalab_header_${header})
      message(FATAL_ERROR "cudalab emulator: ${header} not found in ${CUDAToolkit_INCLUDE_DIRS}")
    endif()
    set(path "${cudalab_header_${header}}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${path}")
    file(READ "${path}" text)
    string(REGEX MATCHALL "(CUDARTAPI|__host__[^(;{}]*)[ \t\n]cuda[A-Za-z0-9_]+[ \t]*\\(" found "${text}")
    foreach(match IN LISTS found)
      string(REGEX REPLACE ".*[ \t\n](cuda[A-Za-z0-9_]+)[ \t]*\\($" "\\1" name "${match}")
      list(APPEND names "${name}")
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES names)
  list(SORT names)
  list(LENGTH names found_count)
  if(found_count LESS 100)
    message(FATAL_ERROR "cudalab emulator: found only ${found_count} runtime functions in the CUDA "
                        "headers; their format changed and runtime_api.cmake needs an update")
  endif()
  foreach(name IN LISTS provided)
    if(NOT name IN_LIST names)
      message(FATAL_ERROR "cudalab emulator: runtime_api.def provides ${name}, which the CUDA "
                          "headers do not declare")
    endif()
  endforeach()
  list(REMOVE_ITEM names ${provided})

  set(generated_by "// Generated by common/emu/runtime_api.cmake from cudalab/emu/runtime_api.def")
  string(CONCAT undef_text "${generated_by}:\n"
           "// the names the emulator provides, for shim.hpp to undo CUDA's own macros of\n"
           "// them (--default-stream per-thread). Do not edit.\n#pragma once\n\n")
  string(CONCAT rename_text "${generated_by}\n"
           "// and the toolkit's cuda_runtime_api.h, cuda_runtime.h and cuda_profiler_api.h:\n"
           "// each name the emulator provides, mapped onto cudalab::emu; then every other\n"
           "// runtime function, a compile error naming it. shim.hpp includes this last.\n"
           "// Do not edit.\n"
           "#pragma once\n\n// Provided (runtime_api.def).\n")
  foreach(name IN LISTS provided)
    string(APPEND undef_text "#undef ${name}\n")
    if(name IN_LIST launch_names)
      string(APPEND rename_text "#define ${name}(kernel, ...) \\\n"
             "  ::cudalab::emu::${name}(CUDALAB_EMU_KERNEL_OF(kernel), __VA_ARGS__)\n")
    else()
      string(APPEND rename_text "#define ${name} ::cudalab::emu::${name}\n")
    endif()
  endforeach()
  string(APPEND rename_text "\n// Not provided by the emulator.\n")
  foreach(name IN LISTS names)
    string(APPEND rename_text
           "#undef ${name}\n#define ${name} ${name}_is_not_provided_by_the_cudalab_emulator\n")
  endforeach()
  file(CONFIGURE OUTPUT "${undef_output}" CONTENT "${undef_text}" @ONLY)
  file(CONFIGURE OUTPUT "${rename_output}" CONTENT "${rename_text}" @ONLY)
endfunction()
