// Internal to the emulator library: what the rest of the library sees of the
// device model (its queues, clocks and capture: stream_model.hpp lists the
// files) and the race checker between streams (stream_races.cpp).
#pragma once

#include <driver_types.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
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
  std::vector<ByteRange> frees;   // what a cudaFreeAsync gave back to the pool
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
// costs a launch overhead plus a cost per CUDA thread, or plus its longest
// thread's modelled time (sleeps and timer reads) if that is longer; a copy or a memset a
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
// A kernel thread's modelled time advances by this much per read of the
// global timer (about an H200's timer resolution), so that a spin on the
// timer ends without a __nanosleep.
inline constexpr std::uint64_t kTimerReadNs = 32;

// A kernel's duration on the modelled clock.
inline double kernel_modelled_us(std::uint64_t cuda_threads, std::uint64_t longest_thread_ns) {
  const double work_us = kKernelPerThreadUs * static_cast<double>(cuda_threads);
  return kKernelLaunchUs + std::max(work_us, static_cast<double>(longest_thread_ns) / 1000.0);
}

// True when work on `stream` runs at once, as before streams existed: no
// stream was created (or all were destroyed) and nothing is queued or waits
// to be checked. Cheap: the single-stream fast path asks it on every call.
bool runs_at_once(cudaStream_t stream) noexcept;
// A default stream, or a stream created and not destroyed.
bool is_valid_stream(cudaStream_t stream) noexcept;
// The device a valid stream belongs to (a default stream: the current
// device's); -1 for an invalid one.
int device_of_stream(cudaStream_t stream) noexcept;

// The modelled clock around the operation this host thread is executing:
// when it started (a kernel's threads read it through globaltimer_ns), and
// the duration it measured, which replaces the estimate it was queued with
// (a kernel's depends on what its threads did: sleeps and timer reads).
double operation_start_us() noexcept;
void set_operation_duration_us(double us) noexcept;
// Work run at once (the single-stream fast path) starts at the host's
// modelled time and moves it on, so that events around it measure it.
// `what` names it in a modelled timeline, if one is being collected.
double unqueued_start_us();
void unqueued_ended(double start_us, double duration_us, const std::function<std::string()>& what);

struct QueuedOperation {
  cudaStream_t stream = nullptr;
  std::string what;
  SiteRef call_site;       // a launch's source line, or a runtime call's return address
  double modelled_us = 0;  // its duration on the modelled clock
  std::function<void(OperationAccesses&)> run;
};
// An operation issued: operation `seq` (from 1) of the stream with clock
// component `stream_index`.
struct OperationRef {
  std::uint32_t stream_index = 0;
  std::uint32_t seq = 0;
};

// Queues the operation; with `wait`, also runs the queue and returns once
// the operation ran (a synchronous call, or an async copy from pageable memory).
// The caller has checked the stream.
OperationRef enqueue(QueuedOperation operation, bool wait);
// True when the next operation issued on `stream` will happen after `op`
// (its own stream's order, an event wait, a host synchronisation or the
// default-stream rules).
bool next_happens_after(cudaStream_t stream, OperationRef op);

// Runs what this host thread queued, in the scheduler's order (what other
// host threads queued runs at their synchronisation points, or when this
// thread's work waits for it). Must not be called with the model's mutex held.
void run_queued();
// Host synchronisation points: they run the queue, then order the host after
// the work they wait for (what later operations then happen after).
// synchronize_device waits for the work of `device` (-1: the current one).
void synchronize_device(int device = -1);
void synchronize_stream(cudaStream_t stream);
// cudaStreamQuery / cudaEventQuery: true, and the host ordered after it,
// when the host already waited for everything `target` names, or when it
// has run and the last query of the same handle (`not_ready_at`, compared
// with `asking`: the stream's work or the event's record it asks about)
// answered not ready. Otherwise the answer is false (cudaErrorNotReady, as a
// GPU answers for work it has not finished) and the work runs, so that
// polling ends at the next query.
bool query_done(const std::vector<std::uint32_t>& target, std::uint64_t asking,
                std::uint64_t& not_ready_at);
bool query_stream(cudaStream_t stream);
// cudaDeviceReset of the current device: runs its queued work, then its
// streams' and events' handles are invalid and its peer access is disabled.
void reset_device();

