// Exercise 3: how nccl-tests turns a time into bandwidth (its
// doc/PERFORMANCE.md). Pure arithmetic, on the host.
//
//   algbw = S / t, with S the "size" column of nccl-tests' output;
//   busbw = algbw * a factor that makes it comparable to the hardware's
//           bus bandwidth whatever the number of ranks n.
#pragma once

#include <cstddef>

#include "cudalab/comm/comm.hpp"
#include "cudalab/kernel.hpp"

namespace lab04 {
inline namespace CUDALAB_BACKEND {

using cudalab::comm::Collective;

// S in bytes for a call with `count` elements per rank (NCCL's count) of
// `element_bytes` on `ranks` ranks. nccl-tests reports all_gather and
// reduce_scatter by their whole buffer: S = count * ranks elements.
inline double message_bytes(Collective which, std::size_t count, std::size_t element_bytes,
                            int ranks) {
  // TODO(ex3) begin, about 3 lines
  const double per_rank = static_cast<double>(count) * static_cast<double>(element_bytes);
  const bool whole_buffer = which == Collective::all_gather || which == Collective::reduce_scatter;
  return whole_buffer ? per_rank * ranks : per_rank;
  // TODO(ex3) end
}

// Algorithm bandwidth in GB/s (10^9 bytes per second).
inline double algbw_gbps(double bytes, double seconds) {
  // TODO(ex3) begin, about 1 line
  return bytes / seconds / 1e9;
  // TODO(ex3) end
}

// busbw / algbw: 2(n-1)/n for all_reduce, (n-1)/n for all_gather and
// reduce_scatter, 1 for broadcast.
inline double busbw_factor(Collective which, int ranks) {
  // TODO(ex3) begin, about 10 lines
  const double n = ranks;
  switch (which) {
    case Collective::all_reduce:
      return 2.0 * (n - 1.0) / n;
    case Collective::all_gather:
    case Collective::reduce_scatter:
      return (n - 1.0) / n;
    case Collective::broadcast:
      return 1.0;
  }
  return 0.0;
  // TODO(ex3) end
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab04
