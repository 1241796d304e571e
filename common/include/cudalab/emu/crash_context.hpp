// Which CUDA thread the emulator is running on this OS thread, in words, for
// reports written while the process is dying (a segmentation fault inside a
// kernel): "kernel scale_kernel(...), block (3,0,0) thread (17,0,0)".
#pragma once

#include <cstddef>

namespace cudalab::emu {

// Writes the description into `buffer` (NUL-terminated, cut to `size`) and
// returns true inside a kernel; false on host code. Does not allocate, so a
// signal handler may call it.
bool describe_current_cuda_thread(char* buffer, std::size_t size) noexcept;

}  // namespace cudalab::emu
