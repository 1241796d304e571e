# cudalab_add_lab(<NN_name> [ROOT <folder>])
#
# Registers lab NN from its descriptor, harness/NN_name/lab.json: the one
# place that says what the lab is (docs/architecture.md, "The lab
# descriptor"). The top-level CMakeLists.txt calls it for every descriptor it
# finds; CMake, ./lab, the run program, the grader, the viewer's catalogue
# and tools/check_labs.py all read the same file. The descriptor holds
#   exercises         [{number, title, files, entry_points[, graded_by, tests]}]
#                     numbered 1..K in order; graded_by "pytest" (with
#                     tests: a file in tests/NN_name/) for an exercise graded
#                     by PyTorch's pytest cases (cmake/CudalabTorchOp.cmake)
#                     instead of the GoogleTest cases named Ex<k>_
#   gpu_libraries     what the lab's GPU code links besides the CUDA runtime
#                     (CMake targets: "cudalab::blas", ...)
#   tile_interpreter  the lab's code is tile programs (cudalab/tile), also
#                     built for the tile interpreter; tests named Interp/...
#                     get the label interp
#   views             the viewer's views of the lab (viewer/model/ui_state.hpp
#                     names them), in tab order
#   bench             whether harness/NN_name/bench_main.cu times the lab
#   test_scenarios    (optional) files of tests/NN_name/ built into each
#                     backend after backend_impl.hpp: experiments only the
#                     tests run, bound as entry points by the
#                     bind_test_scenarios(cudalab::harness::EntryBinder&)
#                     they define, so the harness holds only what the
#                     tests, the benchmark and the viewer share
# Expects (a missing folder is a configure error)
#   labs/NN_name/        the student's files (kernels in .cuh headers)
#   solutions/NN_name/   the same file names, complete
#   harness/NN_name/     lab.json, given/ (optional: what the lab gives its
#                        kernels, included by name: types, given kernels;
#                        lab code includes nothing else of the harness),
#                        backend.hpp (the lab's Backend interface),
#                        backend_impl.hpp (LabBackend: the interface over the
#                        lab code, built once per backend; its factories
#                        are generated), bench_main.cu (+ bench_pytorch.py)
#                        where bench is true
#   tests/NN_name/       GoogleTest sources; test names hold Ex<k>_
# ROOT: where the four folders are, relative to the source tree
# (default: the top; tests/sample_lab holds the sample lab CI builds).
#
# Both backends are also built over solutions/ with CUDALAB_REFERENCE=1 (library labNN_backends_reference, in
# the inline namespaces on_emu_reference / on_gpu_reference), and every test
# program links it: a test grades one exercise by combining the student's
# part with the reference's other parts (OnBackend::reference() in
# cudalab/harness/testing.hpp), so that one mistake fails one exercise.
#
# Test names follow <Backend>/<Suite>.Ex<k>_<what>/...; the backend part holds
# "Emu" or "Gpu", which gives the ctest labels emu and gpu. A test whose name
# has no Ex<k>_ (an end-to-end test of the student's code alone) belongs to no
# exercise. The tests are compiled once and linked three ways:
#   test_labNN           GoogleTest's runner over the graded code (ctest)
#   labNN                `./lab run NN`: the same tests, reported per exercise
#                        under the descriptor's titles
#   test_labNN_skeleton  with CUDALAB_CHECK_SKELETONS: over labs/, with one
#                        ctest per exercise that passes only when the
#                        skeleton fails that exercise
# and labNN_bench when the descriptor says bench (and the build has GPU
# backends), labNN_ranks when the harness has ranks_main.cpp (with MPI where
# CMake finds it). The lab is appended to the global property CUDALAB_LABS
# ("NN_name"), which the viewer reads.

