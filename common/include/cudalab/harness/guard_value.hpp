// The bit pattern a call's output is fenced with on the device
// (GuardedBuffer, device_call.hpp; EntryBackend, entry_points.hpp).
// Backend-free.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cudalab::harness {

// The guard value of an element type: a NaN with a payload for floats, a
// repeated 0xA5 byte otherwise. A kernel that writes past its output changes
// the guards' bits even where the emulator's bounds check cannot see it (the
// write stays inside the allocation).
template <class T>
T guard_value() {
  static_assert(std::is_trivially_copyable_v<T>, "guards are compared bit by bit");
  T value;
  if constexpr (std::is_same_v<T, float>) {
    const std::uint32_t bits = 0x7fa5a5a5u;
    std::memcpy(&value, &bits, sizeof value);
  } else if constexpr (sizeof(T) == 2) {
    const std::uint16_t bits = 0x7e5au;  // an fp16 NaN with a payload
    std::memcpy(&value, &bits, sizeof value);
  } else {
    std::memset(&value, 0xa5, sizeof value);
  }
  return value;
}

}  // namespace cudalab::harness
