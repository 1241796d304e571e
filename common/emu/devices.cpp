// Several virtual GPUs: how many there are, which one each host thread uses
// (cudaSetDevice) and which peers' memory each may touch
// (cudaDeviceEnablePeerAccess). All devices share the host's memory and
// have the same properties; what tells them apart is ownership: every
// allocation, stream and event belongs to the device current when it was
// made (docs/emulator.md, "Several devices").
#include <array>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>

#include "cudalab/emu/runtime.hpp"
#include "engine.hpp"

namespace cudalab::emu::detail {

namespace {

thread_local int this_thread_device = 0;

// Bit p of entry d: device d enabled access to device p's memory.
std::array<std::atomic<std::uint64_t>, kMaxDevices> peers_enabled{};

// What cudaSetDeviceFlags chose per device. The emulator's host threads wait
// the same way whatever the scheduling flag, so the flags are only reported.
std::array<std::atomic<unsigned>, kMaxDevices> device_flags{};

int devices_from_environment() {
  const char* env = std::getenv("CUDALAB_EMU_DEVICES");
  if (!env || !*env) return 1;
  char* end = nullptr;
  const long n = std::strtol(env, &end, 10);
  if (*end != '\0' || n < 1 || n > kMaxDevices) {
    static std::once_flag warned;
    std::call_once(warned, [env] {
      std::cerr << "cudalab emulator: CUDALAB_EMU_DEVICES=" << env << " is not a number from 1 to "
                << kMaxDevices << "; using 1 device\n";
    });
    return 1;
  }
  return static_cast<int>(n);
}

}  // namespace

int device_count() noexcept {
  const unsigned wanted = current_options().devices;
  if (wanted == 0) return devices_from_environment();
  return static_cast<int>(std::min<unsigned>(wanted, kMaxDevices));
}

int current_device() noexcept { return this_thread_device; }

bool is_device(int device) noexcept { return device >= 0 && device < device_count(); }

std::uint64_t accessible_devices(int device) noexcept {
  return peers_enabled[static_cast<std::size_t>(device)].load(std::memory_order_acquire) |
         (std::uint64_t{1} << device);
}

void forget_peer_access(int device) noexcept {
  peers_enabled[static_cast<std::size_t>(device)].store(0, std::memory_order_release);
}

}  // namespace cudalab::emu::detail

namespace cudalab::emu {

namespace {
cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }
}  // namespace

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return fail(cudaErrorInvalidValue);
  *count = detail::device_count();
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (!device) return fail(cudaErrorInvalidValue);
  *device = detail::this_thread_device;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (!detail::is_device(device)) return fail(cudaErrorInvalidDevice);
  detail::this_thread_device = device;
  return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  if (flags & ~static_cast<unsigned>(cudaDeviceMask)) return fail(cudaErrorInvalidValue);
  // At most one way of waiting: spin, yield or block.
  const unsigned schedule = flags & cudaDeviceScheduleMask;
  if (schedule & (schedule - 1)) return fail(cudaErrorInvalidValue);
  detail::device_flags[static_cast<std::size_t>(detail::this_thread_device)].store(flags);
  return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (!flags) return fail(cudaErrorInvalidValue);
  // Mapped page-locked memory is always on under unified addressing, and the
  // runtime reports it so.
  *flags = detail::device_flags[static_cast<std::size_t>(detail::this_thread_device)].load() |
           cudaDeviceMapHost;
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer) {
  if (!can_access) return fail(cudaErrorInvalidValue);
  if (!detail::is_device(device) || !detail::is_device(peer)) return fail(cudaErrorInvalidDevice);
  // Every pair of distinct virtual devices is linked, as on an NVLink
  // machine; a device is not its own peer.
  *can_access = device != peer ? 1 : 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
  const int device = detail::this_thread_device;
  if (flags != 0) return fail(cudaErrorInvalidValue);
  if (!detail::is_device(peer)) return fail(cudaErrorInvalidDevice);
  if (peer == device) return fail(cudaErrorPeerAccessUnsupported);  // as two H200s answer
  const std::uint64_t bit = std::uint64_t{1} << peer;
  const std::uint64_t before =
      detail::peers_enabled[static_cast<std::size_t>(device)].fetch_or(bit);
  return (before & bit) ? fail(cudaErrorPeerAccessAlreadyEnabled) : cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peer) {
  const int device = detail::this_thread_device;
  if (!detail::is_device(peer) || peer == device) return fail(cudaErrorInvalidDevice);
  const std::uint64_t bit = std::uint64_t{1} << peer;
  const std::uint64_t before =
      detail::peers_enabled[static_cast<std::size_t>(device)].fetch_and(~bit);
  return (before & bit) ? cudaSuccess : fail(cudaErrorPeerAccessNotEnabled);
}

}  // namespace cudalab::emu
