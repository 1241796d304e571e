// NCCL on the emulator: the part of nccl.h that the labs use, with the same
// names, types and enumerator values, over SimWorld (one virtual device per
// rank). Included through cudalab/nccl.hpp when the host compiler builds
// emulator code; nvcc builds get the real <nccl.h>.
//
// What it enforces, as NCCL does or documents (docs/comm.md):
// * ncclCommInitRank waits until all nranks ranks have called it with the
//   same id (a rank that never comes: ncclInvalidUsage after the time-out,
//   CUDALAB_NCCL_TIMEOUT_S seconds, default 30); two ranks on one device are
//   refused ("Duplicate GPU detected"), as NCCL 2.28 refuses them.
// * Calls between ncclGroupStart and ncclGroupEnd are posted together at
//   ncclGroupEnd, which is how one thread drives several ranks and how a
//   rank sends and receives at once. An ungrouped send whose peer also
//   sends first is a deadlock, reported by name rather than hanging; so is
//   an ungrouped call by a thread that drives every rank (ncclCommInitAll),
//   after a grace second in which another thread could still have come.
// * Collectives must match across ranks (kind, count, type, op, root).
// Data types: ncclFloat32 and ncclInt32; operations: ncclSum and ncclMax.
// Failures return an ncclResult_t; ncclGetLastError says what happened.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/comm/sim_world.hpp"
#include "cudalab/cuda_error.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab::comm {
inline namespace CUDALAB_BACKEND {
namespace emulated_nccl {

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
  char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
  ncclNumResults = 8
} ncclResult_t;

typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 } ncclRedOp_t;

typedef enum {
  ncclInt8 = 0,
  ncclChar = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclInt = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclHalf = 6,
  ncclFloat32 = 7,
  ncclFloat = 7,
  ncclFloat64 = 8,
  ncclDouble = 8,
  ncclBfloat16 = 9
} ncclDataType_t;

struct ncclComm {
  std::shared_ptr<SimWorld> world;
  int rank = 0;
};
typedef ncclComm* ncclComm_t;

namespace detail {

inline std::string& last_error() {
  thread_local std::string message;
  return message;
}

inline ncclResult_t fail(ncclResult_t result, std::string message) {
  last_error() = "emulated NCCL: " + std::move(message);
  return result;
}

// Runs `body`, turning what it throws into NCCL's result codes.
template <class Body>
ncclResult_t guarded(Body body) {
  try {
    body();
    return ncclSuccess;
  } catch (const CommError& e) {
    return fail(ncclInvalidUsage, e.what());
  } catch (const CudaError& e) {
    return fail(ncclUnhandledCudaError, e.what());
  } catch (const std::exception& e) {
    return fail(ncclInternalError, e.what());
  }
}

inline std::chrono::milliseconds timeout() {
  const char* env = std::getenv("CUDALAB_NCCL_TIMEOUT_S");
  const double seconds = env && *env ? std::atof(env) : 30.0;
  return std::chrono::milliseconds(static_cast<long long>((seconds > 0 ? seconds : 30.0) * 1000));
}

// Ranks of one ncclUniqueId gathering in ncclCommInitRank.
struct Gathering {
  int nranks = 0;
  std::vector<int> devices;  // -1 until the rank arrives
  int arrived = 0;
  std::shared_ptr<SimWorld> world;
  std::string error;
};

struct Registry {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::shared_ptr<Gathering>> gatherings;
  unsigned long long next_id = 0;
};

inline Registry& registry() {
  static Registry r;
  return r;
}

inline std::string duplicate_device(const std::vector<int>& devices) {
  for (std::size_t a = 0; a < devices.size(); ++a) {
    for (std::size_t b = a + 1; b < devices.size(); ++b) {
      if (devices[a] == devices[b]) {
        return "Duplicate GPU detected: rank " + std::to_string(a) + " and rank " +
               std::to_string(b) + " both on device " + std::to_string(devices[a]) +
               " (NCCL needs one device per rank; cudaSetDevice before ncclCommInitRank)";
      }
    }
  }
  return {};
}

struct GroupCall {
  ncclComm_t comm;
  SimOp op;
};

inline int& group_depth() {
  thread_local int depth = 0;
  return depth;
}
inline std::vector<GroupCall>& group_calls() {
  thread_local std::vector<GroupCall> calls;
  return calls;
}

inline void run_calls(std::vector<GroupCall> calls) {
  // One run_group per world, in the order the worlds first appear.
  while (!calls.empty()) {
    const std::shared_ptr<SimWorld> world = calls.front().comm->world;
    std::vector<SimOp> ops;
    std::vector<GroupCall> rest;
    for (GroupCall& c : calls) {
      if (c.comm->world == world) {
        ops.push_back(c.op);
      } else {
        rest.push_back(c);
      }
    }
    world->run_group(ops);
    calls.swap(rest);
  }
}

inline ncclResult_t enqueue(ncclComm_t comm, SimOp op, ncclDataType_t datatype) {
  if (comm == nullptr || !comm->world) return fail(ncclInvalidArgument, "null communicator");
  if (datatype != ncclFloat32 && datatype != ncclInt32) {
    return fail(ncclInvalidArgument, "data type " + std::to_string(datatype) +
                                         " is not emulated (ncclFloat32 and ncclInt32 are)");
  }
  op.type = datatype == ncclFloat32 ? DataType::f32 : DataType::i32;
  op.rank = comm->rank;
  const int n = comm->world->size();
  const bool has_peer =
      op.kind == OpKind::send || op.kind == OpKind::recv || op.kind == OpKind::broadcast;
  if (has_peer && (op.peer < 0 || op.peer >= n)) {
    return fail(ncclInvalidArgument, std::string(to_string(op.kind)) + " on rank " +
                                         std::to_string(comm->rank) + ": rank " +
                                         std::to_string(op.peer) + " is not among the " +
                                         std::to_string(n) + " ranks");
  }
  if (op.count > 0 && ((op.kind != OpKind::recv && op.src == nullptr &&
                        !(op.kind == OpKind::broadcast && op.peer != comm->rank)) ||
                       (op.kind != OpKind::send && op.dst == nullptr))) {
    return fail(ncclInvalidArgument, std::string(to_string(op.kind)) + " on rank " +
                                         std::to_string(comm->rank) + ": null buffer");
  }
  if (group_depth() > 0) {
    group_calls().push_back({comm, op});
    return ncclSuccess;
  }
  return guarded([&] { run_calls({{comm, op}}); });
}

inline ncclResult_t reduce_op(ncclRedOp_t op, ReduceOp* out) {
  if (op == ncclSum) {
    *out = ReduceOp::sum;
  } else if (op == ncclMax) {
    *out = ReduceOp::max;
  } else {
    return fail(ncclInvalidArgument,
                "reduction " + std::to_string(op) + " is not emulated (ncclSum and ncclMax are)");
  }
  return ncclSuccess;
}

}  // namespace detail

