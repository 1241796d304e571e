# cudalab_must_not_compile(<prefix> <label> "<case>|<expected message>"...)
#
# Code that must not compile: for each case, the source
# must_not_compile/<case>.cpp (beside the calling CMakeLists.txt) becomes an
# object library outside `all` (linked with cudalab::emu: the host compiler's
# view of CUDA code), and the test <prefix>.must_not_compile.<case> builds it
# and passes only when the build fails with a message matching <expected>.
function(cudalab_must_not_compile prefix label)
  foreach(entry IN LISTS ARGN)
    string(REPLACE "|" ";" entry "${entry}")
    list(GET entry 0 case)
    list(GET entry 1 expected)
    set(target ${prefix}_must_not_compile_${case})
    add_library(${target} OBJECT EXCLUDE_FROM_ALL
      "${CMAKE_CURRENT_SOURCE_DIR}/must_not_compile/${case}.cpp")
    target_link_libraries(${target} PRIVATE cudalab::emu)
    add_test(NAME ${prefix}.must_not_compile.${case}
             COMMAND "${CMAKE_COMMAND}" --build "${CMAKE_BINARY_DIR}" --config $<CONFIG>
                     --target ${target})
    # Two builds of one tree must not run at once.
    set_tests_properties(${prefix}.must_not_compile.${case} PROPERTIES LABELS ${label}
      PASS_REGULAR_EXPRESSION "${expected}" RESOURCE_LOCK cudalab_build_tree)
  endforeach()
endfunction()
