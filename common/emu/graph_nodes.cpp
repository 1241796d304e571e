// Graphs built node by node (docs/emulator.md, "Graphs"): cudaGraphCreate,
// cudaGraphAdd*Node, dependencies, cloning, a kernel node's parameters, and
// what a graph's nodes and edges are. A node's operation is made by issuing
// its call (a launch, a copy, a memset, a host function) to a private stream
// being captured, so that it is checked, and its arguments copied, at the
// time it is added, as CUDA does; the one node that capture makes becomes
// the new node (a 3D copy or a memset of wide elements: several captured
// operations run as one node).
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cudalab/emu/argument_launch.hpp"
#include "cudalab/emu/runtime.hpp"
#include "streams.hpp"

namespace cudalab::emu {

namespace {

using detail::Graph;
using detail::GraphNode;
using detail::QueuedOperation;

cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }

cudaGraphNode_t handle_of(Graph& g, std::size_t index) {
  return reinterpret_cast<cudaGraphNode_t>(&g.nodes[index]);
}

// The operation `issue` puts on a stream, captured on a private stream of
// the current device; `what` names it in reports, `caller` is the API call's
// return address.
cudaError_t capture_operation(const std::function<cudaError_t(cudaStream_t)>& issue,
                              const std::string& what, const void* caller, QueuedOperation& work) {
  cudaStream_t stream = nullptr;
  if (cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); e != cudaSuccess) {
    return e;
  }
  // Relaxed: the capture forbids nothing to other threads.
  cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
  const cudaError_t issued = e == cudaSuccess ? issue(stream) : e;
  cudaGraph_t captured = nullptr;
  if (e == cudaSuccess) e = cudaStreamEndCapture(stream, &captured);
  cudaStreamDestroy(stream);
  if (issued != cudaSuccess || e != cudaSuccess) {
    if (captured) cudaGraphDestroy(captured);
    return issued != cudaSuccess ? issued : e;
  }
  Graph* g = detail::live_graph(captured);
  std::vector<std::function<void(detail::OperationAccesses&)>> runs;
  work = QueuedOperation{};
  for (const GraphNode& node : g->nodes) {
    runs.push_back(node.work.run);
    work.modelled_us += node.work.modelled_us;
  }
  if (g->nodes.size() == 1) {
    work = g->nodes.front().work;
  } else {  // none (a copy of no bytes), or several
    work.what = what;
    work.run = [runs = std::move(runs)](detail::OperationAccesses& accesses) {
      for (const auto& run : runs) run(accesses);
    };
  }
  work.call_site = detail::SiteRef::at_pc(caller);
  cudaGraphDestroy(captured);
  return cudaSuccess;
}

// Adds a node with `work` that depends on `dependencies` (handles of nodes of
// `g`, checked by the caller).
cudaError_t add_node(cudaGraphNode_t* node, Graph& g, const std::vector<std::size_t>& dependencies,
                     QueuedOperation work,
                     std::shared_ptr<const detail::KernelNodeArguments> kernel = nullptr) {
  GraphNode added;
  added.work = std::move(work);
  added.depends_on = dependencies;
  added.added_by_api = true;
  added.kernel = std::move(kernel);
  g.nodes.push_back(std::move(added));
  *node = handle_of(g, g.nodes.size() - 1);
  return cudaSuccess;
}

// The checks every cudaGraphAdd*Node makes: a node pointer, a live graph, and
// dependencies that are nodes of that graph (listed once each).
cudaError_t check_add(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                      std::size_t count, Graph*& g, std::vector<std::size_t>& indices) {
  g = detail::live_graph(graph);
  if (!node || !g || (count > 0 && !dependencies)) return cudaErrorInvalidValue;
  for (std::size_t i = 0; i < count; ++i) {
    Graph* owner = nullptr;
    std::size_t index = 0;
    if (!detail::find_node(dependencies[i], owner, index) || owner != g) {
      return cudaErrorInvalidValue;
    }
    if (std::find(indices.begin(), indices.end(), index) != indices.end()) {
      return cudaErrorInvalidValue;
    }
    indices.push_back(index);
  }
  return cudaSuccess;
}

