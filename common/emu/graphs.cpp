// CUDA graphs (docs/emulator.md, "Graphs"): the graph and executable-graph
// handles, instantiation (which orders the nodes and gives each a lane), and
// cudaGraphLaunch, which issues the graph's nodes again through the device
// model. Graphs are made by stream capture (stream_capture.cpp) or node by
// node (graph_nodes.cpp).
//
// A launch keeps the graph's concurrency: nodes captured on one stream (or
// added through the node API as a chain) run
// in order on a stream of the executable graph's own (a lane), and a node
// that depends on another lane's node waits for an event recorded after it
// (reports name a lane "lane 2 of graph 1", graphs numbered as instantiated).
// Every lane starts after the work issued to the launch stream before the
// launch, and that stream's later work waits for every lane. So the race
// checker sees two nodes that the graph leaves unordered as the operations
// of two streams with nothing ordering them, and the modelled clock lets
// independent branches overlap, as the GPU does.
#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cudalab/emu/runtime.hpp"
#include "streams.hpp"

namespace cudalab::emu {

namespace {

// An instantiated graph: its own copy of the nodes, each node's lane, and the
// streams and events a launch uses (made once, reused by every launch).
struct GraphExec {
  std::vector<detail::GraphNode> nodes;  // in an order that runs each after its dependencies
  std::vector<const detail::GraphNode*> source;  // per node: the graph's node it copies (a handle)
  std::vector<std::size_t> lane_of;              // per node
  std::vector<bool> waited_across;               // per node: a node of another lane depends on it
  std::vector<cudaStream_t> lanes;
  std::vector<cudaEvent_t> node_done;  // per node, where waited_across
  cudaEvent_t start = nullptr;
  std::vector<cudaEvent_t> lane_done;
  int device = 0;
};

struct Registry {
  std::mutex mutex;
  std::set<const detail::Graph*> graphs;
  std::set<const GraphExec*> execs;
};

Registry& registry() {
  static Registry r;
  return r;
}

cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }

GraphExec* live_exec(cudaGraphExec_t handle) {
  auto* x = reinterpret_cast<GraphExec*>(handle);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.execs.count(x) ? x : nullptr;
}

// The graph's nodes not destroyed, each after the nodes it depends on (a
// node added by the node API may depend on a later one); false when the
// dependencies form a cycle.
bool copy_in_dependency_order(const detail::Graph& g, GraphExec& x) {
  const std::size_t n = g.nodes.size();
  std::vector<std::size_t> position(n, n);  // n: not placed yet
  std::vector<std::size_t> waiting(n, 0);   // dependencies not placed yet
  std::vector<std::vector<std::size_t>> dependents(n);
  std::vector<std::size_t> ready;
  std::size_t live = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (g.nodes[i].destroyed) continue;
    ++live;
    for (std::size_t d : g.nodes[i].depends_on) {
      dependents[d].push_back(i);
      ++waiting[i];
    }
    if (waiting[i] == 0) ready.push_back(i);
  }
  // Lowest index first: a captured graph keeps its capture order.
  std::sort(ready.begin(), ready.end(), std::greater<>());
  while (!ready.empty()) {
    const std::size_t i = ready.back();
    ready.pop_back();
    position[i] = x.nodes.size();
    detail::GraphNode node = g.nodes[i];
    for (std::size_t& d : node.depends_on) d = position[d];
    x.nodes.push_back(std::move(node));
    x.source.push_back(&g.nodes[i]);
    for (std::size_t next : dependents[i]) {
      if (--waiting[next] == 0) {
        ready.push_back(next);
        std::sort(ready.begin(), ready.end(), std::greater<>());
      }
    }
  }
  return x.nodes.size() == live;
}