# cudalab_discover_tests(<target> [FILTER <gtest pattern>] LABELS <label>...)
#
# Each test may run CUDALAB_TEST_TIMEOUT seconds: a student's endless loop
# costs two minutes, not ctest's default 25 (tools/grade.py reports it).
set(CUDALAB_TEST_TIMEOUT 120 CACHE STRING "Seconds one lab or library test may run")
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
  # GPU tests take turns: one that times streams or copies must not share
  # the GPU with another test's kernels (contexts of different processes
  # time-slice it).
  set(lock "")
  if("gpu" IN_LIST ARG_LABELS)
    set(lock "  RESOURCE_LOCK gpu\n")
  endif()
  # The test's own watchdog stops it first and says where it was stuck.
  math(EXPR watchdog "${CUDALAB_TEST_TIMEOUT} * 9 / 10")
  file(WRITE "${script}"
    "set_tests_properties(\${${list}} PROPERTIES LABELS \"${ARG_LABELS}\"\n"
    "  TIMEOUT ${CUDALAB_TEST_TIMEOUT}\n"
    "  ENVIRONMENT CUDALAB_TEST_TIMEOUT_S=${watchdog}\n"
    "${lock}"
    "  SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()

# cudalab_emu_backend_pch(<target> KIND <kind> [REFERENCE])
#
# Every lab's emulator backend is one translation unit (backend_emu.cpp,
# below) that the host compiler builds again for each mutant, each isolated
# exercise and each edit a student makes. About a third of its compile time
# is parsing the headers every such unit includes the same way: the
# emulator's shim behind cudalab/kernel.hpp and the harness's entry points.
# They are compiled once into a precompiled header, shared by the units of
# every lab built with the same macros and options: KIND emu (instrumented,
# cmake/CudalabEmu.cmake) or interp (lab 05's tile interpreter, not
# instrumented), REFERENCE or not (CUDALAB_REFERENCE picks the inline
# namespace). The header holds only what each unit includes anyway, so it
# hides no missing #include of a lab file; a compile error still names the
# lab file and line. GCC checks that a precompiled header was built with the
# unit's macros (-Winvalid-pch) and otherwise reads the headers themselves.
# -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON turns it off.
function(cudalab_emu_backend_pch target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "REFERENCE" "KIND" "")
  set(holder cudalab_${ARG_KIND}_backend_pch)
  if(ARG_REFERENCE)
    set(holder ${holder}_reference)
  endif()
  if(NOT TARGET ${holder})
    set(anchor "${PROJECT_BINARY_DIR}/${holder}/anchor.cpp")
    file(CONFIGURE OUTPUT "${anchor}" CONTENT
         "// The precompiled header of the labs' backends (cmake/CudalabLab.cmake).\n")
    add_library(${holder} OBJECT "${anchor}")
    target_link_libraries(${holder} PRIVATE cudalab::harness)
    set_target_properties(${holder} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    if(ARG_KIND STREQUAL "emu")
      cudalab_emu_instrument_options(options)
      target_compile_options(${holder} PRIVATE ${options})
    else()
      target_compile_definitions(${holder} PRIVATE CUDALAB_INTERPRET=1)
    endif()
    if(ARG_REFERENCE)
      target_compile_definitions(${holder} PRIVATE CUDALAB_REFERENCE=1)
    endif()
    target_precompile_headers(${holder} PRIVATE <memory> <string>
      "${PROJECT_SOURCE_DIR}/common/include/cudalab/kernel.hpp"
      "${PROJECT_SOURCE_DIR}/common/include/cudalab/harness/entry_points.hpp"
      "${PROJECT_SOURCE_DIR}/common/include/cudalab/harness/gpu_probe.hpp")
  endif()
  target_precompile_headers(${target} REUSE_FROM ${holder})
endfunction()

# cudalab_lab_backends(<target> <code_dir> <harness_dir> NUMBER <NN> [REFERENCE] [INTERPRETER]
#                      [GPU_SIDE_OF <target>] [GPU_LIBRARIES <lib>...]
#                      [EMU_SOURCES <file>...] [TEST_SCENARIOS <file>...])
#
# A lab's two backends over the lab code in <code_dir>, each one generated
# translation unit (lab_backend_factories.cpp.in) that includes the harness's
# backend_impl.hpp, then the TEST_SCENARIOS files (the descriptor's
# test_scenarios, rewritten for the emulator like the harness's headers),
# and defines the lab's factories: <target>_gpu by nvcc;
# <target> by the host compiler over copies of the harness headers and of
# the lab's kernel files in which the triple-chevron launches and __shared__ declarations
# became emulator calls (cmake/CudalabEmuRewrite.cmake), instrumented
# (cmake/CudalabEmu.cmake); <target> links <target>_gpu. GPU_SIDE_OF: link
# that target's GPU side instead of building one (./lab mutants grades a
# mutant on the emulator alone, and a mutant's rebuild should not wait for
# nvcc). Where CUDALAB_GPU_BACKENDS is off, <target>_gpu is a generated stub
# whose factories return no backend and say why (namespace labNN::harness).
# REFERENCE builds it as the reference
# (CUDALAB_REFERENCE=1: the inline namespaces on_emu_reference/on_gpu_reference).
# INTERPRETER adds <target>_interp: the emulator's unit built again with
# CUDALAB_INTERPRET=1 for the tile library's interpreter (lab 05); it defines
# the lab's make_[reference_]interpreter_backend() and links <target>.
function(cudalab_lab_backends target code_dir harness)
  cmake_parse_arguments(PARSE_ARGV 3 ARG "REFERENCE;INTERPRETER" "GPU_SIDE_OF;NUMBER"
                        "GPU_LIBRARIES;EMU_SOURCES;TEST_SCENARIOS")
  file(GLOB code_files CONFIGURE_DEPENDS "${code_dir}/*.cuh" "${code_dir}/*.hpp" "${code_dir}/*.h")
  file(GLOB harness_files CONFIGURE_DEPENDS "${harness}/*.hpp" "${harness}/*.cuh"
       "${harness}/given/*.hpp" "${harness}/given/*.cuh")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_emu")
  cudalab_emu_rewrite(emu_dir code_copies BASE_DIR "${code_dir}" OUT_DIR "${out}"
                      FILES ${code_files})
  cudalab_emu_rewrite(emu_dir harness_copies BASE_DIR "${harness}" OUT_DIR "${out}"
                      FILES ${harness_files})
  # The tests' experiments sit beside the harness's copies, so that their
  # quoted #includes (backend_impl.hpp, the lab's files) find the same copies.
  set(scenario_copies "")
  set(tests_dir "")
  set(TEST_SCENARIO_INCLUDES "")
  set(HAS_TEST_SCENARIOS 0)
  if(ARG_TEST_SCENARIOS)
    list(GET ARG_TEST_SCENARIOS 0 first_scenario)
    get_filename_component(tests_dir "${first_scenario}" DIRECTORY)
    cudalab_emu_rewrite(emu_dir scenario_copies BASE_DIR "${tests_dir}" OUT_DIR "${out}"
                        FILES ${ARG_TEST_SCENARIOS})
    foreach(file IN LISTS ARG_TEST_SCENARIOS)
      get_filename_component(name "${file}" NAME)
      if(EXISTS "${harness}/${name}" OR EXISTS "${code_dir}/${name}")
        message(FATAL_ERROR "${file} (test_scenarios) has the name of a harness or lab "
                            "file: its copy for the emulator would take that one's place")
      endif()
      string(APPEND TEST_SCENARIO_INCLUDES "#include \"${name}\"\n")
    endforeach()
    set(HAS_TEST_SCENARIOS 1)
  endif()
  # Each backend's one translation unit: the factories of LabBackend
  # (backend_impl.hpp), the same for every lab, generated
  # (lab_backend_factories.cpp.in). The emulator's is compiled among the
  # copies, instrumented so that the emulator sees every access of the
  # kernels; its quoted #includes find the other copies first, in its folder.
  # A copy whose original moved or went away (an older checkout's) would
  # still be found first by the copies' quoted #includes: remove it.
  file(GLOB_RECURSE copies_present LIST_DIRECTORIES false "${out}/*.hpp" "${out}/*.cuh" "${out}/*.h")
  foreach(copy IN LISTS copies_present)
    if(NOT copy IN_LIST harness_copies AND NOT copy IN_LIST code_copies
       AND NOT copy IN_LIST scenario_copies)
      file(REMOVE "${copy}")
    endif()
  endforeach()
  get_filename_component(lab_dir "${harness}" NAME)
  set(NUMBER "${ARG_NUMBER}")
  set(DIR "${lab_dir}")
  get_filename_component(CODE "${code_dir}" NAME)
  get_filename_component(code_tree "${code_dir}" DIRECTORY)
  get_filename_component(code_tree "${code_tree}" NAME)
  set(CODE "${code_tree}/${CODE}")
  set(BACKEND "the CPU emulator (and, with CUDALAB_INTERPRET, the tile interpreter)")
  set(FOR_GPU 0)
  configure_file("${PROJECT_SOURCE_DIR}/cmake/lab_backend_factories.cpp.in"
                 "${out}/backend_emu.cpp" @ONLY)
  add_library(${target} STATIC "${out}/backend_emu.cpp" ${harness_copies} ${code_copies}
                               ${scenario_copies} ${ARG_EMU_SOURCES})
  cudalab_emu_instrument(${target} "${out}/backend_emu.cpp")
  set(reference "")
  if(ARG_REFERENCE)
    set(reference REFERENCE)  # the precompiled header of units built with CUDALAB_REFERENCE
  endif()
  cudalab_emu_backend_pch(${target} KIND emu ${reference})
  # Lab code finds what the lab gives it (given/) by name, as the copies.
  target_include_directories(${target} PUBLIC "${harness}" PRIVATE "${out}/given" "${code_dir}")
  set(libraries ${target})
  if(ARG_GPU_SIDE_OF)
    set(gpu_side ${ARG_GPU_SIDE_OF}_gpu)
  elseif(NOT CUDALAB_GPU_BACKENDS)
    # No GPU backend in this build (CUDALAB_GPU_BACKENDS=OFF): the lab's GPU
    # factories say why, and its GPU tests skip with that reason.
    set(gpu_side ${target}_gpu)
    set(stub "${CMAKE_CURRENT_BINARY_DIR}/${target}_gpu_stub/backend_gpu_not_built.cpp")
    file(CONFIGURE OUTPUT "${stub}" @ONLY CONTENT [=[
// Generated by cudalab_lab_backends (cmake/CudalabLab.cmake): this build has
// no GPU backend for lab @ARG_NUMBER@ (CUDALAB_GPU_BACKENDS=OFF).
#include <memory>
#include <string>

#include "backend.hpp"

namespace lab@ARG_NUMBER@::harness {
namespace {
std::unique_ptr<Backend> not_built(std::string* why_not) {
  if (why_not != nullptr) {
    *why_not = "this build has no GPU backend: no GPU was found when it was configured "
               "(cmake -DCUDALAB_GPU_BACKENDS=ON builds it)";
  }
  return nullptr;
}
}  // namespace
#if CUDALAB_REFERENCE
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not) {
  return not_built(why_not);
}
#else
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not) { return not_built(why_not); }
#endif
}  // namespace lab@ARG_NUMBER@::harness
]=])
    add_library(${gpu_side} STATIC "${stub}")
    target_include_directories(${gpu_side} PUBLIC "${harness}")
    target_link_libraries(${gpu_side} PUBLIC cudalab::harness ${ARG_GPU_LIBRARIES})
    list(APPEND libraries ${gpu_side})
  else()
    set(gpu_side ${target}_gpu)
    set(BACKEND "the GPU (nvcc)")
    set(FOR_GPU 1)
    configure_file("${PROJECT_SOURCE_DIR}/cmake/lab_backend_factories.cpp.in"
                   "${CMAKE_CURRENT_BINARY_DIR}/${gpu_side}/backend_gpu.cu" @ONLY)
    add_library(${gpu_side} STATIC "${CMAKE_CURRENT_BINARY_DIR}/${gpu_side}/backend_gpu.cu")
    target_include_directories(${gpu_side} PUBLIC "${harness}" PRIVATE "${harness}/given"
                                                                       "${code_dir}" ${tests_dir})
    target_link_libraries(${gpu_side} PUBLIC cudalab::harness ${ARG_GPU_LIBRARIES})
    # Hopper's architecture-specific instructions (wgmma, setmaxnreg: lab
    # 02's exercise 7) exist only in code built for sm_90a, which runs on the
    # same GPUs as sm_90 code: where the build asks for 90, the labs' GPU code
    # is built for 90a (whose PTX no later GPU compiles; a build on one of
    # those targets it natively).
    set(architectures "")
    foreach(architecture IN LISTS CMAKE_CUDA_ARCHITECTURES)
      if(architecture MATCHES "^90(-real|-virtual)?$")
        string(REPLACE "90" "90a" architecture "${architecture}")
      endif()
      list(APPEND architectures "${architecture}")
    endforeach()
    set_target_properties(${gpu_side} PROPERTIES CUDA_ARCHITECTURES "${architectures}")
    list(APPEND libraries ${gpu_side})
  endif()
  target_link_libraries(${target} PUBLIC ${gpu_side} cudalab::harness ${ARG_GPU_LIBRARIES})
  if(ARG_INTERPRETER)
    # The tile interpreter: the same copy of backend_emu.cpp with
    # CUDALAB_INTERPRET=1 (programs as loops on one CPU thread, names in
    # on_interp), not instrumented: nothing to trace without CUDA threads.
    # A file of its own, since instrumentation is a property of the source file.
    file(CONFIGURE OUTPUT "${out}/backend_interp.cpp"
         CONTENT "// The tile interpreter's build of backend_emu.cpp (cmake/CudalabLab.cmake).\n#include \"backend_emu.cpp\"\n")
    add_library(${target}_interp STATIC "${out}/backend_interp.cpp")
    target_compile_definitions(${target}_interp PRIVATE CUDALAB_INTERPRET=1)
    cudalab_emu_backend_pch(${target}_interp KIND interp ${reference})
    target_include_directories(${target}_interp PUBLIC "${harness}" PRIVATE "${out}/given"
                                                                            "${code_dir}")
    # It links <target> (not the other way round: <target>'s rewrite step
    # makes the file this library compiles).
    target_link_libraries(${target}_interp PUBLIC ${target} cudalab::harness)
    list(APPEND libraries ${target}_interp)
  endif()
  foreach(library ${libraries})
    if(ARG_REFERENCE)
      target_compile_definitions(${library} PRIVATE CUDALAB_REFERENCE=1)
    endif()
    set_target_properties(${library} PROPERTIES
      CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
  endforeach()
endfunction()

# cudalab_read_lab_descriptor(<file> <prefix>): sets, in the caller,
# <prefix>_EXERCISES (numbers graded by GoogleTest), <prefix>_PYTEST
# (number;tests-file pairs), <prefix>_RUN_LIST (the C++ initialiser of
# LabInfo::exercises), <prefix>_GPU_LIBRARIES, <prefix>_INTERPRETER,
# <prefix>_VIEWS, <prefix>_BENCH and <prefix>_TEST_SCENARIOS (file names);
# a descriptor that is not what cudalab_add_lab describes is a configure
# error naming the problem.
# cudalab_json_strings(<out> <json> <member>...): the JSON array of strings
# at <member>... as a CMake list (empty for an empty array).
function(cudalab_json_strings out json)
  string(JSON count LENGTH "${json}" ${ARGN})
  set(values "")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON one GET "${json}" ${ARGN} ${i})
      list(APPEND values "${one}")
    endforeach()
  endif()
  set(${out} "${values}" PARENT_SCOPE)
