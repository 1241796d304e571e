// The kernels and host code of graphs.hpp, one source for both backends
// (inside the inline namespace CUDALAB_BACKEND, so both builds link into one
// program). Host code is written as the Programming Guide's "Creating a Graph
// Using Stream Capture" writes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_time.hpp"
#include "cudalab/kernel.hpp"
#include "graphs.hpp"

namespace graphs {
inline namespace CUDALAB_BACKEND {

// Not in an anonymous namespace: reports name kernels through their
// exported symbols.
namespace device {

__global__ void affine_kernel(const float* x, float* y, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + 1.0f;
}

__global__ void scale_kernel(float* y, int n, float b) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= b;
}

__global__ void spin_kernel(unsigned long long ns) {
  const std::uint64_t start = cudalab::globaltimer_ns();
  while (cudalab::globaltimer_ns() - start < ns) __nanosleep(1000);
}

__global__ void fill_kernel(float* y, int n, float value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = value;
}

}  // namespace device

inline unsigned blocks_for(int n, unsigned block) {
  return static_cast<unsigned>((n + static_cast<int>(block) - 1) / static_cast<int>(block));
}

inline std::size_t node_count(cudaGraph_t graph) {
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  return count;
}

inline ChainOutcome chain(const std::vector<std::vector<float>>& inputs, float a, float b,
                          unsigned block) {
  const int n = static_cast<int>(inputs.front().size());
  const std::size_t bytes = n * sizeof(float);
  float *host_x = nullptr, *host_y = nullptr, *x = nullptr, *y = nullptr;
  CUDA_CHECK(cudaMallocHost(&host_x, bytes));
  CUDA_CHECK(cudaMallocHost(&host_y, bytes));
  CUDA_CHECK(cudaMalloc(&x, bytes));
  CUDA_CHECK(cudaMalloc(&y, bytes));
  for (int i = 0; i < n; ++i) host_y[i] = -7.0f;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));

  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMemcpyAsync(x, host_x, bytes, cudaMemcpyHostToDevice, stream));
  device::affine_kernel<<<blocks_for(n, block), block, 0, stream>>>(x, y, n, a);
  CUDA_CHECK_LAUNCH();
  device::scale_kernel<<<blocks_for(n, block), block, 0, stream>>>(y, n, b);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(host_y, y, bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));

  ChainOutcome outcome;
  CUDA_CHECK(cudaStreamSynchronize(stream));  // nothing was issued: nothing ran
  outcome.after_capture.assign(host_y, host_y + n);
  outcome.nodes = node_count(graph);
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (const std::vector<float>& input : inputs) {
    std::memcpy(host_x, input.data(), bytes);
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    outcome.outputs.emplace_back(host_y, host_y + n);
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  CUDA_CHECK(cudaFreeHost(host_x));
  CUDA_CHECK(cudaFreeHost(host_y));
  return outcome;
}

inline ForkJoinOutcome fork_join(const std::vector<float>& x, float a, unsigned block,
                                 bool on_legacy) {
  const int n = static_cast<int>(x.size());
  const int half = n / 2;
  const std::size_t bytes = n * sizeof(float);
  float *y = nullptr, *host_x = nullptr, *host_y = nullptr;
  CUDA_CHECK(cudaMalloc(&y, bytes));
  CUDA_CHECK(cudaMallocHost(&host_x, bytes));
  CUDA_CHECK(cudaMallocHost(&host_y, bytes));
  std::memcpy(host_x, x.data(), bytes);
  cudaStream_t origin = nullptr, side = nullptr, launch = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  if (!on_legacy) CUDA_CHECK(cudaStreamCreate(&launch));
  cudaEvent_t forked = nullptr, joined = nullptr;
  CUDA_CHECK(cudaEventCreate(&forked));
  CUDA_CHECK(cudaEventCreate(&joined));

  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMemcpyAsync(y, host_x, bytes, cudaMemcpyHostToDevice, origin));
  CUDA_CHECK(cudaEventRecord(forked, origin));
  CUDA_CHECK(cudaStreamWaitEvent(side, forked, 0));
  device::scale_kernel<<<blocks_for(half, block), block, 0, origin>>>(y, half, a);
  CUDA_CHECK_LAUNCH();
  device::scale_kernel<<<blocks_for(n - half, block), block, 0, side>>>(y + half, n - half, a);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaEventRecord(joined, side));
  CUDA_CHECK(cudaStreamWaitEvent(origin, joined, 0));
  CUDA_CHECK(cudaMemcpyAsync(host_y, y, bytes, cudaMemcpyDeviceToHost, origin));
  CUDA_CHECK(cudaStreamEndCapture(origin, &graph));

  ForkJoinOutcome outcome;
  outcome.nodes = node_count(graph);
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphLaunch(exec, launch));
  CUDA_CHECK(cudaStreamSynchronize(launch));
  outcome.output.assign(host_y, host_y + n);
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaEventDestroy(forked));
  CUDA_CHECK(cudaEventDestroy(joined));
  CUDA_CHECK(cudaStreamDestroy(origin));
  CUDA_CHECK(cudaStreamDestroy(side));
  if (launch) CUDA_CHECK(cudaStreamDestroy(launch));
  CUDA_CHECK(cudaFree(y));
  CUDA_CHECK(cudaFreeHost(host_x));
  CUDA_CHECK(cudaFreeHost(host_y));
  return outcome;
}