// Nodes captured on one stream form a chain (each depends on the one
// before), so each captured stream becomes one lane. A node added by the
// node API continues the lane of a dependency that no other node continued
// yet, else starts a lane: a chain of them runs on one stream, and branches
// on streams of their own.
void assign_lanes(GraphExec& x) {
  std::map<cudaStream_t, std::size_t> lane_of_stream;
  std::vector<std::size_t> last_on_lane;  // per lane: the node it ran last
  std::size_t lanes = 0;
  for (std::size_t i = 0; i < x.nodes.size(); ++i) {
    const detail::GraphNode& node = x.nodes[i];
    std::size_t lane = lanes;
    if (!node.added_by_api) {
      lane = lane_of_stream.try_emplace(node.work.stream, lanes).first->second;
    } else {
      for (std::size_t d : node.depends_on) {
        if (x.nodes[d].added_by_api && last_on_lane[x.lane_of[d]] == d) {
          lane = x.lane_of[d];
          break;
        }
      }
    }
    if (lane == lanes) {
      ++lanes;
      last_on_lane.push_back(i);
    }
    last_on_lane[lane] = i;
    x.lane_of.push_back(lane);
  }
  x.waited_across.assign(x.nodes.size(), false);
  for (std::size_t i = 0; i < x.nodes.size(); ++i) {
    for (std::size_t d : x.nodes[i].depends_on) {
      if (x.lane_of[d] != x.lane_of[i]) x.waited_across[d] = true;
    }
  }
  x.lanes.assign(lanes, nullptr);
}

void destroy_exec(GraphExec& x) {
  for (cudaStream_t s : x.lanes) {
    if (s) cudaStreamDestroy(s);  // work it holds still runs
  }
  for (cudaEvent_t e : x.node_done) {
    if (e) cudaEventDestroy(e);
  }
  for (cudaEvent_t e : x.lane_done) {
    if (e) cudaEventDestroy(e);
  }
  if (x.start) cudaEventDestroy(x.start);
}

cudaError_t make_launch_resources(GraphExec& x, unsigned number) {
  constexpr unsigned no_timing = cudaEventDisableTiming;
  for (std::size_t l = 0; l < x.lanes.size(); ++l) {
    if (cudaError_t e = cudaStreamCreateWithFlags(&x.lanes[l], cudaStreamNonBlocking);
        e != cudaSuccess) {
      return e;
    }
    detail::set_stream_label(x.lanes[l], "lane " + std::to_string(l + 1) + " of graph " +
                                             std::to_string(number) + " (its own stream)");
  }
  x.node_done.assign(x.nodes.size(), nullptr);
  for (std::size_t i = 0; i < x.nodes.size(); ++i) {
    if (!x.waited_across[i]) continue;
    if (cudaError_t e = cudaEventCreateWithFlags(&x.node_done[i], no_timing); e != cudaSuccess) {
      return e;
    }
  }
  x.lane_done.assign(x.lanes.size(), nullptr);
  for (cudaEvent_t& done : x.lane_done) {
    if (cudaError_t e = cudaEventCreateWithFlags(&done, no_timing); e != cudaSuccess) return e;
  }
  return cudaEventCreateWithFlags(&x.start, no_timing);
}

}  // namespace

cudaGraph_t detail::adopt_graph(Graph graph) {
  auto* g = new Graph(std::move(graph));
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.graphs.insert(g);
  return reinterpret_cast<cudaGraph_t>(g);
}

detail::Graph* detail::live_graph(cudaGraph_t handle) {
  auto* g = reinterpret_cast<detail::Graph*>(handle);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.graphs.count(g) ? g : nullptr;
}

