// The device probes of device_probes.hpp as plain CUDA host code: one source
// for both backends, inside the inline namespace CUDALAB_BACKEND so that the
// emulator's build (device_probes_emu.cpp) and nvcc's (device_probes_gpu.cu)
// link into one test program. The kernels are in device_probe_kernels.cuh.
//
// Orderings are observed as in stream_probes.cuh: a producer kernel spins
// (50 ms of the GPU's global timer; on the emulator 50 ms of the modelled
// clock, whose adversarial scheduler runs the later-issued ready operation
// first), then writes; a consumer copies what it finds. Waits are observed
// through a host function queued behind the spin: had it run when the call
// returned?
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "device_probe_kernels.hpp"
#include "device_probes.hpp"

namespace device_probes {
inline namespace CUDALAB_BACKEND {

constexpr int kCount = 256;  // one block: each thread writes or copies one element
constexpr std::size_t kBytes = kCount * sizeof(float);
constexpr unsigned long long kSpinNanoseconds =
    static_cast<unsigned long long>(kSpinMilliseconds * 1e6);

// The bandwidth probe's copy: 1 GiB on the GPU; on the emulator, whose
// modelled cost is 1 us plus the bytes at a fixed rate, 64 MiB of host
// memory tell the same figure.
#if CUDALAB_GPU
constexpr std::size_t kPeerCopyBytes = std::size_t{1} << 30;
#else
constexpr std::size_t kPeerCopyBytes = std::size_t{64} << 20;
#endif

// ---- Handles that belong to a device ---------------------------------------------

// Makes `device` current for the caller's scope, then restores the previous one.
class OnDevice {
 public:
  explicit OnDevice(int device) {
    CUDA_CHECK(cudaGetDevice(&previous_));
    CUDA_CHECK(cudaSetDevice(device));
  }
  ~OnDevice() { static_cast<void>(cudaSetDevice(previous_)); }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int previous_ = 0;
};

// Releases a handle of `device` with that device current. Never throws: a
// failing release (say, after a fault ended the context) was reported by the
// call that saw the fault.
template <class Release>
void release_on(int device, Release&& release) noexcept {
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess) return;
  if (cudaSetDevice(device) == cudaSuccess) release();
  static_cast<void>(cudaSetDevice(previous));
  static_cast<void>(cudaGetLastError());
}

// `count` floats of device memory on `device`.
class DeviceFloats {
 public:
  DeviceFloats(int device, std::size_t count) : device_(device), count_(count) {
    OnDevice on(device);
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~DeviceFloats() {
    release_on(device_, [&] { static_cast<void>(cudaFree(data_)); });
  }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;

  float* data() { return data_; }
  std::size_t bytes() const { return count_ * sizeof(float); }
  void fill_bytes(int byte_value) {
    OnDevice on(device_);
    CUDA_CHECK(cudaMemset(data_, byte_value, bytes()));
  }
  void copy_from_host(const std::vector<float>& host) {
    OnDevice on(device_);
    CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<float> copy_to_host() const {
    std::vector<float> host(count_);
    OnDevice on(device_);
    CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  int device_;
  std::size_t count_;
  float* data_ = nullptr;
};

// A non-blocking stream created on `device`.
class Stream {
 public:
  explicit Stream(int device) : device_(device) {
    OnDevice on(device);
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~Stream() {
    release_on(device_, [&] { static_cast<void>(cudaStreamDestroy(stream_)); });
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  operator cudaStream_t() const { return stream_; }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
};

// An event created on `device`.
class Event {
 public:
  explicit Event(int device) : device_(device) {
    OnDevice on(device);
    CUDA_CHECK(cudaEventCreate(&event_));
  }
  ~Event() {
    release_on(device_, [&] { static_cast<void>(cudaEventDestroy(event_)); });
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  operator cudaEvent_t() const { return event_; }

 private:
  int device_;
  cudaEvent_t event_ = nullptr;
};

// Peer access from `from` to `to`'s memory for the caller's scope.
class PeerAccess {
 public:
  PeerAccess(int from, int to) : from_(from), to_(to) {
    OnDevice on(from);
    CUDA_CHECK(cudaDeviceEnablePeerAccess(to, 0));
  }
  ~PeerAccess() {
    release_on(from_, [&] { static_cast<void>(cudaDeviceDisablePeerAccess(to_)); });
  }
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;

 private:
  int from_;
  int to_;
};

inline void synchronize_both_devices() {
  for (int device : {1, 0}) {
    OnDevice on(device);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}

inline std::string name(cudaError_t error) { return cudaGetErrorName(error); }

inline Observation verdict(std::string text) {
  Observation seen;
  seen.verdict = std::move(text);
  return seen;
}

// 1, 2, ..., kCount: values no fresh or zeroed buffer holds.
inline std::vector<float> counting() {
  std::vector<float> values(kCount);
  std::iota(values.begin(), values.end(), 1.0f);
  return values;
}

// ---- Peer access: capabilities, enabling and disabling --------------------------------

inline Observation peer_access_capabilities() {
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  int zero_to_one = -1, one_to_zero = -1, zero_to_zero = -1;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&zero_to_one, 0, 1));
  CUDA_CHECK(cudaDeviceCanAccessPeer(&one_to_zero, 1, 0));
  CUDA_CHECK(cudaDeviceCanAccessPeer(&zero_to_zero, 0, 0));
  Observation seen =
      verdict(std::string(count >= 2 ? "at least 2 devices" : "fewer than 2") +
              "; cudaDeviceCanAccessPeer 0->1: " + std::to_string(zero_to_one) +
              ", 1->0: " + std::to_string(one_to_zero) + ", 0->0: " + std::to_string(zero_to_zero));
  seen.note = "cudaGetDeviceCount: " + std::to_string(count);
  return seen;
}

// From device 0: enable access to device 1 twice, enable access to itself;
// from device 1: disable access to device 0, which was never enabled.
inline Observation enable_and_disable_peer_access() {
  OnDevice zero(0);
  const cudaError_t first = cudaDeviceEnablePeerAccess(1, 0);
  const cudaError_t again = cudaDeviceEnablePeerAccess(1, 0);
  const cudaError_t itself = cudaDeviceEnablePeerAccess(0, 0);
  cudaError_t never_enabled = cudaSuccess;
  {
    OnDevice one(1);
    never_enabled = cudaDeviceDisablePeerAccess(0);
  }
  const cudaError_t undo = cudaDeviceDisablePeerAccess(1);
  static_cast<void>(cudaGetLastError());  // the errors are the answers
  return verdict(
      "enable 0->1: " + name(first) + ", again: " + name(again) + "; enable 0->0: " + name(itself) +
      "; disable 1->0 (never enabled): " + name(never_enabled) + "; disable 0->1: " + name(undo));
}

// ---- A kernel on device 0 reading device 1's memory ------------------------------

// Without peer access the GPU faults, which ends the CUDA context: nothing
// is read back then. `then_ask_again`: after the synchronisation that
// returned the fault, is it returned again (a sticky error)?
inline Observation kernel_reads_peer_memory(bool with_peer_access, bool then_ask_again = false) {
  DeviceFloats on_one(1, kCount), on_zero(0, kCount);
  on_one.copy_from_host(counting());
  on_zero.fill_bytes(0);
  synchronize_both_devices();
  std::optional<PeerAccess> access;
  if (with_peer_access) access.emplace(0, 1);
  OnDevice zero(0);
  launch_copy(on_one.data(), on_zero.data(), kCount, nullptr);
  const cudaError_t synchronized = cudaDeviceSynchronize();
  if (then_ask_again) {
    const cudaError_t again = cudaDeviceSynchronize();
    const cudaError_t last = cudaGetLastError();
    void* fresh = nullptr;
    const cudaError_t allocated = cudaMalloc(&fresh, kBytes);
    if (allocated == cudaSuccess) static_cast<void>(cudaFree(fresh));
    static_cast<void>(cudaGetLastError());
    return verdict("after " + name(synchronized) + ": cudaDeviceSynchronize again: " + name(again) +
                   ", cudaGetLastError: " + name(last) + ", cudaMalloc: " + name(allocated));
  }
  static_cast<void>(cudaGetLastError());
  Observation seen = verdict("cudaDeviceSynchronize: " + name(synchronized));
  if (synchronized != cudaSuccess) return seen;
  seen.verdict +=
      on_zero.copy_to_host() == counting() ? ", read device 1's values" : ", read other values";
  return seen;
}

// ---- Ordering across devices -----------------------------------------------------

// A late fill of device 0's memory on a stream of device 0, then
// cudaMemcpyPeerAsync of it to device 1 on a stream of device 1, which waits
// for an event recorded after the fill or not.
inline Observation peer_copy_after_a_late_fill(bool with_event) {
  DeviceFloats source(0, kCount), target(1, kCount);
  source.fill_bytes(0);
  target.fill_bytes(0xFF);  // NaNs: not copied yet
  synchronize_both_devices();
  Stream producer(0), consumer(1);
  Event filled(0);
  OnDevice zero(0);
  launch_late_fill(source.data(), kCount, 1.0f, kSpinNanoseconds, producer);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaEventRecord(filled, producer));
  {
    OnDevice one(1);
    if (with_event) CUDA_CHECK(cudaStreamWaitEvent(consumer, filled, 0));
    CUDA_CHECK(cudaMemcpyPeerAsync(target.data(), 1, source.data(), 0, kBytes, consumer));
    CUDA_CHECK(cudaStreamSynchronize(consumer));
  }
  synchronize_both_devices();  // the fill runs now if it has not
  const std::vector<float> copied = target.copy_to_host();
  const auto after = std::count(copied.begin(), copied.end(), 1.0f);
  const auto before = std::count(copied.begin(), copied.end(), 0.0f);
  if (after == kCount) return verdict("ordered");
  if (before == kCount) return verdict("not ordered");
  return verdict("mixed (" + std::to_string(after) + " of " + std::to_string(kCount) +
                 " after the fill)");
}

inline void CUDART_CB mark_done(void* done) { static_cast<std::atomic<bool>*>(done)->store(true); }

// A spin on a stream of device 0 with a host function behind it; then
// cudaDeviceSynchronize on device 1, then on device 0.
inline Observation device_synchronize_waits_for_its_own_device_only() {
  DeviceFloats scratch(0, kCount);
  Stream spinning(0);
  std::atomic<bool> done{false};
  OnDevice zero(0);
  launch_late_fill(scratch.data(), kCount, 1.0f, kSpinNanoseconds, spinning);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaLaunchHostFunc(spinning, mark_done, &done));
  {
    OnDevice one(1);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  const bool after_device_one = done.load();
  CUDA_CHECK(cudaDeviceSynchronize());
  const bool after_device_zero = done.load();
  return verdict(std::string("device 1's cudaDeviceSynchronize: ") +
                 (after_device_one ? "waited" : "did not wait") +
                 "; device 0's: " + (after_device_zero ? "waited" : "did not wait"));
}

// With device 0 current, a kernel launched into a stream created on device
// 1. Peer access both ways, so that the kernel's store into device 1's
// memory is legal whichever device runs it.
inline Observation launch_into_a_stream_of_another_device() {
  DeviceFloats target(1, kCount);
  target.fill_bytes(0);
  synchronize_both_devices();
  Stream of_one(1);
  PeerAccess zero_to_one(0, 1), one_to_zero(1, 0);
  OnDevice zero(0);
  static_cast<void>(cudaGetLastError());
  launch_late_fill(target.data(), kCount, 7.0f, 0, of_one);
  const cudaError_t launched = cudaGetLastError();
  const cudaError_t synchronized_zero = cudaDeviceSynchronize();
  cudaError_t synchronized_one = cudaSuccess;
  {
    OnDevice one(1);
    synchronized_one = cudaDeviceSynchronize();
  }
  static_cast<void>(cudaGetLastError());
  Observation seen = verdict("the launch: " + name(launched));
  seen.note = "then cudaDeviceSynchronize on device 0: " + name(synchronized_zero) +
              ", on device 1: " + name(synchronized_one);
  if (synchronized_zero != cudaSuccess || synchronized_one != cudaSuccess) return seen;
  const std::vector<float> written = target.copy_to_host();
  const auto sevens = std::count(written.begin(), written.end(), 7.0f);
  seen.verdict += sevens == kCount ? ", the kernel ran"
                  : sevens == 0    ? ", the kernel did not run"
                                   : ", the kernel wrote part";
  return seen;
}

// ---- Bandwidth ----------------------------------------------------------------------

// GB/s of cudaMemcpyPeer from device 0 to device 1, the median of five
// copies after one to warm up, timed with events on device 0's legacy
// stream (which the copy is serialised with).
inline double peer_copy_gigabytes_per_second(DeviceFloats& to, DeviceFloats& from) {
  OnDevice zero(0);
  Event start(0), stop(0);
  // On the emulator, legacy-stream work issued while no stream exists runs
  // at once, off the modelled clock that the events read; a stream that
  // exists queues it.
  const Stream queues_legacy_work(0);
  std::vector<float> milliseconds;
  for (int repetition = 0; repetition < 6; ++repetition) {
    CUDA_CHECK(cudaEventRecord(start, 0));
    CUDA_CHECK(cudaMemcpyPeer(to.data(), 1, from.data(), 0, from.bytes()));
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (repetition > 0) milliseconds.push_back(ms);
  }
  std::sort(milliseconds.begin(), milliseconds.end());
  const double median_ms = milliseconds[milliseconds.size() / 2];
  return static_cast<double>(from.bytes()) / (median_ms * 1e6);
}

inline Observation peer_copy_bandwidth() {
  DeviceFloats from(0, kPeerCopyBytes / sizeof(float)), to(1, kPeerCopyBytes / sizeof(float));
  from.fill_bytes(0);
  to.fill_bytes(0);
  synchronize_both_devices();
  const double without_access = peer_copy_gigabytes_per_second(to, from);
  double with_access = 0.0;
  {
    PeerAccess zero_to_one(0, 1), one_to_zero(1, 0);
    with_access = peer_copy_gigabytes_per_second(to, from);
  }
  Observation seen = verdict("measured");
  seen.gigabytes_per_second = with_access;
  seen.note = std::to_string(kPeerCopyBytes >> 20) +
              " MiB, median of 5: " + std::to_string(with_access) +
              " GB/s with peer access enabled both ways, " + std::to_string(without_access) +
              " GB/s without";
  return seen;
}

// ---- Dispatch -----------------------------------------------------------------

// Launches every kernel once on each device. Since CUDA 12.2 the GPU loads
// a kernel at its first launch on a device (CUDA_MODULE_LOADING=LAZY), and
// that launch waits for other streams' pending work (stream_probes.cuh,
// first_launch_of_a_kernel): a probe's ordering would be the loader's.
inline void load_kernels() {
  for (int device_index : {0, 1}) {
    DeviceFloats scratch(device_index, kCount);
    OnDevice on(device_index);
    launch_late_fill(scratch.data(), kCount, 0.0f, 0, nullptr);
    CUDA_CHECK_LAUNCH();
    launch_copy(scratch.data(), scratch.data(), kCount, nullptr);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}

inline Observation observe(Probe probe) {
  CUDA_CHECK(cudaSetDevice(0));
  switch (probe) {
    case Probe::peer_access_capabilities:
      return peer_access_capabilities();
    case Probe::enable_and_disable_peer_access:
      return enable_and_disable_peer_access();
    case Probe::kernel_reads_peer_memory_without_peer_access:
      return kernel_reads_peer_memory(false);
    case Probe::a_peer_access_fault_is_sticky:
      return kernel_reads_peer_memory(false, true);
    case Probe::kernel_reads_peer_memory_with_peer_access:
      return kernel_reads_peer_memory(true);
    case Probe::peer_copy_after_a_late_fill_without_an_event:
      return peer_copy_after_a_late_fill(false);
    case Probe::peer_copy_after_a_late_fill_with_an_event:
      return peer_copy_after_a_late_fill(true);
    case Probe::device_synchronize_waits_for_its_own_device_only:
      return device_synchronize_waits_for_its_own_device_only();
    case Probe::launch_into_a_stream_of_another_device:
      return launch_into_a_stream_of_another_device();
    case Probe::peer_copy_bandwidth:
      return peer_copy_bandwidth();
  }
  return verdict("unknown probe");
}

}  // namespace CUDALAB_BACKEND
}  // namespace device_probes
