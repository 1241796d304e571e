// Internal to the emulator library: the device model's queues (streams.cpp)
// and the race checker between streams (stream_races.cpp).
#pragma once

#include <driver_types.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "cudalab/emu/recorder.hpp"
#include "engine.hpp"

namespace cudalab::emu::detail {

// [begin, end) of addresses.
struct ByteRange {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
};
// Sorts and merges overlapping or touching ranges.
void merge_ranges(std::vector<ByteRange>& ranges);

// The bytes one operation read and wrote, as the race checker needs them.
struct OperationAccesses {
  std::vector<ByteRange> reads;   // merged (merge_ranges) once the operation ran
  std::vector<ByteRange> writes;  // atomics count as writes
  bool complete = true;           // false: some accesses were not traced
  std::string incomplete_reason;  // why, for the report
};

// What the report says about an operation.
struct OperationName {
  std::string what;    // "kernel scale_kernel", "cudaMemcpyAsync HtoD 4096 bytes"
  std::string stream;  // "the legacy default stream", "stream 2 (non-blocking)"
  SiteRef call_site;   // where host code issued it (none: unknown), resolved when reported
};

// The modelled clock's cost model (cudaEventElapsedTime reads it): a kernel
// costs a launch overhead plus a cost per CUDA thread; a copy or a memset a
// fixed overhead plus its bytes over a bandwidth near an H200's. Streams
// overlap without limit: an operation starts when everything it happens
// after has ended.
inline constexpr double kKernelLaunchUs = 2.0;
inline constexpr double kKernelPerThreadUs = 1e-5;  // 1 M threads: 10 us
inline constexpr double kCopyOverheadUs = 1.0;
inline constexpr double kPinnedBytesPerUs = 25e3;       // 25 GB/s over PCIe
inline constexpr double kPageableBytesPerUs = 10e3;     // 10 GB/s, staged
inline constexpr double kDeviceCopyBytesPerUs = 1.5e6;  // 1.5 TB/s, read + write
// Between two devices' memory (cudaMemcpyPeer, or a copy whose source and
// destination belong to different devices): one direction of an H200's
// NVLink 4 is 18 links x 25 GB/s = 450 GB/s; copies reach about 90% of it.
inline constexpr double kPeerCopyBytesPerUs = 400e3;  // 400 GB/s
inline constexpr double kMemsetBytesPerUs = 3e6;      // 3 TB/s

// True when work on `stream` runs at once, as before streams existed: no
// stream was created (or all were destroyed) and nothing is queued or waits
// to be checked. Cheap: the single-stream fast path asks it on every call.
bool runs_at_once(cudaStream_t stream) noexcept;
// A default stream, or a stream created and not destroyed.
bool is_valid_stream(cudaStream_t stream) noexcept;
// The device a valid stream belongs to (a default stream: the current
// device's); -1 for an invalid one.
int device_of_stream(cudaStream_t stream) noexcept;

struct QueuedOperation {
  cudaStream_t stream = nullptr;
  std::string what;
  SiteRef call_site;       // a launch's source line, or a runtime call's return address
  double modelled_us = 0;  // its duration on the modelled clock
  std::function<void(OperationAccesses&)> run;
};
// Queues the operation; with `wait`, also runs the queue and returns once
// the operation ran (a synchronous call, or an async copy from pageable memory).
// The caller has checked the stream.
void enqueue(QueuedOperation operation, bool wait);

// Runs what this host thread queued, in the scheduler's order (what other
// host threads queued runs at their synchronisation points, or when this
// thread's work waits for it). Must not be called with the model's mutex held.
void run_queued();
// Host synchronisation points: they run the queue, then order the host after
// the work they wait for (what later operations then happen after).
// synchronize_device waits for the work of `device` (-1: the current one).
void synchronize_device(int device = -1);
void synchronize_stream(cudaStream_t stream);
// cudaDeviceReset of the current device: runs its queued work, then its
// streams' and events' handles are invalid and its peer access is disabled.
void reset_device();

// The race checker (stream_races.cpp). `earlier` ran before `later`, on
// another stream, and nothing orders them: report the first shared byte,
// if any, one of them writing it. `reported` holds the pairs reported in
// this run of the queue (each is reported once).
void check_unordered_pair(const OperationName& earlier, const OperationAccesses& earlier_accesses,
                          const OperationName& later, const OperationAccesses& later_accesses,
                          const std::string& schedule, std::set<std::string>& reported);

// Prints the report (Options::print_reports) and adds it to the live
// Recording, if any (recorder.cpp).
void add_stream_report(Report report);

}  // namespace cudalab::emu::detail
