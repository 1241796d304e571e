// The kernels and host code of graph_api.hpp, one source for both backends
// (inside the inline namespace CUDALAB_BACKEND, so both builds link into one
// program). Kernel node parameters are written as an aggregate
// {func, gridDim, blockDim, sharedMemBytes, kernelParams, extra}: in emulator
// code `gridDim` and `blockDim` are the builtin variables' macros.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "graph_api.hpp"

namespace graph_api {
inline namespace CUDALAB_BACKEND {

// Not in an anonymous namespace: reports name kernels through their
// exported symbols.
namespace device {

__global__ void affine_kernel(float* y, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * y[i] + 1.0f;
}

__global__ void scale_kernel(float* y, int n, float b) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= b;
}

}  // namespace device

inline unsigned blocks_for(int n, unsigned block) { return (n + block - 1) / block; }

// What the host node sees: the pinned output as the copy before it left it.
struct HostRecord {
  const float* out = nullptr;
  int n = 0;
  std::vector<std::pair<float, float>> seen;
};

inline void CUDART_CB record_ends(void* data) {
  auto* record = static_cast<HostRecord*>(data);
  record->seen.emplace_back(record->out[0], record->out[record->n - 1]);
}

inline std::vector<float> launch_and_read(cudaGraphExec_t exec, cudaStream_t s, const float* out,
                                          int n) {
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  return {out, out + n};
}

inline DiamondOutcome diamond(int n, float fill, float a, float b, float a2, float b2,
                              int launches) {
  DiamondOutcome got;
  const int half = n / 2;
  float* y = nullptr;
  float* out = nullptr;
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&out, n * sizeof(float)));
  std::memset(out, 0, n * sizeof(float));
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  HostRecord record{out, n, {}};

  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaGraphCreate(&graph, 0));
  // The sinks first: their dependencies are added once the nodes exist.
  cudaGraphNode_t copy_out = nullptr, host = nullptr, set = nullptr, first = nullptr,
                  second = nullptr;
  CUDA_CHECK(cudaGraphAddMemcpyNode1D(&copy_out, graph, nullptr, 0, out, y, n * sizeof(float),
                                      cudaMemcpyDeviceToHost));
  const cudaHostNodeParams host_params{record_ends, &record};
  CUDA_CHECK(cudaGraphAddHostNode(&host, graph, &copy_out, 1, &host_params));
  unsigned fill_bits = 0;
  std::memcpy(&fill_bits, &fill, sizeof fill_bits);
  cudaMemsetParams set_params{};
  set_params.dst = y;
  set_params.value = fill_bits;
  set_params.elementSize = 4;
  set_params.width = static_cast<std::size_t>(n);
  set_params.height = 1;
  CUDA_CHECK(cudaGraphAddMemsetNode(&set, graph, nullptr, 0, &set_params));
  float* second_half = y + half;
  int first_n = half, second_n = n - half;
  void* first_args[] = {&y, &first_n, &a};
  void* second_args[] = {&second_half, &second_n, &b};
  const cudaKernelNodeParams first_params{reinterpret_cast<void*>(device::affine_kernel),
                                          dim3(blocks_for(first_n, 128)),
                                          dim3(128),
                                          0,
                                          first_args,
                                          nullptr};
  const cudaKernelNodeParams second_params{reinterpret_cast<void*>(device::scale_kernel),
                                           dim3(blocks_for(second_n, 64)),
                                           dim3(64),
                                           0,
                                           second_args,
                                           nullptr};
  CUDA_CHECK(cudaGraphAddKernelNode(&first, graph, &set, 1, &first_params));
  CUDA_CHECK(cudaGraphAddKernelNode(&second, graph, &set, 1, &second_params));
  // Arguments were copied when the nodes were added.
  a = b = -1000.0f;
  const cudaGraphNode_t from[] = {first, second};
  const cudaGraphNode_t to[] = {copy_out, copy_out};
  CUDA_CHECK(cudaGraphAddDependencies(graph, from, to, nullptr, 2));
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &got.nodes));
  CUDA_CHECK(cudaGraphGetRootNodes(graph, nullptr, &got.roots));
  CUDA_CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &got.edges));

  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < launches; ++launch) {
    std::memset(out, 0, n * sizeof(float));
    got.outputs.push_back(launch_and_read(exec, s, out, n));
  }
  got.seen_by_host = record.seen;

  // A clone whose first kernel gets a2: the original keeps a.
  cudaGraph_t clone = nullptr;
  CUDA_CHECK(cudaGraphClone(&clone, graph));
  cudaGraphNode_t cloned_first = nullptr;
  CUDA_CHECK(cudaGraphNodeFindInClone(&cloned_first, first, clone));
  cudaKernelNodeParams changed{};
  CUDA_CHECK(cudaGraphKernelNodeGetParams(cloned_first, &changed));
  void* changed_args[] = {changed.kernelParams[0], changed.kernelParams[1], &a2};
  changed.kernelParams = changed_args;
  CUDA_CHECK(cudaGraphKernelNodeSetParams(cloned_first, &changed));
  cudaGraphExec_t clone_exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&clone_exec, clone, 0));
  got.clone = launch_and_read(clone_exec, s, out, n);
  got.original_after_clone_changed = launch_and_read(exec, s, out, n);

  // The executable graph's second kernel gets b2; its graph keeps b.
  void* updated_args[] = {&second_half, &second_n, &b2};
  const cudaKernelNodeParams updated{reinterpret_cast<void*>(device::scale_kernel),
                                     dim3(blocks_for(second_n, 64)),
                                     dim3(64),
                                     0,
                                     updated_args,
                                     nullptr};
  CUDA_CHECK(cudaGraphExecKernelNodeSetParams(exec, second, &updated));
  got.exec_updated = launch_and_read(exec, s, out, n);

  CUDA_CHECK(cudaGraphExecDestroy(clone_exec));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(clone));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFreeHost(out));
  CUDA_CHECK(cudaFree(y));
  return got;
}