inline float elapsed_two_spins(float spin_ms, bool forked) {
  const auto ns = static_cast<unsigned long long>(spin_ms * 1e6f);
  cudaStream_t origin = nullptr, side = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudaEvent_t fork_event = nullptr, join_event = nullptr, start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&fork_event));
  CUDA_CHECK(cudaEventCreate(&join_event));
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  // Lazy loading: the first launch of a kernel waits for pending work.
  device::spin_kernel<<<1, 1, 0, origin>>>(0);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaStreamSynchronize(origin));

  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  cudaStream_t second = origin;
  if (forked) {
    CUDA_CHECK(cudaEventRecord(fork_event, origin));
    CUDA_CHECK(cudaStreamWaitEvent(side, fork_event, 0));
    second = side;
  }
  device::spin_kernel<<<1, 1, 0, origin>>>(ns);
  CUDA_CHECK_LAUNCH();
  device::spin_kernel<<<1, 1, 0, second>>>(ns);
  CUDA_CHECK_LAUNCH();
  if (forked) {
    CUDA_CHECK(cudaEventRecord(join_event, side));
    CUDA_CHECK(cudaStreamWaitEvent(origin, join_event, 0));
  }
  CUDA_CHECK(cudaStreamEndCapture(origin, &graph));
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaEventRecord(start, origin));
  CUDA_CHECK(cudaGraphLaunch(exec, origin));
  CUDA_CHECK(cudaEventRecord(stop, origin));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  for (cudaEvent_t e : {fork_event, join_event, start, stop}) CUDA_CHECK(cudaEventDestroy(e));
  CUDA_CHECK(cudaStreamDestroy(origin));
  CUDA_CHECK(cudaStreamDestroy(side));
  return ms;
}

