// The emulator's model of the hardware's mbarrier and of the asynchronous
// copies that complete on one (common/emu/mbarrier.cpp). Kernels reach it
// through cudalab/mbarrier.hpp and the <cuda/barrier>, <cuda/pipeline>
// shims, never directly.
//
// An mbarrier is a 64-bit word of shared memory. The emulator keeps what the
// GPU encodes in it (the phase, the arrivals still missing, the expected
// count, the transaction bytes still to come) in its own table keyed by the
// word's address, so a block that uses none pays nothing. Copies tied to a
// barrier (cuda::memcpy_async, cp.async.bulk) complete late: their bytes are
// pending until the barrier's phase completes, and a thread that touches them
// before is reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>

namespace cudalab::emu {

// mbarrier.init: `count` arrivals complete a phase (1 .. 2^20 - 1).
void mbarrier_init(std::uint64_t* barrier, unsigned count, const std::source_location& site);
// mbarrier.inval: the word may be reused as plain memory.
void mbarrier_inval(std::uint64_t* barrier, const std::source_location& site);
// mbarrier.expect_tx: `bytes` more transaction bytes must complete the phase.
void mbarrier_expect_tx(std::uint64_t* barrier, std::uint32_t bytes,
                        const std::source_location& site);
// mbarrier.complete_tx: `bytes` of the phase's transactions completed.
void mbarrier_complete_tx(std::uint64_t* barrier, std::uint32_t bytes,
                          const std::source_location& site);
// mbarrier.arrive[.expect_tx] of `arrivals` arrivals (1 but for
// cuda::barrier::arrive(update)); `drop`: arrive_drop, which also lowers the
// count of every later phase by one. Returns the state token: the phase the
// arrivals belong to.
std::uint64_t mbarrier_arrive(std::uint64_t* barrier, std::ptrdiff_t arrivals,
                              std::uint32_t expect_tx_bytes, bool drop,
                              const std::source_location& site);
// mbarrier.arrive.release.cluster.shared::cluster on the barrier at the
// same shared offset as `barrier` in block `rank` of the caller's cluster
// (mapa, then a remote arrive; common/emu/cluster.cpp).
void mbarrier_arrive_cluster(std::uint64_t* barrier, unsigned rank,
                             const std::source_location& site);
// try_wait.parity and test_wait.parity: true once the phase of parity
// `parity` has completed. The emulator parks the thread until it has (a
// true answer is always allowed), or reports a hang if it never can.
bool mbarrier_wait_parity(std::uint64_t* barrier, unsigned parity,
                          const std::source_location& site);
// try_wait and test_wait with a token of mbarrier_arrive: the same for the
// token's phase.
bool mbarrier_wait_token(std::uint64_t* barrier, std::uint64_t token,
                         const std::source_location& site);

// An asynchronous copy of `bytes` from `source` (global memory) to
// `destination` (shared memory) whose completion the barrier's current phase
// waits for. `counts_tx`: the copy completes `bytes` transaction bytes
// (cp.async.bulk's complete_tx::bytes); otherwise it is tied to the phase
// without them (cuda::memcpy_async on a cuda::barrier). `alignment`: what
// the caller promised of the size and both addresses (cuda::aligned_size_t;
// 1 for none), checked. Its reads and writes are checked as the issuing
// thread's at `pc`, a return address in the kernel at the copy (the
// caller's __builtin_return_address(0) in a noinline wrapper).
void async_copy_on_barrier(void* destination, const void* source, std::size_t bytes,
                           std::uint64_t* barrier, bool counts_tx, std::size_t alignment,
                           const void* pc, const std::source_location& site);

// A thread-scope pipeline (cuda::pipeline<cuda::thread_scope_thread>): the
// calling thread's copies since its last commit form a stage; waiting for
// the oldest stage completes its copies.
void pipeline_copy(void* destination, const void* source, std::size_t bytes, std::size_t alignment,
                   const void* pc, const std::source_location& site);
void pipeline_commit();
// Completes every committed stage but the newest `keep`.
void pipeline_wait_prior(unsigned keep);

}  // namespace cudalab::emu