bool detail::find_node(cudaGraphNode_t handle, Graph*& graph, std::size_t& index) {
  const auto* wanted = reinterpret_cast<const GraphNode*>(handle);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const Graph* g : r.graphs) {
    for (std::size_t i = 0; i < g->nodes.size(); ++i) {
      if (&g->nodes[i] == wanted && !g->nodes[i].destroyed) {
        graph = const_cast<Graph*>(g);
        index = i;
        return true;
      }
    }
  }
  return false;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  detail::Graph* g = detail::live_graph(graph);
  if (!g) return fail(cudaErrorInvalidValue);
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.graphs.erase(g);
  }
  delete g;  // executable graphs keep their own copy
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags) {
  constexpr unsigned long long known =
      cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUpload |
      cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagUseNodePriority;
  detail::Graph* g = detail::live_graph(graph);
  if (!exec || !g || (flags & ~known)) return fail(cudaErrorInvalidValue);
  auto x = std::make_unique<GraphExec>();
  // A cycle: what CUDA answers for a graph of invalid structure.
  if (!copy_in_dependency_order(*g, *x)) return fail(cudaErrorInvalidValue);
  x->device = detail::current_device();
  assign_lanes(*x);
  static std::atomic<unsigned> instantiated{0};
  if (cudaError_t e = make_launch_resources(*x, ++instantiated); e != cudaSuccess) {
    destroy_exec(*x);
    return fail(e);
  }
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.execs.insert(x.get());
  *exec = reinterpret_cast<cudaGraphExec_t>(x.release());
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                          unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  GraphExec* x = live_exec(exec);
  if (!x) return fail(cudaErrorInvalidValue);
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.execs.erase(x);
  }
  destroy_exec(*x);
  delete x;
  return cudaSuccess;
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* params) {
  GraphExec* x = live_exec(exec);
  if (!x || !params) return fail(cudaErrorInvalidValue);
  const auto* source = reinterpret_cast<const detail::GraphNode*>(node);
  const auto found = std::find(x->source.begin(), x->source.end(), source);
  if (found == x->source.end()) return fail(cudaErrorInvalidValue);
  detail::GraphNode& copy = x->nodes[static_cast<std::size_t>(found - x->source.begin())];
  if (!copy.kernel) return fail(cudaErrorInvalidValue);  // not a kernel node added by the API
  detail::QueuedOperation work;
  std::shared_ptr<const detail::KernelNodeArguments> kernel;
  if (cudaError_t e = detail::make_kernel_node(params, __builtin_return_address(0), work, kernel);
      e != cudaSuccess) {
    return fail(e);
  }
  // Launches already issued keep their copy of the old operation.
  copy.work = std::move(work);
  copy.kernel = std::move(kernel);
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  GraphExec* x = live_exec(exec);
  if (!x) return fail(cudaErrorInvalidValue);
  if (!detail::is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  // A graph launched inside a capture would be a child-graph node: not
  // modelled (docs/emulator.md, "Graphs").
  if (detail::is_capturing(stream)) return fail(cudaErrorStreamCaptureUnsupported);
  // The lanes belong to the device the graph was instantiated on.
  if (detail::device_of_stream(stream) != x->device) return fail(cudaErrorInvalidValue);
  cudaEventRecord(x->start, stream);
  for (cudaStream_t lane : x->lanes) cudaStreamWaitEvent(lane, x->start, 0);
  for (std::size_t i = 0; i < x->nodes.size(); ++i) {
    const detail::GraphNode& node = x->nodes[i];
    cudaStream_t lane = x->lanes[x->lane_of[i]];
    for (std::size_t d : node.depends_on) {
      if (x->lane_of[d] != x->lane_of[i]) cudaStreamWaitEvent(lane, x->node_done[d], 0);
    }
    detail::QueuedOperation work = node.work;
    work.stream = lane;
    work.what += " (graph node " + std::to_string(i) + ")";
    detail::enqueue(std::move(work), false);
    if (x->waited_across[i]) cudaEventRecord(x->node_done[i], lane);
  }
  for (std::size_t l = 0; l < x->lanes.size(); ++l) {
    cudaEventRecord(x->lane_done[l], x->lanes[l]);
    cudaStreamWaitEvent(stream, x->lane_done[l], 0);
  }
  return cudaSuccess;
}

}  // namespace cudalab::emu