// Each misuse, then the error state cleared (cudaGetLastError) and any
// capture left open ended, so that the next starts clean.
inline std::vector<std::pair<std::string, cudaError_t>> capture_errors() {
  std::vector<std::pair<std::string, cudaError_t>> got;
  auto note = [&](const char* what, cudaError_t e) {
    got.emplace_back(what, e);
    cudaGetLastError();
  };
  cudaStream_t s = nullptr, other = nullptr;
  CUDA_CHECK(cudaStreamCreate(&s));
  CUDA_CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  float* y = nullptr;
  CUDA_CHECK(cudaMalloc(&y, 256 * sizeof(float)));
  cudaGraph_t graph = nullptr;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;

  note("begin capture on the legacy default stream",
       cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal));
  note("end capture of a stream that is not capturing", cudaStreamEndCapture(s, &graph));
  CUDA_CHECK(cudaStreamIsCapturing(s, &status));
  note(status == cudaStreamCaptureStatusNone ? "status before: none" : "status before: other",
       cudaSuccess);

  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaStreamIsCapturing(s, &status));
  note(status == cudaStreamCaptureStatusActive ? "status during: active" : "status during: other",
       cudaSuccess);
  note("begin capture again on the capturing stream",
       cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  note("cudaStreamSynchronize of the capturing stream", cudaStreamSynchronize(s));
  CUDA_CHECK(cudaStreamIsCapturing(s, &status));
  note(status == cudaStreamCaptureStatusInvalidated ? "status after it: invalidated"
                                                    : "status after it: other",
       cudaSuccess);
  note("end capture of the invalidated capture", cudaStreamEndCapture(s, &graph));
  note(graph == nullptr ? "its graph: null" : "its graph: not null", cudaSuccess);

  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  note("cudaStreamQuery of the capturing stream", cudaStreamQuery(s));
  note("  then end capture", cudaStreamEndCapture(s, &graph));

  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  float* more = nullptr;
  note("cudaMalloc during a global-mode capture", cudaMalloc(&more, 1024));
  note("  then end capture", cudaStreamEndCapture(s, &graph));
  if (more) CUDA_CHECK(cudaFree(more));
  more = nullptr;

  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  note("cudaMalloc during a relaxed-mode capture", cudaMalloc(&more, 1024));
  device::fill_kernel<<<1, 256, 0, s>>>(y, 256, 1.0f);
  note("  then end capture", cudaStreamEndCapture(s, &graph));
  if (graph) {
    note("  its graph's nodes == 1", node_count(graph) == 1 ? cudaSuccess : cudaErrorUnknown);
    CUDA_CHECK(cudaGraphDestroy(graph));
    graph = nullptr;
  }
  if (more) CUDA_CHECK(cudaFree(more));

  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  note("cudaDeviceSynchronize during a capture", cudaDeviceSynchronize());
  note("  then end capture", cudaStreamEndCapture(s, &graph));

  cudaEvent_t forked = nullptr;
  CUDA_CHECK(cudaEventCreate(&forked));
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  device::fill_kernel<<<1, 256, 0, s>>>(y, 256, 2.0f);
  CUDA_CHECK(cudaEventRecord(forked, s));
  CUDA_CHECK(cudaStreamWaitEvent(other, forked, 0));
  device::fill_kernel<<<1, 128, 0, other>>>(y, 128, 3.0f);
  note("end capture with a fork never joined", cudaStreamEndCapture(s, &graph));
  CUDA_CHECK(cudaStreamIsCapturing(other, &status));
  note(status == cudaStreamCaptureStatusNone ? "  the forked stream after it: none"
                                             : "  the forked stream after it: other",
       cudaSuccess);

  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaEventRecord(forked, s));
  CUDA_CHECK(cudaStreamWaitEvent(other, forked, 0));
  note("end capture on the forked stream", cudaStreamEndCapture(other, &graph));
  note("  then on the origin", cudaStreamEndCapture(s, &graph));
  CUDA_CHECK(cudaEventDestroy(forked));

  CUDA_CHECK(cudaEventCreate(&forked));
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  device::fill_kernel<<<1, 256, 0, s>>>(y, 256, 4.0f);
  CUDA_CHECK(cudaEventRecord(forked, s));
  note("cudaEventSynchronize of an event recorded in the capture", cudaEventSynchronize(forked));
  note("  then end capture", cudaStreamEndCapture(s, &graph));
  CUDA_CHECK(cudaEventDestroy(forked));

  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  note("synchronous cudaMemset during a global-mode capture", cudaMemset(y, 0, 64));
  note("  then end capture", cudaStreamEndCapture(s, &graph));

  float* spare = nullptr;
  CUDA_CHECK(cudaMalloc(&spare, 256));
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  const cudaError_t freed = cudaFree(spare);
  note("cudaFree during a global-mode capture", freed);
  note("  then end capture", cudaStreamEndCapture(s, &graph));
  if (freed != cudaSuccess) CUDA_CHECK(cudaFree(spare));

  cudaEvent_t outside = nullptr;
  CUDA_CHECK(cudaEventCreate(&outside));
  CUDA_CHECK(cudaEventRecord(outside, other));
  CUDA_CHECK(cudaStreamSynchronize(other));
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  note("a capturing stream waits for an event recorded outside the capture",
       cudaStreamWaitEvent(s, outside, 0));
  note("  then end capture", cudaStreamEndCapture(s, &graph));
  CUDA_CHECK(cudaEventDestroy(outside));

  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  device::fill_kernel<<<1, 256>>>(y, 256, 6.0f);
  note("a launch on the legacy default stream while a blocking stream captures",
       cudaGetLastError());
  note("  then end capture", cudaStreamEndCapture(s, &graph));
  CUDA_CHECK(cudaDeviceSynchronize());

  // After all that the streams work as before.
  device::fill_kernel<<<1, 256, 0, s>>>(y, 256, 5.0f);
  CUDA_CHECK_LAUNCH();
  float value = 0.0f;
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaMemcpy(&value, y + 255, sizeof(float), cudaMemcpyDeviceToHost));
  note(value == 5.0f ? "a launch afterwards runs" : "a launch afterwards does not run",
       cudaSuccess);
  CUDA_CHECK(cudaFree(y));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaStreamDestroy(other));
  return got;
}

inline const Kernels& kernels() {
  static const Kernels k{&chain, &fork_join, &elapsed_two_spins, &capture_errors};
  return k;
}

}  // namespace CUDALAB_BACKEND
}  // namespace graphs
