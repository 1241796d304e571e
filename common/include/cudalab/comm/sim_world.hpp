// SimWorld: n simulated ranks that meet to exchange device buffers, with
// NCCL's matching rules, on whichever CUDA runtime this file is compiled
// against. On the emulator each rank is a virtual device (rank r on device
// r); on one GPU every rank is a stream of that GPU, so NCCL's refusal of
// two ranks on one device does not matter. SimComm (sim_comm.hpp) and the
// emulator's NCCL (cudalab/emu/nccl.hpp) post their operations here.
//
// How an operation is carried out (docs/comm.md, "The simulated backends"):
// * Posting records a "ready" event on the operation's stream.
// * When a send meets its recv, the receiver's stream waits for the send's
//   ready event, copies (cudaMemcpyPeerAsync) and records "done"; the
//   sender's stream waits for "done", so neither side's later work can
//   overtake the copy.
// * When every rank has posted its next collective, each rank's stream waits
//   for all ranks' ready events, gathers and reduces into a staging buffer
//   of its own (in rank order, so every rank gets the same bits), records
//   "gathered"; then each waits for every rank's "gathered" before writing
//   its output (so an in-place output never overwrites an input another rank
//   still reads).
// The host side blocks until its group is matched; when every rank is
// blocked and nothing can match, that is a deadlock, reported with what each
// rank waits for. A rank that waits longer than the time-out (a peer that
// never comes) gets an error too. Every CUDA call is checked.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/comm/comm.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab::comm {
inline namespace CUDALAB_BACKEND {

namespace sim_detail {

template <class T, ReduceOp op>
__global__ void accumulate_kernel(T* acc, const T* in, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    if constexpr (op == ReduceOp::sum) {
      acc[i] = acc[i] + in[i];
    } else {
      acc[i] = in[i] > acc[i] ? in[i] : acc[i];
    }
  }
}

template <class T>
void accumulate_as(void* acc, const void* in, std::size_t count, ReduceOp op, cudaStream_t stream) {
  constexpr unsigned kBlock = 256;
  const std::size_t blocks = std::min<std::size_t>((count + kBlock - 1) / kBlock, 1024);
  void (*const kernel)(T*, const T*, std::size_t) = op == ReduceOp::sum
                                                        ? accumulate_kernel<T, ReduceOp::sum>
                                                        : accumulate_kernel<T, ReduceOp::max>;
  const dim3 grid(static_cast<unsigned>(blocks));
#if CUDALAB_GPU
  kernel<<<grid, kBlock, 0, stream>>>(static_cast<T*>(acc), static_cast<const T*>(in), count);
#else
  // What tools/emu_rewrite.py makes of the launch above: this header is
  // compiled as it is, not rewritten.
  ::cudalab::emu::launch_chevron(kernel, ::cudalab::emu::ChevronConfig{grid, kBlock, 0, stream},
                                 static_cast<T*>(acc), static_cast<const T*>(in), count);
#endif
  CUDA_CHECK_LAUNCH();
}

// acc[i] = acc[i] op in[i], queued on `stream` (of the current device).
inline void accumulate(void* acc, const void* in, std::size_t count, DataType type, ReduceOp op,
                       cudaStream_t stream) {
  if (count == 0) return;
  if (type == DataType::f32) {
    accumulate_as<float>(acc, in, count, op, stream);
  } else {
    accumulate_as<int>(acc, in, count, op, stream);
  }
}

// Makes `device` current for a scope and restores the caller's.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    CUDA_CHECK(cudaGetDevice(&saved_));
    if (device != saved_) CUDA_CHECK(cudaSetDevice(device));
  }
  // The saved device may no longer exist (the emulator's device count
  // changed meanwhile): then the failure is dropped, not left as the
  // thread's last error for an innocent CUDA_CHECK_LAUNCH to find.
  ~DeviceScope() {
    if (cudaSetDevice(saved_) != cudaSuccess) static_cast<void>(cudaGetLastError());
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int saved_ = 0;
};

}  // namespace sim_detail

enum class OpKind { send, recv, all_reduce, broadcast, all_gather, reduce_scatter };

