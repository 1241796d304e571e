// A stream kept busy for a given time: the stand-in for a long kernel where
// what matters is ordering and overlap, not arithmetic (lab 03's
// experiments; any test of streams).
//
//   cudalab::Spinner spin;   // allocates its slots now, not during the work
//   spin(20.0, stream);      // one thread busy on `stream` for 20 ms
//
// The kernel waits on cudalab::globaltimer_ns (device_time.hpp): on the GPU
// that is `ms` of wall time; on the emulator `ms` on the modelled clock,
// which cudaEventElapsedTime reads, at almost no host time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudalab/device_buffer.hpp"
#include "cudalab/device_time.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab {
inline namespace CUDALAB_BACKEND {

// One thread that returns after `ns` nanoseconds on the device's clock and
// writes how long it spun to *spun_ns (a write of its own, so that the
// emulator's race checker can tell that two unordered spins share no bytes).
__global__ void spin_kernel(long long ns, unsigned long long* spun_ns) {
  const std::uint64_t start = globaltimer_ns();
  std::uint64_t now = start;
  while (now - start < static_cast<std::uint64_t>(ns)) {
    __nanosleep(1000);
    now = globaltimer_ns();
  }
  *spun_ns = now - start;
}

class Spinner {
 public:
  Spinner() : slots_(kSlots) {}

  // Queues a spin of `ms` milliseconds on `stream`.
  void operator()(double ms, cudaStream_t stream) {
    const auto ns = static_cast<long long>(ms * 1e6);
    unsigned long long* slot = slots_.data() + next_++ % kSlots;
#if CUDALAB_GPU
    spin_kernel<<<1, 1, 0, stream>>>(ns, slot);
#else  // what tools/emu_rewrite.py makes of the launch above in a lab's kernel file
    emu::launch_chevron(spin_kernel, emu::ChevronConfig{1, 1, 0, stream}, ns, slot);
#endif
  }

 private:
  // Each spin writes a slot of its own, allocated up front: a cudaMalloc
  // among the work would synchronise the device.
  static constexpr std::size_t kSlots = 4096;
  DeviceBuffer<unsigned long long> slots_;
  std::size_t next_ = 0;
};

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab
