# cudalab_add_lab(<NN> <name> EXERCISES <count>)
#
# Registers lab NN once. Expects
#   labs/NN_name/        the student's files (kernels in .cuh headers)
#   solutions/NN_name/   the same file names, complete
#   harness/NN_name/     backend_emu.cpp + backend_gpu.cu (the lab code built
#                        for each backend behind one interface), run_main.cpp
#                        (the `./lab run NN` program) and optional bench_main.cu
#   tests/NN_name/       GoogleTest sources
# Test names follow <Backend>/<Suite>.Ex<k>_<what>/...; the backend part holds
# "Emu" or "Gpu", which gives the ctest labels emu and gpu.
#
# Targets: labNN_backends_<graded|skeleton>, labNN (program), test_labNN,
# and with CUDALAB_CHECK_SKELETONS also test_labNN_skeleton with one ctest per
# exercise that passes only when the skeleton fails that exercise.
# cudalab_discover_tests(<target> [FILTER <gtest pattern>] LABELS <label>...)
#
# gtest_discover_tests, run when ctest starts, with several labels and with
# tests that call GTEST_SKIP() reported as skipped. The properties are set by
# a script ctest runs after discovery: gtest_discover_tests flattens a list
# given in its PROPERTIES (a test would get only the first label), and newer
# CMake releases mangle a regular expression with backslashes given there.
function(cudalab_discover_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "FILTER" "LABELS")
  if(NOT ARG_FILTER)
    set(ARG_FILTER "*")
  endif()
  string(MAKE_C_IDENTIFIER "${target}_${ARG_FILTER}" list)
  gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST TEST_FILTER "${ARG_FILTER}"
    TEST_LIST ${list})
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${list}_properties.cmake")
  file(WRITE "${script}"
    "set_tests_properties(\${${list}} PROPERTIES LABELS \"${ARG_LABELS}\"\n"
    "  SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()

function(cudalab_add_lab number name)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "EXERCISES" "")
  set(dir "${number}_${name}")
  set(harness "${PROJECT_SOURCE_DIR}/harness/${dir}")
  set(lab "lab${number}")

  set(variants graded)
  if(CUDALAB_CHECK_SKELETONS)
    list(APPEND variants skeleton)
  endif()

  foreach(variant IN LISTS variants)
    if(variant STREQUAL "graded")
      set(code_dir "${PROJECT_SOURCE_DIR}/${CUDALAB_GRADE}/${dir}")
    else()
      set(code_dir "${PROJECT_SOURCE_DIR}/labs/${dir}")
    endif()
    add_library(${lab}_backends_${variant} STATIC
      "${harness}/backend_emu.cpp" "${harness}/backend_gpu.cu")
    target_include_directories(${lab}_backends_${variant}
      PUBLIC "${harness}" PRIVATE "${code_dir}")
    target_link_libraries(${lab}_backends_${variant} PUBLIC cudalab::common cudalab::emu)
    set_target_properties(${lab}_backends_${variant} PROPERTIES
      CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)

    file(GLOB test_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/${dir}/*.cpp")
    set(test_target test_${lab})
    if(variant STREQUAL "skeleton")
      set(test_target test_${lab}_skeleton)
    endif()
    add_executable(${test_target} ${test_sources})
    target_link_libraries(${test_target} PRIVATE ${lab}_backends_${variant} GTest::gtest_main)
    set_target_properties(${test_target} PROPERTIES ENABLE_EXPORTS ON)
  endforeach()

  cudalab_discover_tests(test_${lab} FILTER "*Emu*" LABELS ${lab} emu)
  cudalab_discover_tests(test_${lab} FILTER "*Gpu*" LABELS ${lab} gpu)

  if(CUDALAB_CHECK_SKELETONS)
    foreach(k RANGE 1 ${ARG_EXERCISES})
      add_test(NAME ${lab}.skeleton_fails_exercise_${k}
               COMMAND test_${lab}_skeleton "--gtest_filter=*Ex${k}_*")
      set_tests_properties(${lab}.skeleton_fails_exercise_${k} PROPERTIES
        WILL_FAIL TRUE LABELS "skeleton;${lab}")
    endforeach()
  endif()

  add_executable(${lab} "${harness}/run_main.cpp")
  target_link_libraries(${lab} PRIVATE ${lab}_backends_graded CLI11::CLI11)
  set_target_properties(${lab} PROPERTIES ENABLE_EXPORTS ON)

  if(EXISTS "${harness}/bench_main.cu")
    add_executable(${lab}_bench "${harness}/bench_main.cu")
    target_link_libraries(${lab}_bench PRIVATE ${lab}_backends_graded CUDA::cublas CLI11::CLI11)
  endif()
endfunction()
