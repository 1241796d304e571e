// The stream probes of stream_probes.hpp as plain CUDA: one source for both
// backends, inside the inline namespace CUDALAB_BACKEND so that the
// emulator's build (stream_probes_emu.cpp) and nvcc's (stream_probes_gpu.cu)
// link into one test program.
//
// How an ordering becomes observable: a producer kernel spins, then writes;
// a consumer on another stream copies what it finds. On the GPU the spin
// (50 ms) makes the consumer run first whenever nothing orders it after the
// producer, so it copies the old values; on the emulator the spin lasts 50 ms
// of the modelled clock only, and its adversarial scheduler runs the
// later-issued ready operation first, with the same effect (and a
// stream_race report). Buffers start at 0 with
// nothing pending; the producer writes 1 (or 2, 3...).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/device_time.hpp"
#include "cudalab/kernel.hpp"
#include "stream_probes.hpp"

namespace stream_probes {
inline namespace CUDALAB_BACKEND {

using cudalab::DeviceBuffer;

constexpr int kCount = 256;  // one block: each thread writes or copies one element
constexpr std::size_t kBytes = kCount * sizeof(float);
constexpr float kUntouched = -1.0f;  // host memory no copy has reached yet
constexpr unsigned long long kSpinNanoseconds =
    static_cast<unsigned long long>(kSpinMilliseconds * 1e6);

// Not in an anonymous namespace: reports name kernels through their
// exported symbols.
namespace device {

// Waits `ns` nanoseconds of the GPU's global timer (on the emulator, of the
// modelled clock: its scheduler, not time, decides which ready operation
// runs first).
__device__ inline void spin_for(unsigned long long ns) {
  const std::uint64_t start = cudalab::globaltimer_ns();
  while (cudalab::globaltimer_ns() - start < ns) __nanosleep(1000);
}

// The producer: spins, then writes a[i] = value for i < n (one block).
__global__ void late_fill_kernel(float* a, int n, float value, unsigned long long spin_ns) {
  if (threadIdx.x == 0) spin_for(spin_ns);
  __syncthreads();
  const int i = threadIdx.x;
  if (i < n) a[i] = value;
}

// The consumer: to[i] = from[i] for i < n (one block).
__global__ void copy_kernel(const float* from, float* to, int n) {
  const int i = threadIdx.x;
  if (i < n) to[i] = from[i];
}

__global__ void spin_kernel(unsigned long long ns) { spin_for(ns); }

// copy_kernel again, for first_launch_of_a_kernel alone.
__global__ void first_launch_copy_kernel(const float* from, float* to, int n) {
  const int i = threadIdx.x;
  if (i < n) to[i] = from[i];
}

}  // namespace device

class Stream {
 public:
  explicit Stream(unsigned flags) { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, flags)); }
  ~Stream() { static_cast<void>(cudaStreamDestroy(stream_)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  operator cudaStream_t() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() { static_cast<void>(cudaEventDestroy(event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  operator cudaEvent_t() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Page-locked host memory (cudaMallocHost), kCount floats of kUntouched.
class PinnedFloats {
 public:
  PinnedFloats() {
    CUDA_CHECK(cudaMallocHost(&data_, kBytes));
    std::fill(data_, data_ + kCount, kUntouched);
  }
  ~PinnedFloats() { static_cast<void>(cudaFreeHost(data_)); }
  PinnedFloats(const PinnedFloats&) = delete;
  PinnedFloats& operator=(const PinnedFloats&) = delete;
  float* data() { return data_; }

 private:
  float* data_ = nullptr;
};

// A producer's output and a consumer's copy of it, both 0, nothing pending.
struct Buffers {
  DeviceBuffer<float> produced{kCount};
  DeviceBuffer<float> copied{kCount};
  Buffers() {
    CUDA_CHECK(cudaMemset(produced.data(), 0, kBytes));
    CUDA_CHECK(cudaMemset(copied.data(), 0, kBytes));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
};

inline void late_fill(float* a, float value, cudaStream_t stream) {
  device::late_fill_kernel<<<1, kCount, 0, stream>>>(a, kCount, value, kSpinNanoseconds);
  CUDA_CHECK_LAUNCH();
}

inline void copy(Buffers& buffers, cudaStream_t stream) {
  device::copy_kernel<<<1, kCount, 0, stream>>>(buffers.produced.data(), buffers.copied.data(),
                                                kCount);
  CUDA_CHECK_LAUNCH();
}

// What the consumer copied, once everything ran: the producer's value
// everywhere (it ran after the producer), 0 everywhere (before it), or both.
inline std::string ordering_seen(const Buffers& buffers, float produced) {
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> seen = buffers.copied.copy_to_host();
  const auto after = std::count(seen.begin(), seen.end(), produced);
  const auto before = std::count(seen.begin(), seen.end(), 0.0f);
  if (after == kCount) return "ordered";
  if (before == kCount) return "not ordered";
  return "mixed (" + std::to_string(after) + " of " + std::to_string(kCount) + " after)";
}

// How far a device-to-host copy into `host` has come, read by the host now.
inline std::string copy_state(const float* host, float expected) {
  const auto done = std::count(host, host + kCount, expected);
  const auto untouched = std::count(host, host + kCount, kUntouched);
  if (done == kCount) return "complete";
  if (untouched == kCount) return "not done";
  return "partly done";
}

inline Observation verdict(std::string text) {
  Observation seen;
  seen.verdict = std::move(text);
  return seen;
}

inline double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// ---- Default-stream ordering ------------------------------------------------

inline Observation producer_then_consumer(cudaStream_t producer, cudaStream_t consumer) {
  Buffers buffers;
  late_fill(buffers.produced.data(), 1.0f, producer);
  copy(buffers, consumer);
  return verdict(ordering_seen(buffers, 1.0f));
}

inline Observation legacy_stream_after_blocking_stream() {
  Stream blocking(cudaStreamDefault);
  return producer_then_consumer(blocking, cudaStreamLegacy);
}

inline Observation blocking_stream_after_legacy_stream() {
  Stream blocking(cudaStreamDefault);
  return producer_then_consumer(cudaStreamLegacy, blocking);
}

inline Observation non_blocking_stream_after_legacy_stream() {
  Stream non_blocking(cudaStreamNonBlocking);
  return producer_then_consumer(cudaStreamLegacy, non_blocking);
}

inline Observation legacy_stream_after_non_blocking_stream() {
  Stream non_blocking(cudaStreamNonBlocking);
  return producer_then_consumer(non_blocking, cudaStreamLegacy);
}

inline Observation per_thread_stream_after_legacy_stream() {
  return producer_then_consumer(cudaStreamLegacy, cudaStreamPerThread);
}

inline Observation legacy_stream_after_per_thread_stream() {
  return producer_then_consumer(cudaStreamPerThread, cudaStreamLegacy);
}

inline Observation blocking_stream_after_per_thread_stream() {
  Stream blocking(cudaStreamDefault);
  return producer_then_consumer(cudaStreamPerThread, blocking);
}

// ---- Events -------------------------------------------------------------------

// The consumer waits for an event recorded after the first fill; the event
// is then recorded again after a second fill. The wait means the record
// before it: the consumer's copy of the second buffer is not ordered.
inline Observation wait_after_record_then_record_again() {
  Buffers first, second;
  Stream producer(cudaStreamNonBlocking), consumer(cudaStreamNonBlocking);
  Event filled;
  late_fill(first.produced.data(), 1.0f, producer);
  CUDA_CHECK(cudaEventRecord(filled, producer));
  CUDA_CHECK(cudaStreamWaitEvent(consumer, filled, 0));
  late_fill(second.produced.data(), 2.0f, producer);
  CUDA_CHECK(cudaEventRecord(filled, producer));
  copy(first, consumer);
  copy(second, consumer);
  return verdict("first fill: " + ordering_seen(first, 1.0f) +
                 ", second fill (recorded after the wait): " + ordering_seen(second, 2.0f));
}

inline Observation wait_for_never_recorded_event() {
  Buffers buffers;
  Stream producer(cudaStreamNonBlocking), consumer(cudaStreamNonBlocking);
  Event never_recorded;
  late_fill(buffers.produced.data(), 1.0f, producer);
  CUDA_CHECK(cudaStreamWaitEvent(consumer, never_recorded, 0));
  copy(buffers, consumer);
  return verdict(ordering_seen(buffers, 1.0f));
}

// ---- Async copies to host memory ----------------------------------------------

// cudaMemcpyAsync device-to-host behind a late fill on the same stream: the
// host reads its destination as soon as the call returns.
inline Observation async_copy_to_pageable_and_pinned_memory() {
  Buffers buffers;
  Stream stream(cudaStreamNonBlocking);
  std::vector<float> pageable(kCount, kUntouched);
  PinnedFloats pinned;
  late_fill(buffers.produced.data(), 1.0f, stream);
  CUDA_CHECK(cudaMemcpyAsync(pageable.data(), buffers.produced.data(), kBytes,
                             cudaMemcpyDeviceToHost, stream));
  const std::string pageable_at_return = copy_state(pageable.data(), 1.0f);
  late_fill(buffers.produced.data(), 2.0f, stream);
  CUDA_CHECK(cudaMemcpyAsync(pinned.data(), buffers.produced.data(), kBytes, cudaMemcpyDeviceToHost,
                             stream));
  const std::string pinned_at_return = copy_state(pinned.data(), 2.0f);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return verdict("pageable: " + pageable_at_return + " at return; pinned: " + pinned_at_return +
                 " at return, " + copy_state(pinned.data(), 2.0f) + " after cudaStreamSynchronize");
}

// ---- Implicit synchronisation -------------------------------------------------

// Whether `call` waits for a non-blocking stream's pending work: a late fill
// and then a host function that marks the stream done are queued on the
// stream, and the host looks at the mark as soon as `call` returns. (Not a
// copy into pinned memory behind the fill: on the H200 a synchronous
// device-to-host copy sometimes waited for such a pending copy, depending on
// how many streams the process had created; docs/emulator.md.)
inline void CUDART_CB mark_done(void* done) { static_cast<std::atomic<bool>*>(done)->store(true); }

template <class Call>
Observation implicit_sync(Call&& call) {
  Buffers buffers;
  Stream stream(cudaStreamNonBlocking);
  std::atomic<bool> stream_done{false};
  late_fill(buffers.produced.data(), 1.0f, stream);
  CUDA_CHECK(cudaLaunchHostFunc(stream, mark_done, &stream_done));
  const auto start = std::chrono::steady_clock::now();
  call();
  const double call_ms = milliseconds_since(start);
  Observation seen = verdict(stream_done.load() ? "waited" : "did not wait");
  seen.note = "the call took " + std::to_string(call_ms) + " ms";
  CUDA_CHECK(cudaDeviceSynchronize());
  return seen;
}

inline Observation implicit_sync_cudaMalloc(std::size_t bytes) {
  void* block = nullptr;
  Observation seen = implicit_sync([&] { CUDA_CHECK(cudaMalloc(&block, bytes)); });
  CUDA_CHECK(cudaFree(block));
  return seen;
}

inline Observation implicit_sync_cudaFree() {
  void* block = nullptr;
  CUDA_CHECK(cudaMalloc(&block, kBytes));
  return implicit_sync([&] { CUDA_CHECK(cudaFree(block)); });
}

inline Observation implicit_sync_cudaMallocHost() {
  void* block = nullptr;
  Observation seen = implicit_sync([&] { CUDA_CHECK(cudaMallocHost(&block, kBytes)); });
  CUDA_CHECK(cudaFreeHost(block));
  return seen;
}

inline Observation implicit_sync_cudaFreeHost() {
  void* block = nullptr;
  CUDA_CHECK(cudaMallocHost(&block, kBytes));
  return implicit_sync([&] { CUDA_CHECK(cudaFreeHost(block)); });
}

// A synchronous copy or memset of memory the stream does not touch.
inline Observation implicit_sync_cudaMemcpy(cudaMemcpyKind kind) {
  std::vector<float> host(kCount, 0.0f);
  DeviceBuffer<float> device_a(host), device_b(host);
  return implicit_sync([&] {
    switch (kind) {
      case cudaMemcpyHostToDevice:
        CUDA_CHECK(cudaMemcpy(device_a.data(), host.data(), kBytes, kind));
        break;
      case cudaMemcpyDeviceToHost:
        CUDA_CHECK(cudaMemcpy(host.data(), device_a.data(), kBytes, kind));
        break;
      default:
        CUDA_CHECK(cudaMemcpy(device_b.data(), device_a.data(), kBytes, kind));
        break;
    }
  });
}

inline Observation implicit_sync_cudaMemset() {
  DeviceBuffer<float> unrelated(kCount);
  return implicit_sync([&] { CUDA_CHECK(cudaMemset(unrelated.data(), 0, kBytes)); });
}

inline Observation implicit_sync_cudaDeviceSynchronize() {
  return implicit_sync([] { CUDA_CHECK(cudaDeviceSynchronize()); });
}

// ---- The first launch of a kernel ------------------------------------------------

// A consumer kernel launched for the first time in the process, on a stream
// not ordered after the producer. (observe_on_gpu loads every other kernel
// before a probe: load_kernels.)
inline Observation first_launch_of_a_kernel() {
  Buffers buffers;
  Stream producer(cudaStreamNonBlocking), consumer(cudaStreamNonBlocking);
  late_fill(buffers.produced.data(), 1.0f, producer);
  device::first_launch_copy_kernel<<<1, kCount, 0, consumer>>>(buffers.produced.data(),
                                                               buffers.copied.data(), kCount);
  CUDA_CHECK_LAUNCH();
  return verdict(ordering_seen(buffers, 1.0f));
}

// Launches every kernel but first_launch_copy_kernel once. Since CUDA 12.2
// the GPU loads a kernel at its first launch (CUDA_MODULE_LOADING=LAZY), and
// on the H200 that launch waited for other streams' pending work: a probe's
// first launch of its consumer would be ordered by the loader, not by the
// semantic it probes (first_launch_of_a_kernel shows it).
inline void load_kernels() {
  DeviceBuffer<float> scratch(kCount);
  device::late_fill_kernel<<<1, kCount>>>(scratch.data(), kCount, 0.0f, 0);
  CUDA_CHECK_LAUNCH();
  device::copy_kernel<<<1, kCount>>>(scratch.data(), scratch.data(), kCount);
  CUDA_CHECK_LAUNCH();
  device::spin_kernel<<<1, 1>>>(0);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
}

// ---- Queries and timing -----------------------------------------------------------

inline Observation queries_on_pending_work() {
  Buffers buffers;
  Stream stream(cudaStreamNonBlocking);
  Event filled;
  late_fill(buffers.produced.data(), 1.0f, stream);
  CUDA_CHECK(cudaEventRecord(filled, stream));
  const cudaError_t event_answer = cudaEventQuery(filled);
  const cudaError_t stream_answer = cudaStreamQuery(stream);
  static_cast<void>(cudaGetLastError());  // cudaErrorNotReady is an answer, not a failure
  CUDA_CHECK(cudaDeviceSynchronize());
  return verdict(std::string("cudaEventQuery: ") + cudaGetErrorName(event_answer) +
                 ", cudaStreamQuery: " + cudaGetErrorName(stream_answer));
}

inline Observation elapsed_time_of_a_spin() {
  Stream stream(cudaStreamNonBlocking);
  Event start, stop;
  CUDA_CHECK(cudaEventRecord(start, stream));
  device::spin_kernel<<<1, 1, 0, stream>>>(kSpinNanoseconds);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  Observation seen;
  seen.verdict = std::fabs(ms - kSpinMilliseconds) <= 0.1 * kSpinMilliseconds
                     ? "within 10% of the spin"
                     : "more than 10% off the spin";
  seen.note = "elapsed " + std::to_string(ms) + " ms for a spin of " +
              std::to_string(kSpinMilliseconds) + " ms";
  return seen;
}

// ---- Stream-ordered allocation ----------------------------------------------------

enum class Edge { same_stream, none, event };

// A block allocated and freed on one stream behind a late fill (so the free
// is still pending), then the same size allocated on `next`: the same stream,
// another one with no ordering edge, or another one that waits for an event
// recorded after the free. For another stream with the same block back: does
// that stream now wait for the free (a dependency the pool inserted)?
inline Observation malloc_async_after_free(Edge edge) {
  constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
  CUDA_CHECK(cudaDeviceSynchronize());
#if CUDALAB_GPU
  // Each probe starts from an empty pool. (The emulator's pool keeps its
  // blocks; it hands out the most recently freed one, which is this probe's.)
  cudaMemPool_t pool = nullptr;
  CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
#endif
  Stream first(cudaStreamNonBlocking), other(cudaStreamNonBlocking);
  Event freed;
  const cudaStream_t next = edge == Edge::same_stream ? static_cast<cudaStream_t>(first)
                                                      : static_cast<cudaStream_t>(other);
  float* block = nullptr;
  CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&block), kBlockBytes, first));
  late_fill(block, 1.0f, first);
  CUDA_CHECK(cudaFreeAsync(block, first));
  if (edge == Edge::event) {
    CUDA_CHECK(cudaEventRecord(freed, first));
    CUDA_CHECK(cudaStreamWaitEvent(other, freed, 0));
  }
  float* again = nullptr;
  CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&again), kBlockBytes, next));
  // Unordered, this write would be done long before the 50 ms spin ends.
  device::late_fill_kernel<<<1, kCount, 0, next>>>(again, kCount, 2.0f, 0);
  CUDA_CHECK_LAUNCH();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const cudaError_t next_state = cudaStreamQuery(next);
  static_cast<void>(cudaGetLastError());
  CUDA_CHECK(cudaFreeAsync(again, next));
  CUDA_CHECK(cudaDeviceSynchronize());
#if CUDALAB_GPU
  CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
#endif
  Observation seen;
  seen.verdict = again == block ? "the same block" : "another block";
  if (edge == Edge::none && again == block) {
    seen.verdict += next_state == cudaErrorNotReady ? ", and the other stream waits for the free"
                                                    : ", and the other stream does not wait";
  }
  seen.note =
      std::string("5 ms later the allocating stream answered ") + cudaGetErrorName(next_state);
  return seen;
}

// ---- Dispatch -----------------------------------------------------------------

inline Observation observe(Probe probe) {
  switch (probe) {
    case Probe::legacy_stream_after_blocking_stream:
      return legacy_stream_after_blocking_stream();
    case Probe::blocking_stream_after_legacy_stream:
      return blocking_stream_after_legacy_stream();
    case Probe::non_blocking_stream_after_legacy_stream:
      return non_blocking_stream_after_legacy_stream();
    case Probe::legacy_stream_after_non_blocking_stream:
      return legacy_stream_after_non_blocking_stream();
    case Probe::per_thread_stream_after_legacy_stream:
      return per_thread_stream_after_legacy_stream();
    case Probe::legacy_stream_after_per_thread_stream:
      return legacy_stream_after_per_thread_stream();
    case Probe::blocking_stream_after_per_thread_stream:
      return blocking_stream_after_per_thread_stream();
    case Probe::wait_after_record_then_record_again:
      return wait_after_record_then_record_again();
    case Probe::wait_for_never_recorded_event:
      return wait_for_never_recorded_event();
    case Probe::async_copy_to_pageable_and_pinned_memory:
      return async_copy_to_pageable_and_pinned_memory();
    case Probe::implicit_sync_cudaMalloc_small:
      return implicit_sync_cudaMalloc(kBytes);
    case Probe::implicit_sync_cudaMalloc_large:
      return implicit_sync_cudaMalloc(std::size_t{64} << 20);
    case Probe::implicit_sync_cudaFree:
      return implicit_sync_cudaFree();
    case Probe::implicit_sync_cudaMallocHost:
      return implicit_sync_cudaMallocHost();
    case Probe::implicit_sync_cudaFreeHost:
      return implicit_sync_cudaFreeHost();
    case Probe::implicit_sync_cudaMemcpy_host_to_device:
      return implicit_sync_cudaMemcpy(cudaMemcpyHostToDevice);
    case Probe::implicit_sync_cudaMemcpy_device_to_host:
      return implicit_sync_cudaMemcpy(cudaMemcpyDeviceToHost);
    case Probe::implicit_sync_cudaMemcpy_device_to_device:
      return implicit_sync_cudaMemcpy(cudaMemcpyDeviceToDevice);
    case Probe::implicit_sync_cudaMemset:
      return implicit_sync_cudaMemset();
    case Probe::implicit_sync_cudaDeviceSynchronize:
      return implicit_sync_cudaDeviceSynchronize();
    case Probe::first_launch_of_a_kernel:
      return first_launch_of_a_kernel();
    case Probe::queries_on_pending_work:
      return queries_on_pending_work();
    case Probe::elapsed_time_of_a_spin:
      return elapsed_time_of_a_spin();
    case Probe::malloc_async_after_free_on_the_same_stream:
      return malloc_async_after_free(Edge::same_stream);
    case Probe::malloc_async_after_free_on_another_stream:
      return malloc_async_after_free(Edge::none);
    case Probe::malloc_async_after_free_and_an_event_edge:
      return malloc_async_after_free(Edge::event);
  }
  return verdict("unknown probe");
}

}  // namespace CUDALAB_BACKEND
}  // namespace stream_probes
