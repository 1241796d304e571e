// The graph code on the emulator: this file's rewritten copy includes the
// rewritten copy of graphs.cuh beside it, instrumented. The race inside a
// graph is here, not in the .cuh: the GPU shows it only by chance.
#include "graphs.cuh"

namespace graphs {

const Kernels& emulator_kernels() { return kernels(); }

void emulator_two_writers(bool ordered) {
  const int n = 512;
  float* y = nullptr;
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  cudaStream_t origin = nullptr, side = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudaEvent_t forked = nullptr, first_done = nullptr, joined = nullptr;
  for (cudaEvent_t* e : {&forked, &first_done, &joined}) CUDA_CHECK(cudaEventCreate(e));

  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaEventRecord(forked, origin));
  CUDA_CHECK(cudaStreamWaitEvent(side, forked, 0));
  device::fill_kernel<<<4, 128, 0, origin>>>(y, n, 1.0f);
  if (ordered) {
    CUDA_CHECK(cudaEventRecord(first_done, origin));
    CUDA_CHECK(cudaStreamWaitEvent(side, first_done, 0));
  }
  device::fill_kernel<<<4, 128, 0, side>>>(y, n, 2.0f);
  CUDA_CHECK(cudaEventRecord(joined, side));
  CUDA_CHECK(cudaStreamWaitEvent(origin, joined, 0));
  CUDA_CHECK(cudaStreamEndCapture(origin, &graph));

  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphLaunch(exec, origin));
  CUDA_CHECK(cudaStreamSynchronize(origin));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  for (cudaEvent_t e : {forked, first_done, joined}) CUDA_CHECK(cudaEventDestroy(e));
  CUDA_CHECK(cudaStreamDestroy(origin));
  CUDA_CHECK(cudaStreamDestroy(side));
  CUDA_CHECK(cudaFree(y));
}

}  // namespace graphs
