# Fails when FILE's symbol table names a CUDA runtime symbol (cudaMalloc,
# __cudaRegisterFatBinary, ...), defined or undefined: emulator code must
# never reach libcudart. The emulator's own runtime functions are C++
# (cudalab::emu::cudaMalloc), so their symbols are mangled (_ZN7cudalab3emu...)
# and do not match.
#   cmake -DNM=<nm> -DFILE=<library or executable> -P no_libcudart.cmake
execute_process(COMMAND "${NM}" "${FILE}" OUTPUT_VARIABLE symbols ERROR_VARIABLE errors
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} ${FILE} failed: ${errors}")
endif()
string(REGEX MATCHALL "[ \t][A-Za-z][ \t]_*cuda[A-Za-z0-9_]*" found "${symbols}")
if(found)
  list(REMOVE_DUPLICATES found)
  string(REPLACE ";" "\n" found "${found}")
  message(FATAL_ERROR "${FILE} reaches the CUDA runtime library:\n${found}")
endif()
message(STATUS "${FILE}: no CUDA runtime symbol")