inline const char* to_string(OpKind kind) {
  switch (kind) {
    case OpKind::send:
      return "send";
    case OpKind::recv:
      return "recv";
    case OpKind::all_reduce:
      return "all_reduce";
    case OpKind::broadcast:
      return "broadcast";
    case OpKind::all_gather:
      return "all_gather";
    case OpKind::reduce_scatter:
      return "reduce_scatter";
  }
  return "?";
}

// One operation of one rank. `peer` is the other rank of a send or recv and
// the root of a broadcast. `count` is per rank (NCCL's convention: an
// all_gather's recv and a reduce_scatter's send hold size() * count).
struct SimOp {
  OpKind kind = OpKind::send;
  int rank = 0;
  int peer = 0;
  const void* src = nullptr;
  void* dst = nullptr;
  std::size_t count = 0;
  DataType type = DataType::f32;
  ReduceOp op = ReduceOp::sum;
  cudaStream_t stream = nullptr;
};

inline std::string describe(const SimOp& op) {
  std::ostringstream out;
  out << to_string(op.kind) << " of " << op.count << " " << to_string(op.type);
  if (op.kind == OpKind::send) out << " to rank " << op.peer;
  if (op.kind == OpKind::recv) out << " from rank " << op.peer;
  if (op.kind == OpKind::broadcast) out << " from root " << op.peer;
  if (op.kind == OpKind::all_reduce || op.kind == OpKind::reduce_scatter) {
    out << " (" << to_string(op.op) << ")";
  }
  return out.str();
}

// A matched send/recv pair, recorded in the order the world matched them:
// what a timeline of the algorithm shows.
struct SimMessage {
  int from = 0;
  int to = 0;
  const void* src = nullptr;
  void* dst = nullptr;
  std::size_t bytes = 0;
};

class SimWorld {
 public:
  // Rank r runs on devices[r] (the same device for all, or one each).
  // A rank that waits `timeout` for peers gets a CommError.
  explicit SimWorld(std::vector<int> devices,
                    std::chrono::milliseconds timeout = std::chrono::seconds(30))
      : devices_(std::move(devices)), timeout_(timeout) {
    if (devices_.empty()) throw CommError("cudalab::comm: a world needs at least one rank");
    const std::size_t n = devices_.size();
    pairs_.resize(n * n);
    collectives_.resize(n);
    blocked_.assign(n, 0);
    left_.assign(n, false);
    drivers_.assign(n, std::thread::id());
    streams_.assign(n, nullptr);
    for (std::size_t r = 0; r < n; ++r) {
      sim_detail::DeviceScope on(devices_[r]);
      CUDA_CHECK(cudaStreamCreateWithFlags(&streams_[r], cudaStreamNonBlocking));
    }
#if CUDALAB_GPU
    enable_peer_copies();
#endif
  }
  ~SimWorld() {
    int caller = 0;
    static_cast<void>(cudaGetDevice(&caller));
    for (std::size_t r = 0; r < streams_.size(); ++r) {
      if (cudaSetDevice(devices_[r]) != cudaSuccess) continue;
      static_cast<void>(cudaStreamSynchronize(streams_[r]));
      static_cast<void>(cudaStreamDestroy(streams_[r]));
    }
    if (cudaSetDevice(caller) != cudaSuccess) static_cast<void>(cudaGetLastError());
  }
  SimWorld(const SimWorld&) = delete;
  SimWorld& operator=(const SimWorld&) = delete;

  int size() const { return static_cast<int>(devices_.size()); }
  int device_of(int rank) const { return devices_[static_cast<std::size_t>(rank)]; }
  // A non-blocking stream per rank, for callers that have none of their own.
  cudaStream_t stream_of(int rank) const { return streams_[static_cast<std::size_t>(rank)]; }

  // Posts `ops` (of one rank, or of several when one thread drives them),
  // matches them with what the peers posted and queues their copies; returns
  // once every one is matched and queued. Throws CommError on a mismatch, a
  // deadlock, a time-out or another rank's failure.
  void run_group(const std::vector<SimOp>& ops) {
    std::unique_lock lock(mutex_);
    throw_if_failed();
    std::vector<std::shared_ptr<Posted>> mine;
    for (const SimOp& op : ops) {
      check_rank(op.rank, "posts");
      if (left_[static_cast<std::size_t>(op.rank)]) {
        fail_locked("rank " + std::to_string(op.rank) + " posts " + describe(op) +
                    " after it left the communicator");
      }
      mine.push_back(post(op));
      drivers_[static_cast<std::size_t>(op.rank)] = std::this_thread::get_id();
    }
    match_all();
    wait_for(lock, mine, [&] { return all_of_done(mine); });
  }