inline const char* ncclGetErrorString(ncclResult_t result) {
  switch (result) {
    case ncclSuccess:
      return "no error";
    case ncclUnhandledCudaError:
      return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError:
      return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError:
      return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument:
      return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage:
      return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError:
      return "remote process exited or there was a network error";
    case ncclInProgress:
      return "NCCL operation in progress";
    default:
      return "unknown result code";
  }
}

inline const char* ncclGetLastError(ncclComm_t) { return detail::last_error().c_str(); }

inline ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  if (id == nullptr) return detail::fail(ncclInvalidArgument, "ncclGetUniqueId: null id");
  detail::Registry& reg = detail::registry();
  std::lock_guard lock(reg.mutex);
  std::memset(id->internal, 0, sizeof(id->internal));
  const std::string text = "cudalab-emulated-nccl-" + std::to_string(++reg.next_id);
  std::memcpy(id->internal, text.c_str(), text.size());
  return ncclSuccess;
}

inline ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  if (comm == nullptr) return detail::fail(ncclInvalidArgument, "ncclCommInitRank: null comm");
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    return detail::fail(ncclInvalidArgument, "ncclCommInitRank: rank " + std::to_string(rank) +
                                                 " of " + std::to_string(nranks) + " ranks");
  }
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    return detail::fail(ncclUnhandledCudaError, "ncclCommInitRank: cudaGetDevice failed");
  }
  const std::string key(id.internal, strnlen(id.internal, sizeof(id.internal)));
  detail::Registry& reg = detail::registry();
  std::unique_lock lock(reg.mutex);
  auto& slot = reg.gatherings[key];
  if (!slot) {
    slot = std::make_shared<detail::Gathering>();
    slot->nranks = nranks;
    slot->devices.assign(static_cast<std::size_t>(nranks), -1);
  }
  const std::shared_ptr<detail::Gathering> g = slot;
  if (g->nranks != nranks) {
    return detail::fail(ncclInvalidUsage, "ncclCommInitRank: rank " + std::to_string(rank) +
                                              " says " + std::to_string(nranks) +
                                              " ranks, an earlier rank said " +
                                              std::to_string(g->nranks));
  }
  if (g->devices[static_cast<std::size_t>(rank)] != -1) {
    return detail::fail(ncclInvalidUsage,
                        "ncclCommInitRank: rank " + std::to_string(rank) + " joined twice");
  }
  g->devices[static_cast<std::size_t>(rank)] = device;
  if (++g->arrived == nranks) {
    reg.gatherings.erase(key);
    g->error = detail::duplicate_device(g->devices);
    if (g->error.empty()) {
      try {
        g->world = std::make_shared<SimWorld>(g->devices, detail::timeout());
      } catch (const std::exception& e) {
        g->error = e.what();
      }
    }
    reg.changed.notify_all();
  }
  const auto deadline = std::chrono::steady_clock::now() + detail::timeout();
  while (!g->world && g->error.empty()) {
    if (reg.changed.wait_until(lock, deadline) == std::cv_status::timeout && !g->world &&
        g->error.empty()) {
      std::string missing;
      for (int r = 0; r < nranks; ++r) {
        if (g->devices[static_cast<std::size_t>(r)] == -1) missing += " " + std::to_string(r);
      }
      g->error = "ncclCommInitRank: " + std::to_string(g->arrived) + " of " +
                 std::to_string(nranks) + " ranks joined; ranks" + missing + " never did";
      reg.gatherings.erase(key);
      reg.changed.notify_all();
    }
  }
  if (!g->error.empty()) return detail::fail(ncclInvalidUsage, g->error);
  *comm = new ncclComm{g->world, rank};
  return ncclSuccess;
}

