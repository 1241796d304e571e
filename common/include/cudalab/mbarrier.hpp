// PTX's mbarrier on both backends: a 64-bit barrier word in shared memory
// whose phase completes when its expected arrivals are in and the
// transaction bytes it was told to expect (expect_tx) have landed, so that
// asynchronous copies (cp.async.bulk, later TMA) can complete a phase
// without any thread arriving for them.
//
//   cudalab::mbarrier_init(bar, count)          mbarrier.init: `count` arrivals per phase
//   cudalab::fence_mbarrier_init()              fence.mbarrier_init: make the init visible
//                                               (then __syncthreads() before other threads use it)
//   cudalab::mbarrier_arrive(bar)               mbarrier.arrive; returns the phase's token
//   cudalab::mbarrier_arrive_expect_tx(bar, n)  mbarrier.arrive.expect_tx: arrive and expect
//                                               n more transaction bytes in this phase
//   cudalab::mbarrier_arrive_drop(bar)          mbarrier.arrive_drop: arrive, and count one
//                                               arrival fewer in every later phase
//   cudalab::mbarrier_expect_tx(bar, n)         mbarrier.expect_tx (no arrival)
//   cudalab::mbarrier_complete_tx(bar, n)       mbarrier.complete_tx: n bytes completed by hand
//   cudalab::mbarrier_try_wait_parity(bar, p)   mbarrier.try_wait.parity: true once the phase
//                                               of parity p (0, 1, 0, ...) has completed; may
//                                               give up after a time on the GPU, so loop
//   cudalab::mbarrier_test_wait_parity(bar, p)  mbarrier.test_wait.parity: the same, no waiting
//   cudalab::mbarrier_wait_parity(bar, p)       try_wait.parity until true
//   cudalab::mbarrier_inval(bar)                mbarrier.inval: the word is plain memory again
//   cudalab::bulk_copy_to_shared(dst, src, n, bar)
//                                               cp.async.bulk.shared::cluster.global
//                                               .mbarrier::complete_tx::bytes: n bytes (a
//                                               multiple of 16, both addresses 16-byte
//                                               aligned) that complete n transaction bytes
//   cudalab::fence_proxy_async_shared()         fence.proxy.async.shared::cta: order this
//                                               thread's shared stores before async copies
//
// sm_90 for expect_tx, complete_tx, try_wait, the bulk copy and the fences.
//
// On the emulator a model (cudalab/emu/mbarrier.hpp): a thread waiting on a
// phase that has not completed parks until it does; a bulk copy's bytes are
// pending until its phase completes, and a thread touching them before is an
// intra_block_race report; a phase that can never complete (a missing
// arrival, expect_tx bytes that never come) is an `mbarrier` report naming
// the barrier, its arrivals and bytes and the threads waiting, not a hang.
// test_wait waits like try_wait there (a true answer is always allowed).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)

namespace cudalab {

namespace mbarrier_detail {
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
}  // namespace mbarrier_detail

__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, unsigned count) {
  asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(mbarrier_detail::shared_address(bar)),
      "r"(count)
      : "memory");
}

__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void mbarrier_inval(std::uint64_t* bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(mbarrier_detail::shared_address(bar))
               : "memory");
}

__device__ __forceinline__ std::uint64_t mbarrier_arrive(std::uint64_t* bar) {
  std::uint64_t token;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
               : "=l"(token)
               : "r"(mbarrier_detail::shared_address(bar))
               : "memory");
  return token;
}

__device__ __forceinline__ std::uint64_t mbarrier_arrive_expect_tx(std::uint64_t* bar,
                                                                   std::uint32_t bytes) {
  std::uint64_t token;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
               : "=l"(token)
               : "r"(mbarrier_detail::shared_address(bar)), "r"(bytes)
               : "memory");
  return token;
}

__device__ __forceinline__ std::uint64_t mbarrier_arrive_drop(std::uint64_t* bar) {
  std::uint64_t token;
  asm volatile("mbarrier.arrive_drop.shared::cta.b64 %0, [%1];"
               : "=l"(token)
               : "r"(mbarrier_detail::shared_address(bar))
               : "memory");
  return token;
}

