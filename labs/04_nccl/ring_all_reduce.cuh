// Exercise 4: the ring all-reduce NCCL runs, as a reduce-scatter then an
// all-gather, n - 1 steps each, every message to the next rank only.
//
//   step s of the reduce-scatter: send chunk (r - s) mod n to r + 1,
//     receive chunk (r - s - 1) mod n from r - 1 and add it to yours;
//     afterwards rank r holds chunk (r + 1) mod n summed over all ranks.
//   step s of the all-gather: send chunk (r + 1 - s) mod n to r + 1,
//     receive chunk (r - s) mod n from r - 1 in place.
// Each rank sends 2 (n - 1) chunks, about 2 (n - 1) / n of the buffer: the
// least any all-reduce can send, whatever n (README.md, "Exercise 4").
#pragma once

#include <cstddef>

#include "add_into.cuh"
#include "cudalab/comm/comm.hpp"
#include "cudalab/stream_buffer.hpp"

namespace lab04 {
inline namespace CUDALAB_BACKEND {

using cudalab::comm::Comm;

// Chunk c of a buffer of `count` elements split among `ranks`: elements
// [chunk_begin(c), chunk_begin(c + 1)). Sizes differ by at most one.
inline std::size_t chunk_begin(std::size_t c, std::size_t count, int ranks) {
  return c * count / static_cast<std::size_t>(ranks);
}
inline std::size_t chunk_size(std::size_t c, std::size_t count, int ranks) {
  return chunk_begin(c + 1, count, ranks) - chunk_begin(c, count, ranks);
}
// (r + k) mod n for any integer k.
inline std::size_t ring_index(int r, int k, int n) {
  return static_cast<std::size_t>(((r + k) % n + n) % n);
}

// Phase 1 on data[0, count): afterwards rank r's chunk (r + 1) mod n holds the
// sum over ranks. scratch holds a chunk (count / n + 1 elements).
inline void ring_reduce_scatter(Comm& comm, float* data, float* scratch, std::size_t count) {
  const int n = comm.size();
  const int r = comm.rank();
  const int next = static_cast<int>(ring_index(r, 1, n));
  const int prev = static_cast<int>(ring_index(r, -1, n));
  // TODO(ex4) begin, about 12 lines: n - 1 steps; each one exchange (one
  // group) and one add_into on comm.stream()
  // TODO(ex4) end
}

// Phase 2 on data[0, count): every rank ends with every chunk.
inline void ring_all_gather(Comm& comm, float* data, std::size_t count) {
  const int n = comm.size();
  const int r = comm.rank();
  const int next = static_cast<int>(ring_index(r, 1, n));
  const int prev = static_cast<int>(ring_index(r, -1, n));
  // TODO(ex4) begin, about 9 lines: n - 1 steps, each one exchange (one group)
  // TODO(ex4) end
}

// recv = sum over ranks of send (count elements); send may equal recv.
// stop_after_reduce_scatter: return after phase 1 (the tests look there).
inline void ring_all_reduce(Comm& comm, const float* send, float* recv, std::size_t count,
                            bool stop_after_reduce_scatter = false) {
  // TODO(ex4) begin, about 5 lines: copy send into recv, a scratch chunk
  // (cudalab::StreamBuffer), the two phases
  // TODO(ex4) end
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab04
