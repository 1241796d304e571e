// Lab 03, exercise 5: copy/compute overlap.
//
// A job that copies its input to the device, computes and copies the result
// back does the three one after the other on one stream, and the GPU's copy
// engines and SMs take turns. Cut the data into chunks and give each chunk
// to one of N streams: while chunk c is computed, chunk c+1 can be copied
// in and chunk c-1 copied out. Two conditions: the host memory must be
// page-locked (cudaMallocHost; from pageable memory cudaMemcpyAsync is
// synchronous and nothing overlaps), and each chunk's three steps must be on
// one stream (stream order keeps them in order; other chunks may run in
// between).
//
// The exercise is the TODO regions of labs/03_streams/ in this file, from
// each `begin` line to its `end` line; README.md says what they want.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "stream_kernels.cuh"

namespace lab03 {
inline namespace CUDALAB_BACKEND {

// Elements [begin, begin + count) of an n-element job cut into `chunks`
// chunks: every chunk but the last has ceil(n / chunks) elements, the last
// what is left, and chunks past the end are empty (count 0).
struct Chunk {
  int begin = 0;
  int count = 0;
};

inline Chunk chunk_of([[maybe_unused]] int n, [[maybe_unused]] int chunks, [[maybe_unused]] int c) {
  // TODO(ex5) begin, about 4 lines: ceil(n / chunks) per chunk, the last
  // one shorter, empty ones past n (no int overflow for n up to 2^30).
  return {0, 0};
  // TODO(ex5) end
}

// One chunk's three steps, queued on `stream`: copy in_host[begin, begin +
// count) to in_device, compute_kernel into out_device, copy back to
// out_host. Host pointers are page-locked.
inline void enqueue_chunk([[maybe_unused]] const float* in_host, [[maybe_unused]] float* out_host,
                          [[maybe_unused]] float* in_device, [[maybe_unused]] float* out_device,
                          [[maybe_unused]] Chunk chunk, [[maybe_unused]] int iterations,
                          [[maybe_unused]] cudaStream_t stream) {
  // TODO(ex5) begin, about 8 lines: cudaMemcpyAsync in, compute_kernel<<<
  // ..., stream>>> over the chunk's elements, cudaMemcpyAsync out (nothing
  // at all for an empty chunk).
  // TODO(ex5) end
}

// out_host[i] = compute_element(in_host[i], iterations) for i < n, in
// `chunks` chunks spread over streams[0 .. stream_count) round robin.
// Returns with the work queued; the caller synchronises.
// (The parameters are [[maybe_unused]] only so that the stub in labs/
// compiles without warnings.)
inline void pipeline([[maybe_unused]] const float* in_host, [[maybe_unused]] float* out_host,
                     [[maybe_unused]] float* in_device, [[maybe_unused]] float* out_device, int n,
                     int chunks, [[maybe_unused]] int iterations,
                     [[maybe_unused]] const cudaStream_t* streams, int stream_count) {
  if (n < 0 || chunks < 1 || stream_count < 1) {
    throw std::invalid_argument("pipeline: needs n >= 0, chunks >= 1 and stream_count >= 1");
  }
  // TODO(ex5) begin, about 4 lines: each chunk to the next stream in turn.
  // TODO(ex5) end
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab03
