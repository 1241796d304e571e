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
  const int per_chunk = static_cast<int>((static_cast<long long>(n) + chunks - 1) / chunks);
  const long long begin = std::min<long long>(static_cast<long long>(c) * per_chunk, n);
  const long long end = std::min<long long>(begin + per_chunk, n);
  return {static_cast<int>(begin), static_cast<int>(end - begin)};
}

// One chunk's three steps, queued on `stream`: copy in_host[begin, begin +
// count) to in_device, compute_kernel into out_device, copy back to
// out_host. Host pointers are page-locked.
inline void enqueue_chunk([[maybe_unused]] const float* in_host, [[maybe_unused]] float* out_host,
                          [[maybe_unused]] float* in_device, [[maybe_unused]] float* out_device,
                          [[maybe_unused]] Chunk chunk, [[maybe_unused]] int iterations,
                          [[maybe_unused]] cudaStream_t stream) {
  if (chunk.count == 0) return;
  const std::size_t bytes = static_cast<std::size_t>(chunk.count) * sizeof(float);
  CUDA_CHECK(cudaMemcpyAsync(in_device + chunk.begin, in_host + chunk.begin, bytes,
                             cudaMemcpyHostToDevice, stream));
  compute_kernel<<<(chunk.count + 255) / 256, 256, 0, stream>>>(
      in_device + chunk.begin, out_device + chunk.begin, chunk.count, iterations);
  CUDA_CHECK(cudaMemcpyAsync(out_host + chunk.begin, out_device + chunk.begin, bytes,
                             cudaMemcpyDeviceToHost, stream));
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
  for (int c = 0; c < chunks; ++c) {
    enqueue_chunk(in_host, out_host, in_device, out_device, chunk_of(n, chunks, c), iterations,
                  streams[c % stream_count]);
  }
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab03
