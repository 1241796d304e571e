// Exercise 1: NCCL's four collectives written by hand on Comm's send and
// recv (cudalab/comm/comm.hpp). Any correct pattern of messages passes; the
// ring (exercise 4) is the one that scales.
//
// Rules of the game (README.md, "Exercise 1"): every call is queued on
// comm.stream(); a send completes only when the peer posts its recv, so a
// rank that sends and receives at once puts both in one
// group_start()/group_end(); send and recv may be the same buffer.
#pragma once

#include <cstddef>

#include "add_into.cuh"
#include "cudalab/comm/comm.hpp"
#include "cudalab/stream_buffer.hpp"

namespace lab04 {
inline namespace CUDALAB_BACKEND {

using cudalab::comm::Comm;

// Every rank: recv[i] = sum over ranks q of (rank q's send)[i], i < count.
inline void all_reduce_by_hand(Comm& comm, const float* send, float* recv, std::size_t count) {
  const int n = comm.size();
  const int me = comm.rank();
  // TODO(ex1) begin, about 13 lines: exchange whole buffers with every other
  // rank (one group), then add what came in
  cudalab::StreamBuffer<float> incoming(count * static_cast<std::size_t>(n),
                                        comm.stream());  // (n, count)
  comm.group_start();
  for (int q = 0; q < n; ++q) {
    if (q == me) continue;
    comm.send(send, count, q);
    comm.recv(incoming.data() + static_cast<std::size_t>(q) * count, count, q);
  }
  comm.group_end();
  copy_on(recv, send, count, comm.stream());
  for (int q = 0; q < n; ++q) {
    if (q != me)
      add_into(recv, incoming.data() + static_cast<std::size_t>(q) * count, count, comm.stream());
  }
  // TODO(ex1) end
}

// Every rank: recv = root's send (count elements). Only the root reads send.
inline void broadcast_by_hand(Comm& comm, const float* send, float* recv, std::size_t count,
                              int root) {
  // TODO(ex1) begin, about 10 lines: the root sends to every other rank (one
  // group) and keeps a copy; the others receive
  if (comm.rank() == root) {
    comm.group_start();
    for (int q = 0; q < comm.size(); ++q) {
      if (q != root) comm.send(send, count, q);
    }
    comm.group_end();
    copy_on(recv, send, count, comm.stream());
  } else {
    comm.recv(recv, count, root);
  }
  // TODO(ex1) end
}

// Every rank: recv[q * count + i] = (rank q's send)[i]; recv holds size() * count.
inline void all_gather_by_hand(Comm& comm, const float* send, float* recv, std::size_t count) {
  // TODO(ex1) begin, about 10 lines: place your own block, then exchange
  // blocks with every other rank in one group
  const int me = comm.rank();
  copy_on(recv + static_cast<std::size_t>(me) * count, send, count, comm.stream());
  comm.group_start();
  for (int q = 0; q < comm.size(); ++q) {
    if (q == me) continue;
    comm.send(send, count, q);
    comm.recv(recv + static_cast<std::size_t>(q) * count, count, q);
  }
  comm.group_end();
  // TODO(ex1) end
}

// Every rank r: recv[i] = sum over ranks q of (rank q's send)[r * count + i];
// send holds size() * count.
inline void reduce_scatter_by_hand(Comm& comm, const float* send, float* recv, std::size_t count) {
  // TODO(ex1) begin, about 15 lines: send block q to rank q, receive your block
  // from everyone (one group), then add them up
  const int n = comm.size();
  const int me = comm.rank();
  const float* mine = send + static_cast<std::size_t>(me) * count;
  cudalab::StreamBuffer<float> incoming(count * static_cast<std::size_t>(n),
                                        comm.stream());  // (n, count)
  comm.group_start();
  for (int q = 0; q < n; ++q) {
    if (q == me) continue;
    comm.send(send + static_cast<std::size_t>(q) * count, count, q);
    comm.recv(incoming.data() + static_cast<std::size_t>(q) * count, count, q);
  }
  comm.group_end();
  copy_on(recv, mine, count, comm.stream());
  for (int q = 0; q < n; ++q) {
    if (q != me)
      add_into(recv, incoming.data() + static_cast<std::size_t>(q) * count, count, comm.stream());
  }
  // TODO(ex1) end
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab04