inline std::vector<float> copy_box(int width, int height, int depth) {
  // The source: a (width + 3) x (height + 2) x (depth + 1) volume of floats
  // 0, 1, 2, ... in pitched rows; the box starts at (2, 1, 1).
  const int sx = width + 3, sy = height + 2, sz = depth + 1;
  cudaPitchedPtr from{};
  from.xsize = sx * sizeof(float);
  from.ysize = static_cast<std::size_t>(sy);
  CUDA_CHECK(cudaMallocPitch(&from.ptr, &from.pitch, from.xsize, sy * sz));
  std::vector<float> values(static_cast<std::size_t>(sx) * sy * sz);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  CUDA_CHECK(cudaMemcpy2D(from.ptr, from.pitch, values.data(), from.xsize, from.xsize, sy * sz,
                          cudaMemcpyHostToDevice));
  std::vector<float> box(static_cast<std::size_t>(width) * height * depth, -1.0f);
  cudaMemcpy3DParms copy{};
  copy.srcPtr = from;
  copy.srcPos = make_cudaPos(2 * sizeof(float), 1, 1);
  copy.dstPtr = make_cudaPitchedPtr(box.data(), width * sizeof(float), width * sizeof(float),
                                    static_cast<std::size_t>(height));
  copy.extent = make_cudaExtent(width * sizeof(float), height, depth);
  copy.kind = cudaMemcpyDeviceToHost;
  cudaGraph_t graph = nullptr;
  cudaGraphNode_t node = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaGraphCreate(&graph, 0));
  CUDA_CHECK(cudaGraphAddMemcpyNode(&node, graph, nullptr, 0, &copy));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(from.ptr));
  return box;
}

inline std::vector<float> launch_from_arguments(int n, float a, bool as_void) {
  std::vector<float> y(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) y[i] = static_cast<float>(i);
  float* d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  void* args[] = {&d_y, &n, &a};
  if (as_void) {
    CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(device::affine_kernel),
                                dim3(blocks_for(n, 128)), dim3(128), args, 0, nullptr));
  } else {
    CUDA_CHECK(cudaLaunchKernel(device::affine_kernel, dim3(blocks_for(n, 128)), dim3(128), args));
  }
  CUDA_CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_y));
  return y;
}

inline void not_a_kernel() {}

inline std::vector<std::pair<std::string, cudaError_t>> errors() {
  std::vector<std::pair<std::string, cudaError_t>> got;
  auto note = [&](const char* what, cudaError_t e) {
    got.emplace_back(what, e);
    cudaGetLastError();
  };
  float* y = nullptr;
  CUDA_CHECK(cudaMalloc(&y, 256 * sizeof(float)));
  cudaGraph_t graph = nullptr, other = nullptr;
  note("cudaGraphCreate with flags 1", cudaGraphCreate(&graph, 1));
  CUDA_CHECK(cudaGraphCreate(&graph, 0));
  CUDA_CHECK(cudaGraphCreate(&other, 0));
  cudaGraphNode_t a = nullptr, b = nullptr, elsewhere = nullptr, node = nullptr;
  CUDA_CHECK(cudaGraphAddEmptyNode(&a, graph, nullptr, 0));
  CUDA_CHECK(cudaGraphAddEmptyNode(&b, graph, &a, 1));
  CUDA_CHECK(cudaGraphAddEmptyNode(&elsewhere, other, nullptr, 0));
  note("a dependency on another graph's node", cudaGraphAddEmptyNode(&node, graph, &elsewhere, 1));

  int n = 256;
  float scale = 2.0f;
  void* args[] = {&y, &n, &scale};
  const cudaKernelNodeParams host_function{
      reinterpret_cast<void*>(not_a_kernel), dim3(1), dim3(32), 0, args, nullptr};
  note("a kernel node of a host function",
       cudaGraphAddKernelNode(&node, graph, nullptr, 0, &host_function));

  note("cudaLaunchKernel of a host function",
       cudaLaunchKernel(reinterpret_cast<const void*>(not_a_kernel), dim3(1), dim3(32), args, 0,
                        nullptr));

  cudaMemsetParams three_bytes{};
  three_bytes.dst = y;
  three_bytes.elementSize = 3;
  three_bytes.width = 4;
  three_bytes.height = 1;
  note("a memset node of 3-byte elements",
       cudaGraphAddMemsetNode(&node, graph, nullptr, 0, &three_bytes));
  cudaKernelNodeParams params{};
  note("kernel node parameters of an empty node", cudaGraphKernelNodeGetParams(a, &params));

  // b depends on a; a on b closes a cycle, which instantiation refuses.
  note("an edge closing a cycle", cudaGraphAddDependencies(graph, &b, &a, nullptr, 1));
  cudaGraphExec_t exec = nullptr;
  note("instantiate a graph with a cycle", cudaGraphInstantiate(&exec, graph, 0));
  if (exec) CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroyNode(a));
  note("instantiate once the cycle's node is destroyed", cudaGraphInstantiate(&exec, graph, 0));
  if (exec) CUDA_CHECK(cudaGraphExecDestroy(exec));

  CUDA_CHECK(cudaGraphDestroy(other));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaFree(y));
  return got;
}

inline const Kernels& kernels() {
  static const Kernels k{&diamond, &copy_box, &launch_from_arguments, &errors};
  return k;
}

}  // namespace CUDALAB_BACKEND
}  // namespace graph_api
