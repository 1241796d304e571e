// cudalab::comm: a communicator of n ranks, each owning one stream on one
// device, with point-to-point messages and NCCL's four collectives.
//
//   void step(cudalab::comm::Comm& comm, float* chunk, float* incoming, std::size_t n) {
//     const int next = (comm.rank() + 1) % comm.size();
//     const int prev = (comm.rank() + comm.size() - 1) % comm.size();
//     comm.group_start();              // one exchange: both or neither
//     comm.send(chunk, n, next);
//     comm.recv(incoming, n, prev);
//     comm.group_end();
//     add_into<<<grid, block, 0, comm.stream()>>>(chunk, incoming, n);
//   }
//
// Semantics are NCCL's (docs/comm.md):
// * Every operation is queued on stream() and returns once it is matched
//   with its peers and queued; its data is there when the stream gets to it.
//   Work the caller queues on stream() before or after is ordered with it.
// * A send completes only when the peer posts the matching recv (same
//   count and type), and the other way round. A rank that must both send and
//   receive (a ring step) puts both in one group_start()/group_end(): in
//   NCCL, ungrouped they may deadlock; here they always do, and the deadlock
//   is reported by name.
// * Collectives are matched in call order: every rank must call the same
//   collective with the same count, type, operation and root.
// * Buffers are device memory of the rank's device (or of a device its copies
//   can reach); in-place calls (send == recv) are allowed.
//
// kCollectives describes the four collectives' buffers once; run_on(comm,
// which, ...) calls one by its enum.
//
// Implementations: SimComm (sim_comm.hpp: ranks as host threads over the
// emulator's virtual devices, or over one GPU's streams) and NcclComm
// (nccl_comm.hpp: NCCL on real GPUs, or the emulator's NCCL). Each counts
// the bytes this rank's sends passed to each peer (traffic()), which is
// what a hand-written algorithm is graded by.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/kernel.hpp"

namespace cudalab::comm {

enum class DataType { f32, i32 };
enum class ReduceOp { sum, max };
// NCCL's four collectives (a Comm's calls of the same names).
enum class Collective { all_reduce, broadcast, all_gather, reduce_scatter };

// The four, each described once: what the harness, the benchmark and the
// tests need to know of a collective's buffers. For a per-rank `count`, the
// send buffer holds `count` elements, or `ranks` blocks of `count` where
// send_blocks_per_rank (reduce_scatter: block q goes to rank q); the receive
// buffer likewise with recv_blocks_per_rank (all_gather: block q comes from
// rank q). In place, as NCCL defines it, both are one buffer of the larger
// size, and the smaller one is this rank's block of it.
struct CollectiveInfo {
  Collective which;
  const char* name;
  bool send_blocks_per_rank;
  bool recv_blocks_per_rank;
};
inline constexpr std::array<CollectiveInfo, 4> kCollectives{{
    {Collective::all_reduce, "all_reduce", false, false},
    {Collective::broadcast, "broadcast", false, false},
    {Collective::all_gather, "all_gather", false, true},
    {Collective::reduce_scatter, "reduce_scatter", true, false},
}};
inline const CollectiveInfo& info(Collective c) {
  return kCollectives[static_cast<std::size_t>(c)];
}
inline std::size_t send_elements(Collective c, std::size_t count, int ranks) {
  return info(c).send_blocks_per_rank ? count * static_cast<std::size_t>(ranks) : count;
}
inline std::size_t recv_elements(Collective c, std::size_t count, int ranks) {
  return info(c).recv_blocks_per_rank ? count * static_cast<std::size_t>(ranks) : count;
}
// Where rank `rank`'s send and receive buffers start in its in-place buffer.
inline std::size_t in_place_send_offset(Collective c, std::size_t count, int rank) {
  return info(c).recv_blocks_per_rank ? count * static_cast<std::size_t>(rank) : 0;
}
inline std::size_t in_place_recv_offset(Collective c, std::size_t count, int rank) {
  return info(c).send_blocks_per_rank ? count * static_cast<std::size_t>(rank) : 0;
}

inline std::size_t size_of(DataType type) {
  switch (type) {
    case DataType::f32:
      return sizeof(float);
    case DataType::i32:
      return sizeof(std::int32_t);
  }
  return 0;
}
inline const char* to_string(DataType type) { return type == DataType::f32 ? "f32" : "i32"; }
inline const char* to_string(ReduceOp op) { return op == ReduceOp::sum ? "sum" : "max"; }
inline const char* to_string(Collective c) { return info(c).name; }

template <class T>
constexpr DataType data_type_of();
template <>
constexpr DataType data_type_of<float>() {
  return DataType::f32;
}
template <>
constexpr DataType data_type_of<int>() {
  return DataType::i32;
}

// Misuse of a communicator (bad peer, mismatched calls, deadlock, a rank that
// never joins) and failures of another rank that this one was waiting for.
class CommError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bytes each rank's send() calls passed to each peer.
struct Traffic {
  int ranks = 0;
  std::vector<std::uint64_t> bytes;  // [from * ranks + to]