  // Returns when every rank that has not left calls it (host side only).
  void barrier(int rank) {
    std::unique_lock lock(mutex_);
    throw_if_failed();
    check_rank(rank, "waits at the barrier");
    auto self = std::make_shared<Posted>();
    self->op.rank = rank;
    self->barrier = true;
    barrier_waiting_.push_back(self);
    release_barrier_if_complete();
    wait_for(lock, {self}, [&] { return self->done; });
  }

  // The calling thread drives every rank until another thread posts for one
  // (ncclCommInitAll: one thread, several devices).
  void driven_by_this_thread() {
    std::lock_guard lock(mutex_);
    drivers_.assign(devices_.size(), std::this_thread::get_id());
  }

  // Every send/recv matched so far, in matching order.
  std::vector<SimMessage> messages() {
    std::lock_guard lock(mutex_);
    return messages_;
  }

  // The rank will post nothing more: peers waiting for it learn at once.
  void leave(int rank) {
    std::lock_guard lock(mutex_);
    left_[static_cast<std::size_t>(rank)] = true;
    release_barrier_if_complete();
    changed_.notify_all();
  }

  // Something failed on `rank`; every waiting rank is woken with `why`.
  void fail(const std::string& why) {
    std::lock_guard lock(mutex_);
    if (error_.empty()) error_ = why;
    changed_.notify_all();
  }

 private:
#if CUDALAB_GPU
  // Ranks on different GPUs copy directly over NVLink (or PCIe) when the
  // devices allow it; otherwise cudaMemcpyPeerAsync stages the copy and is
  // only slower. (The emulator leaves peer access off: its copies need none,
  // and a kernel that touches another rank's memory is then reported.)
  void enable_peer_copies() {
    for (const int device : devices_) {
      for (const int peer : devices_) {
        if (peer == device) continue;
        int can = 0;
        CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, peer));
        if (!can) continue;
        sim_detail::DeviceScope on(device);
        const cudaError_t enabled = cudaDeviceEnablePeerAccess(peer, 0);
        if (enabled == cudaErrorPeerAccessAlreadyEnabled) {
          static_cast<void>(cudaGetLastError());
        } else {
          CUDA_CHECK(enabled);
        }
      }
    }
  }
