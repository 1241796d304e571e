// PTX's cp.async on both backends: 16-byte copies from global to shared
// memory that do not pass through registers and need not finish before the
// thread goes on, so a kernel can have several stages of a tile in flight.
//
//   cudalab::cp_async_16(smem, gmem)                cp.async.cg.shared.global [smem], [gmem], 16
//   cudalab::cp_async_16_zfill(smem, gmem, bytes)   ... 16, bytes: the first `bytes` (0..16)
//                                                   are copied, the rest of the 16 set to zero
//                                                   (bytes = 0 reads nothing: edges of a matrix)
//   cudalab::cp_async_commit()                      cp.async.commit_group: the copies issued
//                                                   since the last commit form one group
//   cudalab::cp_async_wait<N>()                     cp.async.wait_group N: wait until at most N
//                                                   of this thread's groups are unfinished
//   cudalab::cp_async_wait_all()                    cp.async.wait_all
//
// Both addresses 16-byte aligned. A wait covers only the calling thread's
// copies: other threads see them after a __syncthreads() that follows it.
//
// On the emulator a copy completes when it is issued (allowed: a wait only
// bounds completion from above), as a traced global read and shared write
// by the issuing thread; commit and wait do nothing.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)

namespace cudalab {

__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem) {
  const unsigned destination = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(destination), "l"(gmem)
               : "memory");
}

__device__ __forceinline__ void cp_async_16_zfill(void* smem, const void* gmem, int bytes) {
  const unsigned destination = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(destination), "l"(gmem),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}

}  // namespace cudalab

#else

#include <vector_types.h>

namespace cudalab {

// always_inline: the accesses are compiled into the caller's instrumented
// code, so the emulator traces and checks them as the kernel's own.
[[gnu::always_inline]] inline void cp_async_16(void* smem, const void* gmem) {
  *static_cast<uint4*>(smem) = *static_cast<const uint4*>(gmem);
}

[[gnu::always_inline]] inline void cp_async_16_zfill(void* smem, const void* gmem, int bytes) {
  if (bytes >= 16) {
    cp_async_16(smem, gmem);
    return;
  }
  std::uint32_t words[4] = {0, 0, 0, 0};
  // volatile byte reads: a plain copy loop may become a memcpy call, which
  // the instrumentation does not see.
  const volatile unsigned char* source = static_cast<const volatile unsigned char*>(gmem);
  for (int i = 0; i < bytes; ++i)
    words[i / 4] |= static_cast<std::uint32_t>(source[i]) << (8 * (i % 4));
  *static_cast<uint4*>(smem) = uint4{words[0], words[1], words[2], words[3]};
}

inline void cp_async_commit() {}

template <int N>
inline void cp_async_wait() {}

inline void cp_async_wait_all() {}

}  // namespace cudalab

#endif
