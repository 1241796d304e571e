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

// True when a fault at `address` on this OS thread is the current CUDA
// thread running off the end of its stack (into the guard page below it, or
// past it by a large local array). Signal-handler safe.
bool is_stack_overflow(const void* address) noexcept;

// Inside a signal handler: the interrupted instruction (as a return address,
// one past it) and then its callers, innermost first, into `out` (at most
// `capacity`); returns how many. `context` is the handler's third argument.
// Signal-handler safe once backtrace() has been called outside one (it loads
// the unwinder on its first call).
int interrupted_stack(void* context, void** out, int capacity) noexcept;

// The emulator's stack size per CUDA thread, for the words of that report.
std::size_t cuda_thread_stack_bytes() noexcept;

}  // namespace cudalab::emu
