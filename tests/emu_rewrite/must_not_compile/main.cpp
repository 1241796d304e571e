// Compiles the rewritten copy of one must_not_compile/*.cuh, which must fail.
#include CUDALAB_MUST_NOT_COMPILE
