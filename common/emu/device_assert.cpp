// Device assert: glibc's assert() calls __assert_fail, which the emulator
// defines (the program's definition wins over libc's), so that a failing
// assert in a kernel does what it does on the GPU: the thread's message,
// in the GPU's format, goes to stderr at the next flush point, the launch
// fails with cudaErrorAssert and the device keeps that error until
// cudaDeviceReset. In host code it is glibc's assert, message and abort().
// Interposing the function rather than redefining the assert macro keeps
// NDEBUG, <cassert> included after the shim and asserts in headers working
// unchanged.
#include <assert.h>
#include <errno.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "block_run.hpp"
#include "device_side_effects.hpp"
#include "engine.hpp"

namespace cudalab::emu::detail {

namespace {
std::atomic<cudaError_t> sticky[kMaxDevices];
}  // namespace

cudaError_t sticky_error(int device) noexcept {
  return sticky[device < 0 ? current_device() : device].load(std::memory_order_acquire);
}

void set_sticky_error(int device, cudaError_t error) noexcept {
  sticky[device].store(error, std::memory_order_release);
}

void clear_sticky_error(int device) noexcept {
  sticky[device].store(cudaSuccess, std::memory_order_release);
}

namespace {

[[noreturn]] void device_assert_failed(BlockRun& run, const char* assertion, const char* file,
                                       unsigned line, const char* function) {
  const CheckingAnAccess quiet;
  const ThreadState& thread = *current_thread;
  const uint3 b = run.info.block_idx;
  const uint3 t = thread.thread_idx;
  char where[160];
  std::snprintf(where, sizeof where, "block: [%u,%u,%u], thread: [%u,%u,%u]", b.x, b.y, b.z, t.x,
                t.y, t.z);
  // The GPU's line: file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `expr` failed.
  buffer_assert_message(run.launch->device, std::string(file) + ":" + std::to_string(line) + ": " +
                                                function + ": " + where + " Assertion `" +
                                                assertion + "` failed.\n");
  Report r;
  r.kind = ReportKind::device_assert;
  r.kernel = run.launch->name;
  r.where = thread_id_of(run.info, thread.linear);
  r.file = file;
  r.line = line;
  r.message = std::string("Device-side assertion `") + assertion + "` failed in " + function +
              ": the launch fails with cudaErrorAssert, and every later call on this device "
              "returns it until cudaDeviceReset, as on the GPU";
  run.launch->report(std::move(r), cudaErrorAssert, SiteRef());
  run.abort_block();
}

}  // namespace

}  // namespace cudalab::emu::detail

extern "C" void __assert_fail(const char* assertion, const char* file, unsigned int line,
                              const char* function) noexcept {
  using namespace cudalab::emu::detail;
  if (BlockRun* run = current_thread->run) {
    device_assert_failed(*run, assertion, file, line, function ? function : "");
  }
  // glibc's own message, word for word.
  std::fprintf(stderr, "%s%s%s:%u: %s%sAssertion `%s' failed.\n", program_invocation_short_name,
               program_invocation_short_name[0] ? ": " : "", file, line, function ? function : "",
               function ? ": " : "", assertion);
  std::fflush(stderr);
  std::abort();
}
