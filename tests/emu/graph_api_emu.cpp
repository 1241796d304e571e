// The node-API graph code on the emulator: this file's rewritten copy
// includes the rewritten copy of graph_api.cuh beside it, instrumented. The
// race inside a graph is here, not in the .cuh: the GPU shows it only by chance.
#include <array>

#include "graph_api.cuh"

namespace graph_api {

const Kernels& emulator_kernels() { return kernels(); }

void emulator_two_writer_nodes(bool ordered) {
  int n = 512;
  float* y = nullptr;
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  float a = 2.0f, b = 3.0f;
  void* first_args[] = {&y, &n, &a};
  void* second_args[] = {&y, &n, &b};
  const cudaKernelNodeParams first{
      reinterpret_cast<void*>(device::affine_kernel), dim3(4), dim3(128), 0, first_args, nullptr};
  const cudaKernelNodeParams second{
      reinterpret_cast<void*>(device::scale_kernel), dim3(4), dim3(128), 0, second_args, nullptr};
  cudaGraph_t graph = nullptr;
  cudaGraphNode_t set = nullptr, one = nullptr, other = nullptr;
  CUDA_CHECK(cudaGraphCreate(&graph, 0));
  CUDA_CHECK(cudaGraphAddMemsetNode(&set, graph, nullptr, 0,
                                    std::array{cudaMemsetParams{y, 0, 0, 4, 512, 1}}.data()));
  CUDA_CHECK(cudaGraphAddKernelNode(&one, graph, &set, 1, &first));
  CUDA_CHECK(cudaGraphAddKernelNode(&other, graph, &set, 1, &second));
  if (ordered) CUDA_CHECK(cudaGraphAddDependencies(graph, &one, &other, nullptr, 1));
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(y));
}

}  // namespace graph_api
