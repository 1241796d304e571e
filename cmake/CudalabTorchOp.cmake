# cudalab_add_torch_op(<NN> <name> EXERCISE <k> TESTS <pytest file>)
#
# Lab NN's PyTorch custom operator (lab 01, exercise 6), built with PyTorch's
# own CMake package into a shared library that Python loads with
# torch.ops.load_library:
#   lab<NN>_torch_op           over the graded code (CUDALAB_GRADE)
#   lab<NN>_torch_op_skeleton  over labs/, with CUDALAB_CHECK_SKELETONS
# Each holds harness/NN_name/torch_op_emu.cpp, which includes the lab's
# operator file, rewritten for the emulator and instrumented like a lab's
# emulator unit (the schema and the CPU implementation: the kernel runs on
# the emulator), and, where the PyTorch found has CUDA of nvcc's version,
# torch_op_gpu.cu, by nvcc (the CUDA implementation).
#
# TESTS (a pytest file) runs under ctest, one test per `def test_...` of it
# and device, named <Backend>/TorchOp.Ex<k>_<name without test_> and labelled
# lab<NN> plus emu (CPU tensors) or gpu (CUDA tensors; functions named
# test_cuda_* exist only there). The file reads the library's path from
# CUDALAB_TORCH_OP and the device from CUDALAB_TORCH_DEVICE (cpu or cuda).
# With CUDALAB_CHECK_SKELETONS, lab<NN>.skeleton_fails_exercise_<k> passes
# only when the skeleton's operator fails the CPU tests.
#
# The interpreter whose PyTorch is used: CUDALAB_PYTHON (cache variable or
# environment), else `python3` on PATH if it imports torch, else
# /usr/bin/python3 if it does (Debian's python3-torch). Without one, or
# without pytest, configure says so in one line and the exercise's tests are
# not registered.
include_guard(GLOBAL)

set(CUDALAB_PYTHON "" CACHE FILEPATH
    "Python interpreter whose PyTorch builds and tests the labs' PyTorch operators")