#endif

  struct Posted {
    SimOp op;
    cudaEvent_t ready = nullptr;
    bool done = false;
    bool barrier = false;
  };

  void check_rank(int rank, const char* what) {
    if (rank >= 0 && rank < size()) return;
    fail_locked("rank " + std::to_string(rank) + " " + what +
                ", but the communicator has ranks 0 to " + std::to_string(size() - 1));
  }

  [[noreturn]] void fail_locked(const std::string& why) {
    if (error_.empty()) error_ = why;
    changed_.notify_all();
    throw CommError("cudalab::comm: " + why);
  }

  void throw_if_failed() const {
    if (!error_.empty()) throw CommError("cudalab::comm: " + error_);
  }

  static bool all_of_done(const std::vector<std::shared_ptr<Posted>>& posted) {
    return std::all_of(posted.begin(), posted.end(), [](const auto& p) { return p->done; });
  }

  std::shared_ptr<Posted> post(const SimOp& op) {
    auto posted = std::make_shared<Posted>();
    posted->op = op;
    {
      sim_detail::DeviceScope on(device_of(op.rank));
      CUDA_CHECK(cudaEventCreateWithFlags(&posted->ready, cudaEventDisableTiming));
      CUDA_CHECK(cudaEventRecord(posted->ready, op.stream));
    }
    const std::size_t n = devices_.size();
    if (op.kind == OpKind::send || op.kind == OpKind::recv) {
      check_rank(op.peer, "names a peer");
      const bool is_send = op.kind == OpKind::send;
      const std::size_t from = static_cast<std::size_t>(is_send ? op.rank : op.peer);
      const std::size_t to = static_cast<std::size_t>(is_send ? op.peer : op.rank);
      (is_send ? pairs_[from * n + to].sends : pairs_[from * n + to].recvs).push_back(posted);
    } else {
      if (op.kind == OpKind::broadcast) check_rank(op.peer, "names a broadcast root");
      collectives_[static_cast<std::size_t>(op.rank)].push_back(posted);
    }
    return posted;
  }

  // Matches whatever can be matched, oldest first.
  void match_all() {
    for (Pair& pair : pairs_) {
      while (!pair.sends.empty() && !pair.recvs.empty()) {
        auto send = pair.sends.front();
        auto recv = pair.recvs.front();
        pair.sends.pop_front();
        pair.recvs.pop_front();
        run_point_to_point(*send, *recv);
      }
    }
    while (std::all_of(collectives_.begin(), collectives_.end(),
                       [](const auto& queue) { return !queue.empty(); })) {
      std::vector<std::shared_ptr<Posted>> call;
      for (auto& queue : collectives_) {
        call.push_back(queue.front());
        queue.pop_front();
      }
      run_collective(call);
    }
    changed_.notify_all();
  }

  void run_point_to_point(Posted& send, Posted& recv) {
    const SimOp& s = send.op;
    const SimOp& r = recv.op;
    if (s.count != r.count || s.type != r.type) {
      fail_locked("rank " + std::to_string(s.rank) + " posts a " + describe(s) + ", but rank " +
                  std::to_string(r.rank) + " posts a " + describe(r) +
                  ": a send and its recv must have the same count and type");
    }
    const std::size_t bytes = s.count * size_of(s.type);
    messages_.push_back({s.rank, r.rank, s.src, r.dst, bytes});
    cudaEvent_t done = nullptr;
    {
      sim_detail::DeviceScope on(device_of(r.rank));
      CUDA_CHECK(cudaStreamWaitEvent(r.stream, send.ready, 0));
      if (bytes > 0) {
        CUDA_CHECK(cudaMemcpyPeerAsync(r.dst, device_of(r.rank), s.src, device_of(s.rank), bytes,
                                       r.stream));
      }
      CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
      CUDA_CHECK(cudaEventRecord(done, r.stream));
    }
    {
      sim_detail::DeviceScope on(device_of(s.rank));
      CUDA_CHECK(cudaStreamWaitEvent(s.stream, done, 0));
    }
    CUDA_CHECK(cudaEventDestroy(done));
    release(send);
    release(recv);
  }

  void run_collective(std::vector<std::shared_ptr<Posted>>& call) {
    const SimOp& first = call.front()->op;
    for (const auto& p : call) {
      const SimOp& op = p->op;
      const bool same = op.kind == first.kind && op.count == first.count && op.type == first.type &&
                        op.op == first.op &&
                        (op.kind != OpKind::broadcast || op.peer == first.peer);
      if (!same) {
        fail_locked("collective mismatch: rank " + std::to_string(first.rank) + " calls " +
                    describe(first) + ", rank " + std::to_string(op.rank) + " calls " +
                    describe(op) +
                    " (every rank must make the same collective calls in the same order)");
      }
    }
    const std::size_t n = call.size();
    const std::size_t element = size_of(first.type);
    const std::size_t count = first.count;
    // What each rank gathers before it writes its output.
    const std::size_t staged = first.kind == OpKind::all_gather ? count * n : count;
    std::vector<void*> staging(n, nullptr);
    std::vector<void*> incoming(n, nullptr);
    std::vector<cudaEvent_t> gathered(n, nullptr);
    for (std::size_t r = 0; r < n; ++r) {
      const SimOp& op = call[r]->op;
      const int device = device_of(op.rank);
      sim_detail::DeviceScope on(device);
      for (const auto& q : call) CUDA_CHECK(cudaStreamWaitEvent(op.stream, q->ready, 0));
      if (staged > 0) {
        CUDA_CHECK(cudaMallocAsync(&staging[r], staged * element, op.stream));
      }
      const auto copy_in = [&](void* to, std::size_t q, std::size_t offset_elements,
                               std::size_t elements) {
        if (elements == 0) return;
        const SimOp& source = call[q]->op;
        CUDA_CHECK(cudaMemcpyPeerAsync(
            to, device, static_cast<const char*>(source.src) + offset_elements * element,
            device_of(source.rank), elements * element, op.stream));
      };
      switch (first.kind) {
        case OpKind::broadcast:
          copy_in(staging[r], static_cast<std::size_t>(first.peer), 0, count);
          break;
        case OpKind::all_gather:
          for (std::size_t q = 0; q < n; ++q) {
            copy_in(static_cast<char*>(staging[r]) + q * count * element, q, 0, count);
          }
          break;
        case OpKind::all_reduce:
        case OpKind::reduce_scatter: {
          const std::size_t offset = first.kind == OpKind::all_reduce ? 0 : r * count;
          copy_in(staging[r], 0, offset, count);
          if (n > 1 && count > 0) {
            CUDA_CHECK(cudaMallocAsync(&incoming[r], count * element, op.stream));
            for (std::size_t q = 1; q < n; ++q) {
              copy_in(incoming[r], q, offset, count);
              sim_detail::accumulate(staging[r], incoming[r], count, first.type, first.op,
                                     op.stream);
            }
            CUDA_CHECK(cudaFreeAsync(incoming[r], op.stream));
          }
          break;
        }
        default:
          break;
      }
      CUDA_CHECK(cudaEventCreateWithFlags(&gathered[r], cudaEventDisableTiming));
      CUDA_CHECK(cudaEventRecord(gathered[r], op.stream));
    }
    for (std::size_t r = 0; r < n; ++r) {
      const SimOp& op = call[r]->op;
      sim_detail::DeviceScope on(device_of(op.rank));
      for (const cudaEvent_t e : gathered) CUDA_CHECK(cudaStreamWaitEvent(op.stream, e, 0));
      if (staged > 0) {
        CUDA_CHECK(cudaMemcpyAsync(op.dst, staging[r], staged * element, cudaMemcpyDeviceToDevice,
                                   op.stream));
        CUDA_CHECK(cudaFreeAsync(staging[r], op.stream));
      }
    }
    for (const cudaEvent_t e : gathered) CUDA_CHECK(cudaEventDestroy(e));
    for (auto& p : call) release(*p);
  }

  void release(Posted& posted) {
    CUDA_CHECK(cudaEventDestroy(posted.ready));
    posted.ready = nullptr;
    posted.done = true;
  }

  void release_barrier_if_complete() {
    const std::size_t present = barrier_waiting_.size() + static_cast<std::size_t>(std::count(
                                                              left_.begin(), left_.end(), true));
    if (barrier_waiting_.empty() || present < devices_.size()) return;
    for (const auto& waiting : barrier_waiting_) waiting->done = true;
    barrier_waiting_.clear();
    changed_.notify_all();
  }

  // Blocks until `finished`, with the ranks of `mine` counted as blocked.
  template <class Finished>
  void wait_for(std::unique_lock<std::mutex>& lock,
                const std::vector<std::shared_ptr<Posted>>& mine, Finished finished) {
    std::vector<int> ranks;
    for (const auto& p : mine) {
      if (std::find(ranks.begin(), ranks.end(), p->op.rank) == ranks.end()) {
        ranks.push_back(p->op.rank);
      }
    }
    for (const int r : ranks) ++blocked_[static_cast<std::size_t>(r)];
    waiting_.push_back(&mine);
    struct Unblock {
      SimWorld& world;
      const std::vector<int>& ranks;
      const void* mine;
      ~Unblock() {
        for (const int r : ranks) --world.blocked_[static_cast<std::size_t>(r)];
        world.waiting_.erase(std::find(world.waiting_.begin(), world.waiting_.end(), mine));
      }
    } unblock{*this, ranks, &mine};
    // A thread that drives every rank it waits for can wait for nobody:
    // after a grace second for threads this world has not seen yet, that is
    // a deadlock (one thread, several ranks, no group).
    const bool alone = drives_every_rank(std::this_thread::get_id());
    const auto grace = std::min<std::chrono::milliseconds>(timeout_, std::chrono::seconds(1));
    auto deadline = std::chrono::steady_clock::now() + (alone ? grace : timeout_);
    while (!finished()) {
      throw_if_failed();
      if (everyone_blocked()) fail_locked(deadlock_report());
      if (changed_.wait_until(lock, deadline) == std::cv_status::timeout && !finished()) {
        if (alone && drives_every_rank(std::this_thread::get_id())) {
          fail_locked(one_thread_report(ranks));
        }
        fail_locked(timeout_report(ranks));
      }
    }
  }

  bool drives_every_rank(std::thread::id thread) const {
    for (std::size_t r = 0; r < devices_.size(); ++r) {
      if (!left_[r] && drivers_[r] != thread) return false;
    }
    return true;
  }

  std::string one_thread_report(const std::vector<int>& ranks) const {
    std::ostringstream out;
    out << "deadlock: ";
    for (const int r : ranks) out << "rank " << r << " waits in " << pending_of(r) << "; ";
    out << "this thread drives every rank of the communicator and waits, so no other rank can "
           "post what it waits for: one thread that drives several ranks (ncclCommInitAll) must "
           "put their calls in one ncclGroupStart()/ncclGroupEnd()";
    return out.str();
  }

  // Every rank has left, or waits for something that has not happened yet
  // (a rank whose operations just completed is about to run again).
  bool everyone_blocked() const {
    std::vector<bool> stuck(devices_.size(), false);
    for (const auto* list : waiting_) {
      for (const auto& p : *list) {
        if (!p->done) stuck[static_cast<std::size_t>(p->op.rank)] = true;
      }
    }
    for (std::size_t r = 0; r < devices_.size(); ++r) {
      if (!stuck[r] && !left_[r]) return false;
    }
    return true;
  }

  std::string pending_of(int rank) const {
    std::string what;
    for (const auto* list : waiting_) {
      for (const auto& p : *list) {
        if (p->op.rank != rank || p->done) continue;
        if (!what.empty()) what += " and ";
        what += p->barrier ? std::string("the barrier") : describe(p->op);
      }
    }
    return what.empty() ? "nothing" : what;
  }

  std::string deadlock_report() const {
    std::ostringstream out;
    out << "deadlock: every rank waits and nothing it waits for can arrive:";
    for (int r = 0; r < size(); ++r) {
      out << (r ? ";" : "") << " rank " << r;
      if (left_[static_cast<std::size_t>(r)]) {
        out << " has left (its function returned or its communicator was destroyed)";
      } else {
        out << " waits in " << pending_of(r);
      }
    }
    out << ". A send completes only when its peer posts the matching recv: put the send and "
           "recv of one exchange in one group (group_start()/group_end(), or "
           "ncclGroupStart()/ncclGroupEnd()), and make every rank call the same collectives.";
    return out.str();
  }

  std::string timeout_report(const std::vector<int>& ranks) const {
    std::ostringstream out;
    const double seconds = std::chrono::duration<double>(timeout_).count();
    for (const int r : ranks)
      out << "rank " << r << " waited " << seconds << " s in " << pending_of(r) << "; ";
    out << "ranks that never came:";
    for (int r = 0; r < size(); ++r) {
      if (blocked_[static_cast<std::size_t>(r)] == 0 && !left_[static_cast<std::size_t>(r)]) {
        out << " " << r;
      }
    }
    out << " (a rank that does not join, or is stuck elsewhere)";
    return out.str();
  }

  struct Pair {
    std::deque<std::shared_ptr<Posted>> sends, recvs;
  };

  std::vector<int> devices_;
  std::chrono::milliseconds timeout_;
  std::vector<cudaStream_t> streams_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Pair> pairs_;  // [from * n + to]
  std::vector<std::deque<std::shared_ptr<Posted>>> collectives_;
  std::vector<int> blocked_;  // threads waiting for each rank's operations
  std::vector<bool> left_;
  std::vector<std::thread::id> drivers_;  // the thread that last posted for each rank
  std::vector<const std::vector<std::shared_ptr<Posted>>*> waiting_;
  std::vector<std::shared_ptr<Posted>> barrier_waiting_;
  std::string error_;
  std::vector<SimMessage> messages_;
};

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::comm
