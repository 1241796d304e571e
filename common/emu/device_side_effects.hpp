// Internal to the emulator library: what device printf, device assert and
// managed memory (device_printf.cpp, device_assert.cpp, managed_memory.cpp)
// need to hear from the runtime's launches and synchronisation points.
#pragma once

#include <driver_types.h>

#include <string>

namespace cudalab::emu::detail {

// ---- device printf (device_printf.cpp) ----
// Writes `device`'s buffered printf output to stdout and its assertion
// messages to stderr, and empties the FIFO (-1: the current device). The
// GPU's flush points call it: a launch (before it starts), a host
// synchronisation, a blocking copy, a host function, cudaDeviceReset.
void flush_device_output(int device = -1);
// An assertion message, as the GPU prints it, for `device`'s next flush.
void buffer_assert_message(int device, std::string message);
// cudaDeviceReset: the FIFO's size is the default again and may be set.
void reset_device_output(int device);

// ---- sticky errors (device_assert.cpp) ----
// cudaErrorAssert stays set on its device until cudaDeviceReset; every call
// that reaches the device returns it meanwhile. cudaSuccess if none.
cudaError_t sticky_error(int device = -1) noexcept;
void set_sticky_error(int device, cudaError_t error) noexcept;
void clear_sticky_error(int device) noexcept;

// ---- managed memory (managed_memory.cpp) ----
// A kernel was launched on `device`: until the host synchronises with it,
// host access to managed memory attached globally is an error.
void managed_kernel_launched(int device, const void* kernel);
// Emulated device work (a kernel, a queued copy) runs on this host thread
// between these calls: managed memory is reachable meanwhile.
void device_work_begins();
void device_work_ends();
// The host waited for `device`'s work: all of it (`all_of_device`), or part
// (then the device counts as idle only when nothing of it is queued).
void host_synchronised(int device, bool all_of_device);
// cudaFree of a managed allocation: it leaves the managed set.
void forget_managed(const void* ptr);
// True when `device` has queued operations not yet run (stream_scheduler.cpp).
bool device_has_queued_work(int device);

}  // namespace cudalab::emu::detail
