// cudaProfilerStart/cudaProfilerStop (<cuda_profiler_api.h>): they bound the
// region a profiler (Nsight Systems' --capture-range=cudaProfilerApi, ncu's
// --profile-from-start off) records. No profiler attaches to the emulator,
// so both succeed and do nothing, as they do on a GPU run without one.
#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu {

cudaError_t cudaProfilerStart() { return cudaSuccess; }

cudaError_t cudaProfilerStop() { return cudaSuccess; }

}  // namespace cudalab::emu
