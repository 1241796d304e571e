// What headers of the emulator share about the accesses it checks and
// traces: the flags of one access and the switch that says whether anything
// wants to see them. Instrumented kernel code reports its accesses through
// the entry points of common/emu/hooks.cpp; the emulator's own headers
// (atomics, mma.sync fragments, constant memory) use these names to report
// theirs the same way.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudalab::emu {

// An entry of the device-memory registry (defined in the library). Opaque to
// kernels; the recorder exposes its base and size.
struct Allocation;

namespace detail {

enum AccessFlags : unsigned {
  kRead = 1u,
  kWrite = 2u,
  kAtomic = 4u,     // read-modify-write by an atomic: exempt from race checks
  kShared = 8u,     // shared memory, not global memory
  kConstant = 16u,  // a __constant__ variable read by name (constant_memory.hpp)
};

// True while a check or a recording wants to see accesses. One predictable
// branch per access when everything is off.
extern bool access_hooks_on;

// True when `address` is not a multiple of `alignment` (a power of two): the
// GPU faults on such an access, whether or not any check is on.
inline bool misaligned(const void* address, std::size_t alignment) noexcept {
  return (reinterpret_cast<std::uintptr_t>(address) & (alignment - 1)) != 0;
}

// The allocation that stands for "shared memory" in access reports.
const Allocation* shared_space() noexcept;

}  // namespace detail
}  // namespace cudalab::emu