endfunction()

function(cudalab_read_lab_descriptor file prefix)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "${file} is missing: every lab has a descriptor (docs/architecture.md)")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  file(READ "${file}" json)
  string(JSON count ERROR_VARIABLE error LENGTH "${json}" exercises)
  if(error)
    message(FATAL_ERROR "${file}: no list of exercises (${error})")
  endif()
  set(gtest "")
  set(pytest "")
  set(run_list "")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON number GET "${json}" exercises ${i} number)
    math(EXPR expected "${i} + 1")
    if(NOT number STREQUAL expected)
      message(FATAL_ERROR "${file}: exercise ${expected} is numbered ${number} (1, 2, ... in order)")
    endif()
    string(JSON title GET "${json}" exercises ${i} title)
    if(title STREQUAL "" OR title MATCHES "[\"\\]")
      message(FATAL_ERROR "${file}: exercise ${number} needs a title without quotes or backslashes")
    endif()
    cudalab_json_strings(files "${json}" exercises ${i} files)
    list(JOIN files ", " files)
    string(JSON graded_by ERROR_VARIABLE missing GET "${json}" exercises ${i} graded_by)
    if(missing)
      set(graded_by "")
    endif()
    set(elsewhere "")
    if(graded_by STREQUAL "pytest")
      string(JSON tests GET "${json}" exercises ${i} tests)
      list(APPEND pytest ${number} ${tests})
      set(elsewhere "./lab grade NUMBER runs its pytest cases (tests/LAB/${tests})")
    elseif(graded_by STREQUAL "")
      list(APPEND gtest ${number})
    else()
      message(FATAL_ERROR "${file}: exercise ${number}: graded_by is \"pytest\" or absent, not \"${graded_by}\"")
    endif()
    string(APPEND run_list "                                              "
           "{${number}, \"${title}\", \"${files}\", \"${elsewhere}\"},\n")
  endforeach()
  cudalab_json_strings(libraries "${json}" gpu_libraries)
  cudalab_json_strings(views "${json}" views)
  string(JSON interpreter GET "${json}" tile_interpreter)
  string(JSON bench GET "${json}" bench)
  string(JSON scenarios_type ERROR_VARIABLE missing TYPE "${json}" test_scenarios)
  set(scenarios "")
  if(NOT missing)
    cudalab_json_strings(scenarios "${json}" test_scenarios)
  endif()
  set(${prefix}_EXERCISES "${gtest}" PARENT_SCOPE)
  set(${prefix}_PYTEST "${pytest}" PARENT_SCOPE)
  set(${prefix}_RUN_LIST "${run_list}" PARENT_SCOPE)
  set(${prefix}_GPU_LIBRARIES "${libraries}" PARENT_SCOPE)
  set(${prefix}_INTERPRETER "${interpreter}" PARENT_SCOPE)
  set(${prefix}_VIEWS "${views}" PARENT_SCOPE)
  set(${prefix}_BENCH "${bench}" PARENT_SCOPE)
  set(${prefix}_TEST_SCENARIOS "${scenarios}" PARENT_SCOPE)