inline ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  if (comms == nullptr || ndev < 1) {
    return detail::fail(ncclInvalidArgument, "ncclCommInitAll: no communicators to make");
  }
  std::vector<int> devices(static_cast<std::size_t>(ndev));
  for (int r = 0; r < ndev; ++r) devices[static_cast<std::size_t>(r)] = devlist ? devlist[r] : r;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    return detail::fail(ncclUnhandledCudaError, "ncclCommInitAll: cudaGetDeviceCount failed");
  }
  for (const int d : devices) {
    if (d < 0 || d >= count) {
      return detail::fail(ncclInvalidArgument, "ncclCommInitAll: device " + std::to_string(d) +
                                                   " does not exist (" + std::to_string(count) +
                                                   " devices)");
    }
  }
  const std::string duplicate = detail::duplicate_device(devices);
  if (!duplicate.empty()) return detail::fail(ncclInvalidUsage, duplicate);
  std::shared_ptr<SimWorld> world;
  const ncclResult_t made =
      detail::guarded([&] { world = std::make_shared<SimWorld>(devices, detail::timeout()); });
  if (made != ncclSuccess) return made;
  world->driven_by_this_thread();
  for (int r = 0; r < ndev; ++r) comms[r] = new ncclComm{world, r};
  return ncclSuccess;
}

inline ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (comm == nullptr) return ncclSuccess;
  if (comm->world) comm->world->leave(comm->rank);
  delete comm;
  return ncclSuccess;
}

inline ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  if (comm == nullptr || count == nullptr)
    return detail::fail(ncclInvalidArgument, "ncclCommCount: null argument");
  *count = comm->world->size();
  return ncclSuccess;
}
inline ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  if (comm == nullptr || rank == nullptr)
    return detail::fail(ncclInvalidArgument, "ncclCommUserRank: null argument");
  *rank = comm->rank;
  return ncclSuccess;
}
inline ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device) {
  if (comm == nullptr || device == nullptr)
    return detail::fail(ncclInvalidArgument, "ncclCommCuDevice: null argument");
  *device = comm->world->device_of(comm->rank);
  return ncclSuccess;
}

inline ncclResult_t ncclGroupStart() {
  ++detail::group_depth();
  return ncclSuccess;
}
inline ncclResult_t ncclGroupEnd() {
  if (detail::group_depth() == 0) {
    return detail::fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  }
  if (--detail::group_depth() > 0) return ncclSuccess;
  std::vector<detail::GroupCall> calls;
  calls.swap(detail::group_calls());
  return detail::guarded([&] { detail::run_calls(std::move(calls)); });
}

inline ncclResult_t ncclSend(const void* sendbuff, std::size_t count, ncclDataType_t datatype,
                             int peer, ncclComm_t comm, cudaStream_t stream) {
  return detail::enqueue(comm, {OpKind::send, 0, peer, sendbuff, nullptr, count, {}, {}, stream},
                         datatype);
}
inline ncclResult_t ncclRecv(void* recvbuff, std::size_t count, ncclDataType_t datatype, int peer,
                             ncclComm_t comm, cudaStream_t stream) {
  return detail::enqueue(comm, {OpKind::recv, 0, peer, nullptr, recvbuff, count, {}, {}, stream},
                         datatype);
}
inline ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, std::size_t count,
                                  ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                  cudaStream_t stream) {
  ReduceOp reduce{};
  if (const ncclResult_t r = detail::reduce_op(op, &reduce); r != ncclSuccess) return r;
  return detail::enqueue(
      comm, {OpKind::all_reduce, 0, 0, sendbuff, recvbuff, count, {}, reduce, stream}, datatype);
}
inline ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, std::size_t count,
                                  ncclDataType_t datatype, int root, ncclComm_t comm,
                                  cudaStream_t stream) {
  return detail::enqueue(
      comm, {OpKind::broadcast, 0, root, sendbuff, recvbuff, count, {}, {}, stream}, datatype);
}
inline ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, std::size_t sendcount,
                                  ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream) {
  return detail::enqueue(
      comm, {OpKind::all_gather, 0, 0, sendbuff, recvbuff, sendcount, {}, {}, stream}, datatype);
}
inline ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, std::size_t recvcount,
                                      ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                      cudaStream_t stream) {
  ReduceOp reduce{};
  if (const ncclResult_t r = detail::reduce_op(op, &reduce); r != ncclSuccess) return r;
  return detail::enqueue(
      comm, {OpKind::reduce_scatter, 0, 0, sendbuff, recvbuff, recvcount, {}, reduce, stream},
      datatype);
}

}  // namespace emulated_nccl
}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::comm

// CUDA code calls NCCL unqualified.
using namespace ::cudalab::comm::CUDALAB_BACKEND::emulated_nccl;