__device__ __forceinline__ void mbarrier_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                   mbarrier_detail::shared_address(bar)),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbarrier_complete_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                   mbarrier_detail::shared_address(bar)),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ bool mbarrier_try_wait_parity(std::uint64_t* bar, unsigned parity) {
  unsigned done;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      " selp.u32 %0, 1, 0, p;\n}"
      : "=r"(done)
      : "r"(mbarrier_detail::shared_address(bar)), "r"(parity)
      : "memory");
  return done != 0;
}

__device__ __forceinline__ bool mbarrier_test_wait_parity(std::uint64_t* bar, unsigned parity) {
  unsigned done;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      " selp.u32 %0, 1, 0, p;\n}"
      : "=r"(done)
      : "r"(mbarrier_detail::shared_address(bar)), "r"(parity)
      : "memory");
  return done != 0;
}

__device__ __forceinline__ void mbarrier_wait_parity(std::uint64_t* bar, unsigned parity) {
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
}

__device__ __forceinline__ void bulk_copy_to_shared(void* dst, const void* src, std::uint32_t bytes,
                                                    std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(mbarrier_detail::shared_address(dst)),
      "l"(src), "r"(bytes), "r"(mbarrier_detail::shared_address(bar))
      : "memory");
}

}  // namespace cudalab

#else

#include <source_location>

#include "cudalab/emu/mbarrier.hpp"

namespace cudalab {

inline void mbarrier_init(std::uint64_t* bar, unsigned count,
                          std::source_location site = std::source_location::current()) {
  emu::mbarrier_init(bar, count, site);
}

// The emulator's threads share one memory with no reordering to fence.
inline void fence_mbarrier_init() {}
inline void fence_proxy_async_shared() {}

inline void mbarrier_inval(std::uint64_t* bar,
                           std::source_location site = std::source_location::current()) {
  emu::mbarrier_inval(bar, site);
}

inline std::uint64_t mbarrier_arrive(std::uint64_t* bar,
                                     std::source_location site = std::source_location::current()) {
  return emu::mbarrier_arrive(bar, 1, 0, false, site);
}

inline std::uint64_t mbarrier_arrive_expect_tx(
    std::uint64_t* bar, std::uint32_t bytes,
    std::source_location site = std::source_location::current()) {
  return emu::mbarrier_arrive(bar, 1, bytes, false, site);
}

inline std::uint64_t mbarrier_arrive_drop(
    std::uint64_t* bar, std::source_location site = std::source_location::current()) {
  return emu::mbarrier_arrive(bar, 1, 0, true, site);
}

inline void mbarrier_expect_tx(std::uint64_t* bar, std::uint32_t bytes,
                               std::source_location site = std::source_location::current()) {
  emu::mbarrier_expect_tx(bar, bytes, site);
}

inline void mbarrier_complete_tx(std::uint64_t* bar, std::uint32_t bytes,
                                 std::source_location site = std::source_location::current()) {
  emu::mbarrier_complete_tx(bar, bytes, site);
}

inline bool mbarrier_try_wait_parity(std::uint64_t* bar, unsigned parity,
                                     std::source_location site = std::source_location::current()) {
  return emu::mbarrier_wait_parity(bar, parity, site);
}

inline bool mbarrier_test_wait_parity(std::uint64_t* bar, unsigned parity,
                                      std::source_location site = std::source_location::current()) {
  return emu::mbarrier_wait_parity(bar, parity, site);
}

inline void mbarrier_wait_parity(std::uint64_t* bar, unsigned parity,
                                 std::source_location site = std::source_location::current()) {
  emu::mbarrier_wait_parity(bar, parity, site);
}

// noinline: its return address is the kernel's call, where the copy's
// checked accesses are reported (inlined, they would name this line).
[[gnu::noinline]] inline void bulk_copy_to_shared(
    void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar,
    std::source_location site = std::source_location::current()) {
  emu::async_copy_on_barrier(dst, src, bytes, bar, true, 16, __builtin_return_address(0), site);
}

}  // namespace cudalab

#endif
