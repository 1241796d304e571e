// Page-locking memory the program already owns (cudaHostRegister) and the
// device address of page-locked memory (cudaHostGetDevicePointer). Registered
// memory behaves as cudaMallocHost's: async copies from or to it stay async
// (allocations.cpp keeps both in one registry). With unified addressing, the
// device address is the host address, as on the GPU.
#include "cudalab/emu/runtime.hpp"
#include "engine.hpp"

namespace cudalab::emu {

namespace {
cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }
}  // namespace

cudaError_t cudaHostRegister(void* ptr, std::size_t size, unsigned int flags) {
  constexpr unsigned known = cudaHostRegisterPortable | cudaHostRegisterMapped |
                             cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;
  if (!ptr || size == 0 || (flags & ~known)) return fail(cudaErrorInvalidValue);
  // The emulator has no memory-mapped I/O space for ordinary memory to be.
  if (flags & cudaHostRegisterIoMemory) return fail(cudaErrorInvalidValue);
  const cudaError_t e = detail::register_pinned(ptr, size);
  return e == cudaSuccess ? e : fail(e);
}

cudaError_t cudaHostUnregister(void* ptr) {
  if (!ptr) return fail(cudaErrorInvalidValue);
  // Only the start of a registered range; cudaMallocHost's memory is freed
  // with cudaFreeHost instead.
  const cudaError_t e = detail::unregister_pinned(ptr);
  return e == cudaSuccess ? e : fail(e);
}

cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags) {
  if (!device_ptr || !host_ptr || flags != 0) return fail(cudaErrorInvalidValue);
  if (!detail::is_pinned(host_ptr, 1)) return fail(cudaErrorInvalidValue);
  *device_ptr = host_ptr;
  return cudaSuccess;
}

}  // namespace cudalab::emu
