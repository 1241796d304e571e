// <cuda/barrier> for the emulator build (common/emu/cuda_include/cuda/barrier
// includes this; nvcc uses libcu++'s own header): cuda::barrier of block
// scope as an mbarrier of the emulator's model (cudalab/emu/mbarrier.hpp)
// and cuda::memcpy_async completing on one, with libcu++'s names and
// signatures so that a kernel written for <cuda/barrier> compiles unchanged.
//
//   __shared__ cuda::barrier<cuda::thread_scope_block> bar;
//   if (threadIdx.x == 0) init(&bar, blockDim.x);      // then __syncthreads()
//   cuda::memcpy_async(dst, src, bytes, bar);           // or (group, dst, src, bytes, bar)
//   auto token = bar.arrive();  bar.wait(std::move(token));   // or bar.arrive_and_wait()
//
// A copy completes with the barrier's current phase: its bytes are pending
// until the phase completes, and touching them before is a race report.
// Not provided: barriers of another scope (thread, device, system: a
// barrier in global memory), completion functions, try_wait_for/until,
// barrier_arrive_tx and barrier_expect_tx (cudalab/mbarrier.hpp has those
// as mbarrier_arrive_expect_tx and mbarrier_expect_tx).
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>

#include "cudalab/emu/mbarrier.hpp"

namespace cuda {

// libcu++'s values (those of its __ATOMIC_* scopes).
enum thread_scope {
  thread_scope_system = 0,
  thread_scope_device = 1,
  thread_scope_block = 2,
  thread_scope_thread = 3,
};

// A size whose value is a multiple of Alignment, as are both addresses of
// the copy: the GPU may then copy in pieces of Alignment bytes.
template <std::size_t Alignment>
struct aligned_size_t {
  static constexpr std::size_t align = Alignment;
  std::size_t value;
  explicit constexpr aligned_size_t(std::size_t size) : value(size) {}
  constexpr operator std::size_t() const { return value; }
};

// What memcpy_async returns: whether the copy may still be in flight.
enum async_contract_fulfillment { none, async };

namespace emu_detail {
struct no_completion {};
}  // namespace emu_detail

template <thread_scope Scope, class Completion = emu_detail::no_completion>
class barrier;

namespace device {
// The mbarrier word under a block-scope barrier, for cudalab/mbarrier.hpp's calls.
inline std::uint64_t* barrier_native_handle(barrier<thread_scope_block>& bar);
}  // namespace device

template <thread_scope Scope, class Completion>
class barrier {
  static_assert(Scope == thread_scope_block && sizeof(Completion) != 0,
                "the emulator provides cuda::barrier<cuda::thread_scope_block> only (an mbarrier "
                "in shared memory), without a completion function");
};

// The object is the mbarrier word itself: no constructor runs for a
// __shared__ variable, init() makes it a barrier.
template <>
class barrier<thread_scope_block, emu_detail::no_completion> {
 public:
  using arrival_token = std::uint64_t;  // the phase the arrival belongs to

  barrier() = default;
  barrier(const barrier&) = delete;
  barrier& operator=(const barrier&) = delete;

  friend void init(barrier* bar, std::ptrdiff_t expected,
                   std::source_location site = std::source_location::current()) {
    cudalab::emu::mbarrier_init(&bar->word_, static_cast<unsigned>(expected), site);
  }

  [[nodiscard]] arrival_token arrive(std::ptrdiff_t update = 1,
                                     std::source_location site = std::source_location::current()) {
    return cudalab::emu::mbarrier_arrive(&word_, update, 0, false, site);
  }
  void wait(arrival_token&& token,
            std::source_location site = std::source_location::current()) const {
    cudalab::emu::mbarrier_wait_token(&word_, token, site);
  }
  void wait_parity(bool parity, std::source_location site = std::source_location::current()) const {
    cudalab::emu::mbarrier_wait_parity(&word_, parity ? 1u : 0u, site);
  }
  void arrive_and_wait(std::source_location site = std::source_location::current()) {
    wait(arrive(1, site), site);
  }
  void arrive_and_drop(std::source_location site = std::source_location::current()) {
    (void)cudalab::emu::mbarrier_arrive(&word_, 1, 0, true, site);
  }
  static constexpr std::ptrdiff_t max() noexcept { return (1 << 20) - 1; }

 private:
  friend std::uint64_t* device::barrier_native_handle(barrier& bar);
  // mutable: wait() is const in libcu++, and the model parks the waiter on it.
  mutable std::uint64_t word_;
};

inline std::uint64_t* device::barrier_native_handle(barrier<thread_scope_block>& bar) {
  return &bar.word_;
}

// ---- memcpy_async on a barrier --------------------------------------------
// noinline: the return address is the kernel's call, where the copy's
// checked accesses are reported (inlined, they would name this header).

namespace emu_detail {
// A size of aligned_size_t<N> promises N-byte alignment: the emulator checks it.
template <class Size>
constexpr std::size_t promised_alignment = 1;
template <std::size_t N>
constexpr std::size_t promised_alignment<aligned_size_t<N>> = N;
}  // namespace emu_detail

template <class Size>
[[gnu::noinline]] inline async_contract_fulfillment memcpy_async(
    void* destination, const void* source, Size size, barrier<thread_scope_block>& bar,
    std::source_location site = std::source_location::current()) {
  cudalab::emu::async_copy_on_barrier(
      destination, source, static_cast<std::size_t>(size), device::barrier_native_handle(bar),
      false, emu_detail::promised_alignment<Size>, __builtin_return_address(0), site);
  return async_contract_fulfillment::async;
}

// The group's threads all call it with the same arguments; the copy is
// issued once, by the group's thread of rank 0.
template <class Group, class Size>
[[gnu::noinline]] inline async_contract_fulfillment memcpy_async(
    const Group& group, void* destination, const void* source, Size size,
    barrier<thread_scope_block>& bar, std::source_location site = std::source_location::current()) {
  if (group.thread_rank() == 0) {
    cudalab::emu::async_copy_on_barrier(
        destination, source, static_cast<std::size_t>(size), device::barrier_native_handle(bar),
        false, emu_detail::promised_alignment<Size>, __builtin_return_address(0), site);
  }
  return async_contract_fulfillment::async;
}

}  // namespace cuda