  std::uint64_t sent(int from, int to) const {
    return bytes[static_cast<std::size_t>(from) * static_cast<std::size_t>(ranks) +
                 static_cast<std::size_t>(to)];
  }
  std::uint64_t sent_by(int from) const {
    std::uint64_t total = 0;
    for (int to = 0; to < ranks; ++to) total += sent(from, to);
    return total;
  }
  std::uint64_t total() const {
    std::uint64_t all = 0;
    for (const std::uint64_t b : bytes) all += b;
    return all;
  }
};

inline namespace CUDALAB_BACKEND {

// The interface. The public calls check their arguments (a clear CommError,
// nothing queued) and count the traffic; implementations provide do_*.
class Comm {
 public:
  virtual ~Comm() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int device() const = 0;
  virtual cudaStream_t stream() const = 0;
  virtual std::string backend() const = 0;  // "threads (emulator devices)", "nccl", ...

  void send(const void* buffer, std::size_t count, DataType type, int peer) {
    check_peer("send", peer);
    check_buffer("send", buffer, count);
    do_send(buffer, count, type, peer);
    bytes_to_[static_cast<std::size_t>(peer)] += count * size_of(type);
  }
  void recv(void* buffer, std::size_t count, DataType type, int peer) {
    check_peer("recv", peer);
    check_buffer("recv", buffer, count);
    do_recv(buffer, count, type, peer);
  }
  template <class T>
  void send(const T* buffer, std::size_t count, int peer) {
    send(buffer, count, data_type_of<T>(), peer);
  }
  template <class T>
  void recv(T* buffer, std::size_t count, int peer) {
    recv(buffer, count, data_type_of<T>(), peer);
  }

  // Everything between group_start() and group_end() is posted at once and
  // matched together; group_end() returns when all of it is queued. Groups
  // nest (only the outermost end posts).
  virtual void group_start() = 0;
  virtual void group_end() = 0;

  // recv[i] = op over ranks of send[i], on every rank.
  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) {
    check_buffer("all_reduce", send, count);
    check_buffer("all_reduce", recv, count);
    do_all_reduce(send, recv, count, type, op);
  }
  // recv = root's send, on every rank (send is read on the root only).
  void broadcast(const void* send, void* recv, std::size_t count, DataType type, int root) {
    check_peer("broadcast (root)", root);
    if (rank() == root) check_buffer("broadcast", send, count);
    check_buffer("broadcast", recv, count);
    do_broadcast(send, recv, count, type, root);
  }
  // recv[q * count + i] = send of rank q [i]; recv holds size() * count.
  void all_gather(const void* send, void* recv, std::size_t count, DataType type) {
    check_buffer("all_gather", send, count);
    check_buffer("all_gather", recv, count);
    do_all_gather(send, recv, count, type);
  }
  // recv[i] = op over ranks of send[rank() * count + i]; send holds size() * count.
  void reduce_scatter(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) {
    check_buffer("reduce_scatter", send, count);
    check_buffer("reduce_scatter", recv, count);
    do_reduce_scatter(send, recv, count, type, op);
  }
  // Returns when every rank has called it and this rank's queued work is done.
  virtual void barrier() = 0;

  // Bytes this rank's send() calls passed to each peer so far.
  const std::vector<std::uint64_t>& bytes_sent_to() const { return bytes_to_; }

 protected:
  explicit Comm(int ranks) : bytes_to_(static_cast<std::size_t>(ranks < 0 ? 0 : ranks), 0) {}

  virtual void do_send(const void* buffer, std::size_t count, DataType type, int peer) = 0;
  virtual void do_recv(void* buffer, std::size_t count, DataType type, int peer) = 0;
  virtual void do_all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                             ReduceOp op) = 0;
  virtual void do_broadcast(const void* send, void* recv, std::size_t count, DataType type,
                            int root) = 0;
  virtual void do_all_gather(const void* send, void* recv, std::size_t count, DataType type) = 0;
  virtual void do_reduce_scatter(const void* send, void* recv, std::size_t count, DataType type,
                                 ReduceOp op) = 0;

 private:
  void check_peer(const char* call, int peer) const {
    if (peer >= 0 && peer < size()) return;
    throw CommError("cudalab::comm: " + std::string(call) + " on rank " + std::to_string(rank()) +
                    ": rank " + std::to_string(peer) + " is not in this communicator of " +
                    std::to_string(size()) + " ranks");
  }
  void check_buffer(const char* call, const void* buffer, std::size_t count) const {
    if (buffer != nullptr || count == 0) return;
    throw CommError("cudalab::comm: " + std::string(call) + " on rank " + std::to_string(rank()) +
                    ": null buffer for " + std::to_string(count) + " elements");
  }

  std::vector<std::uint64_t> bytes_to_;
};

// Collective `which` on `comm` through its call of that name (`op` for the
// reductions, `root` for broadcast).
inline void run_on(Comm& comm, Collective which, const void* send, void* recv, std::size_t count,
                   DataType type, ReduceOp op, int root) {
  switch (which) {
    case Collective::all_reduce:
      return comm.all_reduce(send, recv, count, type, op);
    case Collective::broadcast:
      return comm.broadcast(send, recv, count, type, root);
    case Collective::all_gather:
      return comm.all_gather(send, recv, count, type);
    case Collective::reduce_scatter:
      return comm.reduce_scatter(send, recv, count, type, op);
  }
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::comm