// The nodes of `g` not destroyed, as handles, with `keep` choosing.
template <class Keep>
cudaError_t list_nodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* count, Keep keep) {
  Graph* g = detail::live_graph(graph);
  if (!g || !count) return fail(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> found;
  for (std::size_t i = 0; i < g->nodes.size(); ++i) {
    if (!g->nodes[i].destroyed && keep(g->nodes[i])) found.push_back(handle_of(*g, i));
  }
  if (nodes) {
    for (std::size_t i = 0; i < *count; ++i) nodes[i] = i < found.size() ? found[i] : nullptr;
  }
  *count = found.size();
  return cudaSuccess;
}

}  // namespace

cudaError_t detail::make_kernel_node(const cudaKernelNodeParams* params, const void* caller,
                                     QueuedOperation& work,
                                     std::shared_ptr<const KernelNodeArguments>& kernel) {
  if (!params) return cudaErrorInvalidValue;
  const ArgumentLaunch* how = argument_launch_of(params->func);
  // A host function: CUDA 13 answers an invalid resource handle (an H100, 2026-12-07).
  if (!how) return cudaErrorInvalidResourceHandle;
  // `extra` (arguments packed in one buffer) is not modelled.
  if (params->extra) return cudaErrorNotSupported;
  if (!params->kernelParams && how->parameter_count > 0) return cudaErrorInvalidValue;
  auto arguments = std::make_shared<KernelNodeArguments>();
  arguments->params = *params;
  for (std::size_t i = 0; i < how->parameter_count; ++i) {
    const auto* bytes = static_cast<const std::byte*>(params->kernelParams[i]);
    arguments->values.emplace_back(bytes, bytes + how->parameter_bytes[i]);
  }
  for (auto& value : arguments->values) arguments->pointers.push_back(value.data());
  arguments->params.kernelParams = arguments->pointers.data();
  const cudaError_t e = capture_operation(
      [&](cudaStream_t stream) {
        return cudaLaunchKernel(params->func, params->gridDim, params->blockDim,
                                arguments->pointers.data(), params->sharedMemBytes, stream);
      },
      "kernel", caller, work);
  if (e == cudaSuccess) kernel = std::move(arguments);
  return e;
}

cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags) {
  if (!graph || flags != 0) return fail(cudaErrorInvalidValue);
  *graph = detail::adopt_graph(Graph{});
  return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, std::size_t count,
                                   const cudaKernelNodeParams* params) {
  Graph* g = nullptr;
  std::vector<std::size_t> indices;
  if (cudaError_t e = check_add(node, graph, dependencies, count, g, indices)) return fail(e);
  QueuedOperation work;
  std::shared_ptr<const detail::KernelNodeArguments> kernel;
  if (cudaError_t e = detail::make_kernel_node(params, __builtin_return_address(0), work, kernel)) {
    return fail(e);
  }
  return add_node(node, *g, indices, std::move(work), std::move(kernel));
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* params) {
  Graph* g = nullptr;
  std::size_t index = 0;
  if (!params || !detail::find_node(node, g, index)) return fail(cudaErrorInvalidValue);
  // Not a kernel node, or one a capture made (its arguments were not kept).
  if (!g->nodes[index].kernel) return fail(cudaErrorInvalidValue);
  *params = g->nodes[index].kernel->params;
  return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* params) {
  Graph* g = nullptr;
  std::size_t index = 0;
  if (!detail::find_node(node, g, index) || !g->nodes[index].kernel) {
    return fail(cudaErrorInvalidValue);
  }
  QueuedOperation work;
  std::shared_ptr<const detail::KernelNodeArguments> kernel;
  if (cudaError_t e = detail::make_kernel_node(params, __builtin_return_address(0), work, kernel)) {
    return fail(e);
  }
  g->nodes[index].work = std::move(work);
  g->nodes[index].kernel = std::move(kernel);
  return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, std::size_t count,
                                   const cudaMemcpy3DParms* copy) {
  Graph* g = nullptr;
  std::vector<std::size_t> indices;
  if (cudaError_t e = check_add(node, graph, dependencies, count, g, indices)) return fail(e);
  if (!copy) return fail(cudaErrorInvalidValue);
  // CUDA arrays are not provided (docs/emulator.md): only pitched pointers.
  if (copy->srcArray || copy->dstArray) return fail(cudaErrorInvalidValue);
  const cudaPitchedPtr& from = copy->srcPtr;
  const cudaPitchedPtr& to = copy->dstPtr;
  const cudaExtent& extent = copy->extent;
  auto byte_at = [](const cudaPitchedPtr& p, cudaPos pos, std::size_t z) {
    return static_cast<char*>(p.ptr) + (pos.z + z) * p.pitch * p.ysize + pos.y * p.pitch + pos.x;
  };
  auto issue = [&](cudaStream_t stream) {
    for (std::size_t z = 0; z < extent.depth; ++z) {
      if (cudaError_t e = cudaMemcpy2DAsync(byte_at(to, copy->dstPos, z), to.pitch,
                                            byte_at(from, copy->srcPos, z), from.pitch,
                                            extent.width, extent.height, copy->kind, stream)) {
        return e;
      }
    }
    return cudaSuccess;
  };
  const std::string what = "memcpy node " + std::to_string(extent.depth) + " x " +
                           std::to_string(extent.height) + " rows of " +
                           std::to_string(extent.width) + " bytes";
  QueuedOperation work;
  if (cudaError_t e = capture_operation(issue, what, __builtin_return_address(0), work)) {
    return fail(e);
  }
  return add_node(node, *g, indices, std::move(work));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* dependencies, std::size_t count,
                                     void* dst, const void* src, std::size_t bytes,
                                     cudaMemcpyKind kind) {
  Graph* g = nullptr;
  std::vector<std::size_t> indices;
  if (cudaError_t e = check_add(node, graph, dependencies, count, g, indices)) return fail(e);
  QueuedOperation work;
  if (cudaError_t e = capture_operation(
          [&](cudaStream_t stream) { return cudaMemcpyAsync(dst, src, bytes, kind, stream); },
          "memcpy node", __builtin_return_address(0), work)) {
    return fail(e);
  }
  return add_node(node, *g, indices, std::move(work));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, std::size_t count,
                                   const cudaMemsetParams* memset) {
  Graph* g = nullptr;
  std::vector<std::size_t> indices;
  if (cudaError_t e = check_add(node, graph, dependencies, count, g, indices)) return fail(e);
  if (!memset) return fail(cudaErrorInvalidValue);
  const unsigned element = memset->elementSize;
  if (element != 1 && element != 2 && element != 4) return fail(cudaErrorInvalidValue);
  const std::size_t row_bytes = memset->width * element;
  const std::size_t pitch = memset->height > 1 ? memset->pitch : row_bytes;
  // An element wider than a byte is set byte by byte (little-endian, as the
  // GPU stores it): byte b of every element of a row is a 2D memset of one
  // byte wide rows `element` apart.
  auto issue = [&](cudaStream_t stream) {
    if (memset->height > 1 && pitch < row_bytes) return cudaErrorInvalidValue;
    for (std::size_t row = 0; row < memset->height; ++row) {
      char* start = static_cast<char*>(memset->dst) + row * pitch;
      for (unsigned b = 0; b < element; ++b) {
        const int byte = static_cast<int>((memset->value >> (8 * b)) & 0xffu);
        const cudaError_t e =
            element == 1 ? cudaMemsetAsync(start, byte, row_bytes, stream)
                         : cudaMemset2DAsync(start + b, element, byte, 1, memset->width, stream);
        if (e != cudaSuccess) return e;
      }
    }
    return cudaSuccess;
  };
  const std::string what = "memset node " + std::to_string(memset->height) + " rows of " +
                           std::to_string(memset->width) + " elements of " +
                           std::to_string(element) + " bytes";
  QueuedOperation work;
  if (cudaError_t e = capture_operation(issue, what, __builtin_return_address(0), work)) {
    return fail(e);
  }
  return add_node(node, *g, indices, std::move(work));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                 const cudaGraphNode_t* dependencies, std::size_t count,
                                 const cudaHostNodeParams* params) {
  Graph* g = nullptr;
  std::vector<std::size_t> indices;
  if (cudaError_t e = check_add(node, graph, dependencies, count, g, indices)) return fail(e);
  if (!params || !params->fn) return fail(cudaErrorInvalidValue);
  QueuedOperation work;
  if (cudaError_t e = capture_operation(
          [&](cudaStream_t stream) {
            return cudaLaunchHostFunc(stream, params->fn, params->userData);
          },
          "host node", __builtin_return_address(0), work)) {
    return fail(e);
  }
  return add_node(node, *g, indices, std::move(work));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                  const cudaGraphNode_t* dependencies, std::size_t count) {
  Graph* g = nullptr;
  std::vector<std::size_t> indices;
  if (cudaError_t e = check_add(node, graph, dependencies, count, g, indices)) return fail(e);
  QueuedOperation work;
  work.what = "empty node";
  work.call_site = detail::SiteRef::at_pc(__builtin_return_address(0));
  work.run = [](detail::OperationAccesses&) {};
  return add_node(node, *g, indices, std::move(work));
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData* edges,
                                     std::size_t count) {
  Graph* g = detail::live_graph(graph);
  if (!g || (count > 0 && (!from || !to))) return fail(cudaErrorInvalidValue);
  std::vector<std::pair<std::size_t, std::size_t>> added;  // (from, to)
  for (std::size_t i = 0; i < count; ++i) {
    // Programmatic edges (ports, types) are not modelled: only full dependencies.
    if (edges && (edges[i].type != cudaGraphDependencyTypeDefault || edges[i].from_port != 0 ||
                  edges[i].to_port != 0)) {
      return fail(cudaErrorNotSupported);
    }
    Graph* owner_from = nullptr;
    Graph* owner_to = nullptr;
    std::size_t f = 0, t = 0;
    if (!detail::find_node(from[i], owner_from, f) || !detail::find_node(to[i], owner_to, t) ||
        owner_from != g || owner_to != g || f == t) {
      return fail(cudaErrorInvalidValue);
    }
    const auto& existing = g->nodes[t].depends_on;
    const std::pair edge{f, t};
    // An edge that exists already (or is given twice).
    if (std::find(existing.begin(), existing.end(), f) != existing.end() ||
        std::find(added.begin(), added.end(), edge) != added.end()) {
      return fail(cudaErrorInvalidValue);
    }
    added.push_back(edge);
  }
  // A cycle is found by cudaGraphInstantiate, as on the GPU.
  for (const auto& [f, t] : added) g->nodes[t].depends_on.push_back(f);
  return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* count) {
  return list_nodes(graph, nodes, count, [](const GraphNode&) { return true; });
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* count) {
  return list_nodes(graph, nodes, count,
                    [](const GraphNode& node) { return node.depends_on.empty(); });
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              cudaGraphEdgeData* edges, std::size_t* count) {
  Graph* g = detail::live_graph(graph);
  if (!g || !count || (!from != !to) || (edges && !from)) return fail(cudaErrorInvalidValue);
  std::vector<std::pair<cudaGraphNode_t, cudaGraphNode_t>> found;
  for (std::size_t t = 0; t < g->nodes.size(); ++t) {
    if (g->nodes[t].destroyed) continue;
    for (std::size_t f : g->nodes[t].depends_on) {
      found.emplace_back(handle_of(*g, f), handle_of(*g, t));
    }
  }
  if (from) {
    for (std::size_t i = 0; i < *count; ++i) {
      from[i] = i < found.size() ? found[i].first : nullptr;
      to[i] = i < found.size() ? found[i].second : nullptr;
      if (edges) edges[i] = cudaGraphEdgeData{};
    }
  }
  *count = found.size();
  return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original) {
  Graph* g = detail::live_graph(original);
  if (!clone || !g) return fail(cudaErrorInvalidValue);
  // Kernel arguments are shared: a node's arguments are replaced, never changed.
  *clone = detail::adopt_graph(*g);
  return cudaSuccess;
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* node, cudaGraphNode_t original,
                                     cudaGraph_t clone) {
  Graph* c = detail::live_graph(clone);
  Graph* g = nullptr;
  std::size_t index = 0;
  // A clone's nodes are the original's, at the same index.
  if (!node || !c || !detail::find_node(original, g, index) || index >= c->nodes.size() ||
      c->nodes[index].destroyed) {
    return fail(cudaErrorInvalidValue);
  }
  *node = handle_of(*c, index);
  return cudaSuccess;
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  Graph* g = nullptr;
  std::size_t index = 0;
  if (!detail::find_node(node, g, index)) return fail(cudaErrorInvalidValue);
  // Its edges go with it; the slot stays, so that other handles keep their node.
  GraphNode& destroyed = g->nodes[index];
  destroyed.destroyed = true;
  destroyed.depends_on.clear();
  destroyed.work = QueuedOperation{};
  destroyed.kernel.reset();
  for (GraphNode& other : g->nodes) std::erase(other.depends_on, index);
  return cudaSuccess;
}

}  // namespace cudalab::emu
