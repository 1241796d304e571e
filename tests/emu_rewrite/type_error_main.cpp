// Compiles the rewritten copy of must_not_compile/type_error.cuh, which must fail.
#include "type_error.cuh"
