// CUDA graphs built node by node, on both backends: graph_api.cuh holds the
// kernels and host code as plain CUDA, built for the emulator
// (graph_api_emu.cpp, rewritten and instrumented) and by nvcc
// (graph_api_gpu.cu); test_graph_api.cpp expects the same from each
// (docs/emulator.md, "Graphs").
#pragma once

#include <driver_types.h>

#include <string>
#include <utility>
#include <vector>

namespace graph_api {

struct DiamondOutcome {
  std::size_t nodes = 0, roots = 0, edges = 0;  // cudaGraphGetNodes, GetRootNodes, GetEdges
  // Per launch: y as the memcpy node copied it out, and what the host node
  // (after the copy) saw of it: its first and last element.
  std::vector<std::vector<float>> outputs;
  std::vector<std::pair<float, float>> seen_by_host;
  // The original graph relaunched after its clone's first kernel got `a2`
  // (cudaGraphKernelNodeSetParams), the clone, and the original's
  // executable graph after its second kernel got `b2`
  // (cudaGraphExecKernelNodeSetParams).
  std::vector<float> original_after_clone_changed, clone, exec_updated;
};

struct Kernels {
  // A diamond made with the node API, the sink nodes added first and the
  // edges afterwards: a memset of n floats to `fill` (elementSize 4) -> two
  // kernels, y[i] = a*y[i] + 1 on the first half and y[i] *= b on the second
  // -> a 1D memcpy of y to pinned host memory -> a host node. Launched
  // `launches` times on a created stream.
  DiamondOutcome (*diamond)(int n, float fill, float a, float b, float a2, float b2, int launches);
  // A 3D memcpy node (pitched pointers, one slice at an offset) of a
  // `width` x `height` x `depth` float box out of a device buffer filled
  // with 0, 1, 2, ...: the box's values as copied back.
  std::vector<float> (*copy_box)(int width, int height, int depth);
  // y = a*x + 1 for x = 0, 1, ..., n-1 by cudaLaunchKernel with an array of
  // argument pointers: the C form (the kernel as `void*`) when `as_void`,
  // else cuda_runtime.h's overload taking the kernel itself.
  std::vector<float> (*launch_from_arguments)(int n, float a, bool as_void);
  // The node API misused, named: what the backend returned.
  std::vector<std::pair<std::string, cudaError_t>> (*errors)();
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();

// Emulator only: two kernel nodes after one memset writing the same buffer,
// ordered by an edge (`ordered`) or not; launched once, then synchronised.
// The race, if any, is in the caller's Recording.
void emulator_two_writer_nodes(bool ordered);

}  // namespace graph_api