endfunction()

function(cudalab_add_lab dir)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "ROOT" "")
  if(NOT dir MATCHES "^([0-9][0-9])_([a-z0-9_]+)$")
    message(FATAL_ERROR "cudalab_add_lab(${dir}): a lab's folder is NN_name")
  endif()
  set(number "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  set(root "${PROJECT_SOURCE_DIR}")
  if(ARG_ROOT)
    set(root "${PROJECT_SOURCE_DIR}/${ARG_ROOT}")
  endif()
  set(lab "lab${number}")
  foreach(folder labs solutions harness tests)
    if(NOT IS_DIRECTORY "${root}/${folder}/${dir}")
      message(FATAL_ERROR "cudalab_add_lab(${dir}): ${folder}/${dir}/ does not exist")
    endif()
  endforeach()
  set(harness "${root}/harness/${dir}")
  cudalab_read_lab_descriptor("${harness}/lab.json" described)
  set(ARG_GPU_LIBRARIES ${described_GPU_LIBRARIES})
  set(interpreter "")
  if(described_INTERPRETER)
    set(interpreter INTERPRETER)
  endif()
  set(required backend.hpp backend_impl.hpp)
  if(described_BENCH)
    list(APPEND required bench_main.cu)
  elseif(EXISTS "${harness}/bench_main.cu")
    message(FATAL_ERROR "cudalab_add_lab(${dir}): harness/${dir}/bench_main.cu exists, but lab.json says \"bench\": false")
  endif()
  foreach(file ${required})
    if(NOT EXISTS "${harness}/${file}")
      message(FATAL_ERROR "cudalab_add_lab(${dir}): harness/${dir}/${file} is missing")
    endif()
  endforeach()
  file(GLOB test_sources CONFIGURE_DEPENDS "${root}/tests/${dir}/*.cpp")
  if(NOT test_sources)
    message(FATAL_ERROR "cudalab_add_lab(${dir}): tests/${dir}/ has no .cpp file")
  endif()
  set(scenarios "")
  foreach(file IN LISTS described_TEST_SCENARIOS)
    if(NOT EXISTS "${root}/tests/${dir}/${file}")
      message(FATAL_ERROR
              "cudalab_add_lab(${dir}): tests/${dir}/${file} (test_scenarios) is missing")
    endif()
    list(APPEND scenarios "${root}/tests/${dir}/${file}")
  endforeach()
  if(scenarios)
    set(scenarios TEST_SCENARIOS ${scenarios})
  endif()

  # The tests see the harness, never the lab code: one build serves both variants.
  add_library(${lab}_tests OBJECT ${test_sources})
  target_include_directories(${lab}_tests PRIVATE "${harness}")
  target_link_libraries(${lab}_tests PRIVATE cudalab::harness)

  # One reference build serves every variant.
  set(reference ${lab}_backends_reference)
  cudalab_lab_backends(${reference} "${root}/solutions/${dir}" "${harness}" REFERENCE NUMBER ${number}
                       ${interpreter} GPU_LIBRARIES ${ARG_GPU_LIBRARIES} ${scenarios})

  set(variants graded)
  if(CUDALAB_CHECK_SKELETONS)
    list(APPEND variants skeleton)
  endif()
  # ./lab mutants: test_labNN_mutant grades the lab's folder of the first
  # scratch tree (one mutant at a time) on the emulator, with the graded GPU
  # side; test_labNN_mutant_K the K-th tree's, so that K mutants build and
  # run side by side.
  set(mutant_slot 0)
  foreach(tree IN LISTS CUDALAB_MUTANT_TREE)
    math(EXPR mutant_slot "${mutant_slot} + 1")
    if(IS_DIRECTORY "${tree}/${dir}" AND NOT ARG_ROOT)
      if(mutant_slot EQUAL 1)
        list(APPEND variants mutant)
      else()
        list(APPEND variants mutant_${mutant_slot})
      endif()
      set(mutant_tree_of_mutant${mutant_slot} "${tree}")
    endif()
  endforeach()
  foreach(variant IN LISTS variants)
    set(gpu_side "")
    if(variant STREQUAL "graded")
      set(code_dir "${root}/${CUDALAB_GRADE}/${dir}")
      set(test_target test_${lab})
    elseif(variant STREQUAL "skeleton")
      set(code_dir "${root}/labs/${dir}")
      set(test_target test_${lab}_skeleton)
    else()
      string(REGEX REPLACE "^mutant_?" "" slot "${variant}")
      if(slot STREQUAL "")
        set(slot 1)
      endif()
      set(code_dir "${mutant_tree_of_mutant${slot}}/${dir}")
      set(gpu_side GPU_SIDE_OF ${lab}_backends_graded)
      set(test_target test_${lab}_${variant})
    endif()
    set(backends ${lab}_backends_${variant})
    cudalab_lab_backends(${backends} "${code_dir}" "${harness}" ${gpu_side} ${interpreter} NUMBER ${number}
                         GPU_LIBRARIES ${ARG_GPU_LIBRARIES} ${scenarios})

    add_executable(${test_target} $<TARGET_OBJECTS:${lab}_tests>)
    target_link_libraries(${test_target} PRIVATE ${backends} ${reference} cudalab_harness_main
                          $<TARGET_NAME_IF_EXISTS:${backends}_interp>
                          $<TARGET_NAME_IF_EXISTS:${reference}_interp>)
    # ENABLE_EXPORTS: the emulator names kernels by looking up their symbols.
    set_target_properties(${test_target} PROPERTIES ENABLE_EXPORTS ON)
    if(variant MATCHES "^mutant")
      # Built by ./lab mutants only, whatever mutant the tree holds.
      set_target_properties(${test_target} ${backends} PROPERTIES EXCLUDE_FROM_ALL ON)
      # Each mutant and each isolated exercise rebuilds this unit: line tables
      # only (-g1) are enough for the reports' file:line and compile about a
      # fifth faster than full debug information, which only a debugger reads.
      foreach(library ${backends} ${backends}_interp)
        if(TARGET ${library})
          target_compile_options(${library} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-g1>)
        endif()
      endforeach()
    endif()
  endforeach()

  cudalab_discover_tests(test_${lab} FILTER "*Emu*" LABELS ${lab} emu)
  cudalab_discover_tests(test_${lab} FILTER "*Gpu*" LABELS ${lab} gpu)
  if(described_INTERPRETER)
    cudalab_discover_tests(test_${lab} FILTER "*Interp*" LABELS ${lab} interp)
  endif()

  if(CUDALAB_CHECK_SKELETONS)
    foreach(k IN LISTS described_EXERCISES)
      add_test(NAME ${lab}.skeleton_fails_exercise_${k}
               COMMAND test_${lab}_skeleton "--gtest_filter=*Ex${k}_*")
      set_tests_properties(${lab}.skeleton_fails_exercise_${k} PROPERTIES
        WILL_FAIL TRUE LABELS "skeleton;${lab}")
    endforeach()
  endif()

  set(NUMBER "${number}")
  set(NAME "${name}")
  string(REPLACE "LAB" "${dir}" EXERCISES "${described_RUN_LIST}")
  string(REPLACE "NUMBER" "${number}" EXERCISES "${EXERCISES}")
  set(CODE_FROM "${CUDALAB_GRADE}")
  set(run_main "${CMAKE_CURRENT_BINARY_DIR}/${lab}_run_main.cpp")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/lab_run_main.cpp.in" "${run_main}" @ONLY)
  add_executable(${lab} "${run_main}" $<TARGET_OBJECTS:${lab}_tests>)
  target_link_libraries(${lab} PRIVATE ${lab}_backends_graded ${reference}
                        $<TARGET_NAME_IF_EXISTS:${lab}_backends_graded_interp>
                        $<TARGET_NAME_IF_EXISTS:${reference}_interp>)
  set_target_properties(${lab} PROPERTIES ENABLE_EXPORTS ON)

  # The benchmark times the GPU backend: only in a build that has one.
  if(described_BENCH AND CUDALAB_GPU_BACKENDS)
    add_executable(${lab}_bench "${harness}/bench_main.cu")
    target_link_libraries(${lab}_bench PRIVATE ${lab}_backends_graded cudalab::bench)
  endif()

  # labNN_ranks: the lab on as many ranks as asked (`./lab run NN --ranks N`),
  # and one process per GPU under mpirun (--mpi) where CMake finds MPI.
  if(EXISTS "${harness}/ranks_main.cpp")
    add_executable(${lab}_ranks "${harness}/ranks_main.cpp")
    target_link_libraries(${lab}_ranks PRIVATE ${lab}_backends_graded)
    set_target_properties(${lab}_ranks PROPERTIES ENABLE_EXPORTS ON)
    find_package(MPI COMPONENTS CXX QUIET)
    if(MPI_CXX_FOUND)
      target_link_libraries(${lab}_ranks PRIVATE MPI::MPI_CXX)
      target_compile_definitions(${lab}_ranks PRIVATE CUDALAB_WITH_MPI=1)
    endif()
  endif()

  # An exercise graded by pytest: the lab's PyTorch operator.
  list(LENGTH described_PYTEST pytest_items)
  if(pytest_items GREATER 0)
    list(GET described_PYTEST 0 exercise)
    list(GET described_PYTEST 1 tests)
    if(pytest_items GREATER 2)
      message(FATAL_ERROR "cudalab_add_lab(${dir}): one exercise per lab may be graded by pytest")
    endif()
    cudalab_add_torch_op(${number} ${name} EXERCISE ${exercise} TESTS tests/${dir}/${tests})
  endif()

  if(NOT ARG_ROOT)
    set_property(GLOBAL APPEND PROPERTY CUDALAB_LABS "${dir}")
    set_property(GLOBAL PROPERTY CUDALAB_VIEWS_OF_${number} "${described_VIEWS}")
  endif()
endfunction()
