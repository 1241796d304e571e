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
  // TODO(ex1) end
}

// Every rank: recv = root's send (count elements). Only the root reads send.
inline void broadcast_by_hand(Comm& comm, const float* send, float* recv, std::size_t count,
                              int root) {
  // TODO(ex1) begin, about 10 lines: the root sends to every other rank (one
  // group) and keeps a copy; the others receive
  // TODO(ex1) end
}

// Every rank: recv[q * count + i] = (rank q's send)[i]; recv holds size() * count.
inline void all_gather_by_hand(Comm& comm, const float* send, float* recv, std::size_t count) {
  // TODO(ex1) begin, about 10 lines: place your own block, then exchange
  // blocks with every other rank in one group
  // TODO(ex1) end
}

// Every rank r: recv[i] = sum over ranks q of (rank q's send)[r * count + i];
// send holds size() * count.
inline void reduce_scatter_by_hand(Comm& comm, const float* send, float* recv, std::size_t count) {
  // TODO(ex1) begin, about 15 lines: send block q to rank q, receive your block
  // from everyone (one group), then add them up
  // TODO(ex1) end
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab04