# Sets <prefix>_PYTHON, _VERSION, _CMAKE_PREFIX, _CUDA (torch.version.cuda or
# empty) and _PYTEST (TRUE/FALSE) for the first interpreter that imports
# torch, or <prefix>_PYTHON to "" and <prefix>_WHY_NOT to the reason.
function(cudalab_find_torch_python prefix)
  if(CUDALAB_PYTHON)
    set(candidates "${CUDALAB_PYTHON}")
  elseif(DEFINED ENV{CUDALAB_PYTHON} AND NOT "$ENV{CUDALAB_PYTHON}" STREQUAL "")
    set(candidates "$ENV{CUDALAB_PYTHON}")
  else()
    find_program(cudalab_python3_on_path NAMES python3 NO_CACHE)
    set(candidates ${cudalab_python3_on_path} /usr/bin/python3)
  endif()
  set(probe [=[
import importlib.util, torch, torch.utils
print(torch.__version__)
print(torch.utils.cmake_prefix_path)
print(torch.version.cuda or "")
print(importlib.util.find_spec("pytest") is not None)
]=])
  set(tried "")
  foreach(python IN LISTS candidates)
    if(NOT EXISTS "${python}" OR python IN_LIST tried)
      continue()
    endif()
    list(APPEND tried "${python}")
    execute_process(COMMAND "${python}" -c "${probe}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0)
      string(REPLACE "\n" ";" lines "${out}")
      list(GET lines 0 version)
      list(GET lines 1 cmake_prefix)
      list(GET lines 2 cuda)
      list(GET lines 3 pytest)
      set(${prefix}_PYTHON "${python}" PARENT_SCOPE)
      set(${prefix}_VERSION "${version}" PARENT_SCOPE)
      set(${prefix}_CMAKE_PREFIX "${cmake_prefix}" PARENT_SCOPE)
      set(${prefix}_CUDA "${cuda}" PARENT_SCOPE)
      if(pytest STREQUAL "True")
        set(${prefix}_PYTEST TRUE PARENT_SCOPE)
      else()
        set(${prefix}_PYTEST FALSE PARENT_SCOPE)
      endif()
      return()
    endif()
  endforeach()
  set(${prefix}_PYTHON "" PARENT_SCOPE)
  if(tried)
    list(JOIN tried ", " tried)
    set(${prefix}_WHY_NOT "no 'import torch' in ${tried}" PARENT_SCOPE)
  else()
    set(${prefix}_WHY_NOT "no python3 found" PARENT_SCOPE)
  endif()
endfunction()

# lab<NN>_torch_op[_skeleton] over the lab code in <code_dir>.
function(cudalab_torch_op_library target code_dir harness with_cuda)
  file(GLOB code_files CONFIGURE_DEPENDS "${code_dir}/*.cuh" "${code_dir}/*.hpp" "${code_dir}/*.h")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_emu")
  cudalab_emu_rewrite(emu_dir code_copies BASE_DIR "${code_dir}" OUT_DIR "${out}"
                      FILES ${code_files})
  cudalab_emu_rewrite(emu_dir harness_copies BASE_DIR "${harness}" OUT_DIR "${out}"
                      FILES "${harness}/torch_op_emu.cpp")
  set(sources ${harness_copies} ${code_copies})
  if(with_cuda)
    list(APPEND sources "${harness}/torch_op_gpu.cu")
  endif()
  # MODULE: loaded at run time (torch.ops.load_library), never linked against.
  add_library(${target} MODULE ${sources})
  cudalab_emu_instrument(${target} "${out}/torch_op_emu.cpp")
  # The GPU file's quoted #include finds the original; the emulator's copy
  # finds the copies in its own folder first.
  target_include_directories(${target} PRIVATE "${code_dir}")
  target_link_libraries(${target} PRIVATE cudalab_options cudalab::common cudalab::emu
                                          ${TORCH_LIBRARIES})
  if(with_cuda)
    target_link_libraries(${target} PRIVATE CUDA::cudart)
  endif()
  set_target_properties(${target} PROPERTIES PREFIX "" CUDA_SEPARABLE_COMPILATION OFF
                                             POSITION_INDEPENDENT_CODE ON)
endfunction()

function(cudalab_add_torch_op number name)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "EXERCISE;TESTS" "")
  set(dir "${number}_${name}")
  set(lab "lab${number}")
  set(what "lab ${number} exercise ${ARG_EXERCISE}")
  set(harness "${PROJECT_SOURCE_DIR}/harness/${dir}")
  set(tests "${PROJECT_SOURCE_DIR}/${ARG_TESTS}")

  cudalab_find_torch_python(torch)
  # ./lab bench reads these from the cache: every lab's PyTorch anchors use
  # the interpreter the build found, or say why there is none.
  set(CUDALAB_TORCH_PYTHON "${torch_PYTHON}" CACHE INTERNAL "python3 whose torch the build uses")
  set(CUDALAB_TORCH_WHY_NOT "${torch_WHY_NOT}" CACHE INTERNAL "why no python3 with torch")
  if(NOT torch_PYTHON)
    message(STATUS "${what} needs PyTorch: ${torch_WHY_NOT}; install python3-torch and "
                   "libtorch-dev, or set CUDALAB_PYTHON to a python3 that has torch")
    return()
  endif()
  # Debian's torch names a prefix that does not hold its CMake files; the
  # default search (/usr/lib/<arch>/cmake/Torch) finds them there.
  find_package(Torch QUIET HINTS "${torch_CMAKE_PREFIX}")
  if(NOT Torch_FOUND)
    message(STATUS "${what} needs PyTorch's CMake package (TorchConfig.cmake, Debian's "
                   "libtorch-dev), not found for torch ${torch_VERSION} of ${torch_PYTHON}")
    return()
  endif()
  # The CUDA implementation needs a PyTorch with CUDA of nvcc's major version.
  set(with_cuda FALSE)
  set(cuda_note "CPU tensors only: this PyTorch has no CUDA")
  if(torch_CUDA)
    string(REGEX MATCH "^[0-9]+" torch_cuda_major "${torch_CUDA}")
    string(REGEX MATCH "^[0-9]+" nvcc_major "${CMAKE_CUDA_COMPILER_VERSION}")
    if(torch_cuda_major STREQUAL nvcc_major)
      set(with_cuda TRUE)
      set(cuda_note "CPU and CUDA tensors")
    else()
      set(cuda_note "CPU tensors only: this PyTorch has CUDA ${torch_CUDA}, nvcc is "
                    "${CMAKE_CUDA_COMPILER_VERSION}")
    endif()
  endif()
  message(STATUS "${what}: torch ${torch_VERSION} of ${torch_PYTHON}, ${cuda_note}")

  set(code_dir "${PROJECT_SOURCE_DIR}/${CUDALAB_GRADE}/${dir}")
  cudalab_torch_op_library(${lab}_torch_op "${code_dir}" "${harness}" ${with_cuda})
  if(CUDALAB_CHECK_SKELETONS)
    cudalab_torch_op_library(${lab}_torch_op_skeleton "${PROJECT_SOURCE_DIR}/labs/${dir}"
                             "${harness}" ${with_cuda})
  endif()

  if(NOT torch_PYTEST)
    message(STATUS "${what}'s tests need pytest for ${torch_PYTHON} (Debian: python3-pytest)")
    return()
  endif()
  # ./lab grade runs the whole file in one pytest process (torch is imported
  # once, not once per test): what it needs, as shell assignments.
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/${lab}_torch_op_grading.sh" CONTENT
       "python='${torch_PYTHON}'\ntests='${tests}'\nexercise=${ARG_EXERCISE}\nlibrary='$<TARGET_FILE:${lab}_torch_op>'\n")
  # One ctest per test function, read from the file; a new function is
  # picked up when the file changes.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${tests}")
  file(STRINGS "${tests}" definitions REGEX "^def test_[A-Za-z0-9_]+\\(")
  set(pytest "${torch_PYTHON}" -m pytest -p no:cacheprovider -rs)
  foreach(definition IN LISTS definitions)
    string(REGEX REPLACE "^def test_([A-Za-z0-9_]+)\\(.*" "\\1" function "${definition}")
    foreach(backend Emu Gpu)
      if(backend STREQUAL "Emu")
        if(function MATCHES "^cuda_")
          continue()
        endif()
        set(device cpu)
        set(labels "${lab};emu")
      else()
        set(device cuda)
        set(labels "${lab};gpu")
      endif()
      set(test "${backend}/TorchOp.Ex${ARG_EXERCISE}_${function}")
      add_test(NAME "${test}" COMMAND ${pytest} "${tests}::test_${function}")
      set_tests_properties("${test}" PROPERTIES LABELS "${labels}"
        TIMEOUT ${CUDALAB_TEST_TIMEOUT}
        ENVIRONMENT "CUDALAB_TORCH_OP=$<TARGET_FILE:${lab}_torch_op>;CUDALAB_TORCH_DEVICE=${device}"
        # Only when every case was skipped (no GPU): pytest's summary then
        # starts with the skipped count.
        SKIP_REGULAR_EXPRESSION "(=|\n) ?[0-9]+ skipped")
      if(backend STREQUAL "Gpu")
        set_tests_properties("${test}" PROPERTIES RESOURCE_LOCK gpu)
      endif()
    endforeach()
  endforeach()

  if(CUDALAB_CHECK_SKELETONS)
    set(test "${lab}.skeleton_fails_exercise_${ARG_EXERCISE}")
    add_test(NAME "${test}" COMMAND ${pytest} -x "${tests}")
    set_tests_properties("${test}" PROPERTIES WILL_FAIL TRUE LABELS "skeleton;${lab}"
      TIMEOUT ${CUDALAB_TEST_TIMEOUT}
      ENVIRONMENT "CUDALAB_TORCH_OP=$<TARGET_FILE:${lab}_torch_op_skeleton>;CUDALAB_TORCH_DEVICE=cpu")
  endif()
endfunction()
