# cudalab_emu_instrument(<target> <sources...>)
#
# Compiles the given sources of <target> (its emulator translation units:
# the files that hold a lab's kernels as the host compiler sees them) with
# GCC's thread-sanitizer instrumentation, so that every load, store and
# atomic of the kernels calls the emulator's __tsan_* entry points
# (common/emu/hooks.cpp) and is checked and traced.
# libtsan is not linked: only compile options are set.
#
#   -fsanitize=thread                           the instrumentation itself
#   -fno-tree-sra                               a float4 copy stays one 16-byte access
#                                               (with SRA it becomes four 4-byte ones)
#   --param=tsan-instrument-func-entry-exit=0   no call on every function entry and exit
#   -fstack-clash-protection                    a large local array probes its stack page
#                                               by page, so that it faults in the CUDA
#                                               thread's guard page (a report: stack
#                                               overflow) instead of writing over the
#                                               next thread's stack
#   -g1 (unless the build has -g)               line tables: reports name file:line
#   -Wno-unknown-pragmas                        CUDA's `#pragma unroll` is nvcc's; GCC unrolls
#                                               by its own judgement
#
# The target must link cudalab::emu (which provides the entry points) and
# should set ENABLE_EXPORTS so that kernels are named in reports.
#
# The emulator's own code must not run instrumented copies of inline library
# code. An instrumented file compiles its own copy of every inline function it
# uses that is not inlined (std::string's operator+, std::vector's resize...),
# and the linker keeps the first copy of each that it meets: the executable's
# objects come before its libraries, so the emulator's runtime, building a
# report's message on a CUDA thread, would call the instrumented copy and
# report its own heap writes as the kernel's (seen with g++ 13). So the
# emulator's archive is placed, whole, before the objects of every executable
# that links an instrumented target: its copies come first and are the ones
# kept (an instrumented kernel calling such a function then runs the plain
# copy, which is not checked; kernels do not call the string library). A
# shared library (a lab's PyTorch operator) keeps the usual order; there the
# emulator still ignores the accesses its reports make (checking_an_access).
# tools/check_runtime_uninstrumented.py checks a built executable for it.
# cudalab_emu_instrument_options(<out_var>): the compile options above, for
# a target whose every source is instrumented (the precompiled header of the
# labs' emulator backends, cmake/CudalabLab.cmake: it must be built with the
# options of the files that use it).
function(cudalab_emu_instrument_options out_var)
  set(${out_var} -fsanitize=thread -fno-tree-sra --param=tsan-instrument-func-entry-exit=0
      -fstack-clash-protection -Wno-unknown-pragmas
      $<$<NOT:$<CONFIG:Debug,RelWithDebInfo>>:-g1> PARENT_SCOPE)
endfunction()

function(cudalab_emu_instrument target)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "cudalab_emu_instrument: the emulator's instrumentation is measured "
                        "with GCC only (found ${CMAKE_CXX_COMPILER_ID})")
  endif()
  if(NOT ARGN)
    message(FATAL_ERROR "cudalab_emu_instrument(${target}): name the sources to instrument")
  endif()
  cudalab_emu_instrument_options(options)
  set_property(SOURCE ${ARGN} TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS ${options})
  # One option, so that CMake's de-duplication of link options keeps it
  # whole; for executables only: the whole archive's thread-local storage
  # does not fit the static TLS that a library loaded later (a PyTorch
  # operator, dlopen) may take.
  target_link_options(${target} PUBLIC
    "$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:LINKER:--whole-archive,$<TARGET_FILE:cudalab_emu>,--no-whole-archive>")
endfunction()