// ---- stream capture (stream_capture.cpp) and graphs (graphs.cpp) ------------------

// A kernel node's launch as cudaGraphAddKernelNode gave it (graph_nodes.cpp):
// `params.kernelParams` points at `pointers`, which point at the node's own
// copies of the arguments (what cudaGraphKernelNodeGetParams hands out).
struct KernelNodeArguments {
  cudaKernelNodeParams params{};
  std::vector<std::vector<std::byte>> values;
  std::vector<void*> pointers;
};
// One node of a graph: the operation as it was issued (work.stream: the
// stream it was captured on), and the nodes it depends on (indices into the
// graph's nodes). A captured node depends only on earlier ones; a node added
// through the node API (graph_nodes.cpp) may also depend on a later one, so
// instantiation sorts them.
struct GraphNode {
  QueuedOperation work;
  std::vector<std::size_t> depends_on;
  bool added_by_api = false;  // no stream of its own: instantiation picks its lane
  bool destroyed = false;     // by cudaGraphDestroyNode: its handle stays unique
  std::shared_ptr<const KernelNodeArguments> kernel;  // kernel nodes added by the API
};
struct Graph {
  std::deque<GraphNode> nodes;  // a deque: node handles (addresses) stay valid as nodes are added
};
// A graph handle for a graph a capture or cudaGraphCreate made (graphs.cpp
// keeps the live ones); the graph of a live handle, else nullptr.
cudaGraph_t adopt_graph(Graph graph);
Graph* live_graph(cudaGraph_t handle);
// The graph and index of a node handle of a live graph's node not destroyed;
// false if there is none.
bool find_node(cudaGraphNode_t handle, Graph*& graph, std::size_t& index);
// The operation of a kernel node and the arguments it keeps (graph_nodes.cpp);
// `caller` names the API call in reports. An error as cudaLaunchKernel's.
cudaError_t make_kernel_node(const cudaKernelNodeParams* params, const void* caller,
                             QueuedOperation& work,
                             std::shared_ptr<const KernelNodeArguments>& kernel);
// Names a stream of the emulator's own in reports and timelines (a graph's
// lane: "lane 2 of graph 1").
void set_stream_label(cudaStream_t stream, std::string label);
// True while `stream` is taking part in a capture (its work becomes nodes).
bool is_capturing(cudaStream_t stream);
// The calls a capture forbids while it lasts ("potentially unsafe": cudaMalloc,
// synchronous copies and memsets, cudaDeviceSynchronize, ...): with a capture
// of mode global active in any thread, or of mode thread-local in this one,
// returns cudaErrorStreamCaptureUnsupported and invalidates those captures;
// otherwise cudaSuccess.
cudaError_t unsafe_during_capture();
// Synchronous work of the legacy default stream (cudaMemcpy, cudaMemset)
// while a blocking stream of the current device is being captured:
// cudaErrorStreamCaptureImplicit, and the capture is invalidated (as an H100
// answered for cudaMemset, 2026-12-06); otherwise cudaSuccess.
cudaError_t legacy_work_during_capture();
// Waiting for a stream that is being captured (synchronising with it, or
// querying it) is illegal, since its work runs only when a graph is
// launched: cudaErrorStreamCaptureUnsupported, and the capture is
// invalidated. cudaSuccess for any other stream.
cudaError_t capture_forbids_waiting_for(cudaStream_t stream);

// The race checker (stream_races.cpp). `earlier` ran before `later`, on
// another stream, and nothing orders them: report the first shared byte,
// if any, one of them writing it. `reported` holds the pairs reported in
// this run of the queue (each is reported once). Returns the message of the
// race reported, or "" when none was (an unchecked pair is not a race).
std::string check_unordered_pair(const OperationName& earlier,
                                 const OperationAccesses& earlier_accesses,
                                 const OperationName& later,
                                 const OperationAccesses& later_accesses,
                                 const std::string& schedule, std::set<std::string>& reported);

// cudaFree of a block of the stream-ordered pool (stream_allocator.cpp): the
// pool forgets it, so cudaFree can release it. False: not a pool block that
// is handed out.
bool forget_pool_block(const void* ptr);

// Prints the report (Options::print_reports) and adds it to the live
// Recording, if any (recorder.cpp).
void add_stream_report(Report report);

}  // namespace cudalab::emu::detail
