// Lab 03, exercise 1: stream kinds.
//
// The lecture issues three 20 ms spins: on a side stream s, on the default
// stream, on s again. How long the three take depends on what kind of
// stream s is and on what "the default stream" means:
//   blocking      s from cudaStreamCreate; the default stream is the legacy
//                 one (stream 0), which waits for all blocking streams'
//                 earlier work, and they wait for its;
//   non_blocking  s from cudaStreamCreateWithFlags(cudaStreamNonBlocking)
//                 (what torch.cuda.Stream() makes); the legacy default
//                 stream does not synchronise with it;
//   per_thread    a program built with --default-stream per-thread: its
//                 default stream is cudaStreamPerThread, which synchronises
//                 with the legacy stream only, and s is an ordinary
//                 cudaStreamCreate stream.
//
// The exercise is the TODO regions of labs/03_streams/ in this file, from
// each `begin` line to its `end` line; README.md says what they want.
#pragma once

#include <stdexcept>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "stream_types.hpp"

namespace lab03 {
inline namespace CUDALAB_BACKEND {

// The side stream s of the experiment, of kind `kind` (the caller destroys it
// with cudaStreamDestroy).
// (The parameters are [[maybe_unused]] only so that the stubs in labs/
// compile without warnings.)
inline cudaStream_t make_stream([[maybe_unused]] StreamKind kind) {
  cudaStream_t stream = nullptr;
  const unsigned flags =
      kind == StreamKind::non_blocking ? cudaStreamNonBlocking : cudaStreamDefault;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, flags));
  return stream;
}

// The stream that plays "the default stream" for `kind`: the legacy default
// stream (cudaStreamLegacy, what stream 0 means in an ordinary build) or the
// calling thread's per-thread default stream (cudaStreamPerThread).
inline cudaStream_t default_stream_for([[maybe_unused]] StreamKind kind) {
  return kind == StreamKind::per_thread ? cudaStreamPerThread : cudaStreamLegacy;
}

// Your prediction, before you measure: how many milliseconds from the start
// of the first spin to the end of the last, for three spins of `spin_ms`
// each on s, the default stream, s.
inline double predicted_total_ms([[maybe_unused]] StreamKind kind,
                                 [[maybe_unused]] double spin_ms) {
  return (kind == StreamKind::blocking ? 3 : 2) * spin_ms;
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab03
