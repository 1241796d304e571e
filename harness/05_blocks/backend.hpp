// Lab 05 behind one interface, whichever backend runs it: the GPU (nvcc),
// the CPU emulator (every access traced) or the tile interpreter (each
// program a loop on one CPU thread). Host vectors in and out; matrices are
// row-major; fp16 elements are their 16-bit patterns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudalab/harness/observation.hpp"

namespace lab05::harness {

using cudalab::harness::Observation;
using cudalab::harness::RunOptions;

// How programs take the tiles of C (exercise 5).
struct Ordering {
  bool grouped = false;
  int group_m = 8;
};

class Backend : public cudalab::harness::BackendBase {
 public:
  // Exercise 1. `out` goes to the device as it is and comes back.
  virtual Observation add(const std::vector<float>& x, const std::vector<float>& y,
                          std::vector<float>& out, const RunOptions& options = {}) = 0;
  virtual Observation fused_activation(const std::vector<float>& x, std::vector<float>& out,
                                       const RunOptions& options = {}) = 0;
  // The two-kernel version of the same (lab code, not an exercise).
  virtual Observation unfused_activation(const std::vector<float>& x, std::vector<float>& out,
                                         const RunOptions& options = {}) = 0;

  // Exercise 2: out[i] = x[i * stride] for i < out.size(); column sums and
  // maxima of the rows x columns matrix x into out (columns elements).
  virtual Observation strided_gather(const std::vector<float>& x, int stride,
                                     std::vector<float>& out, const RunOptions& options = {}) = 0;
  virtual Observation column_sums(const std::vector<float>& x, int rows, int columns,
                                  std::vector<float>& out, const RunOptions& options = {}) = 0;
  virtual Observation column_maxes(const std::vector<float>& x, int rows, int columns,
                                   std::vector<float>& out, const RunOptions& options = {}) = 0;

  // Exercise 3: row softmax of the rows x columns matrix whose rows lie
  // x_row_stride elements apart in x, into out (rows out_row_stride apart;
  // the elements between rows must stay as they are).
  virtual Observation softmax(const std::vector<float>& x, int rows, int columns, int x_row_stride,
                              std::vector<float>& out, int out_row_stride,
                              const RunOptions& options = {}) = 0;

  // Exercises 4 and 5: C (m x n, fp32) = A (m x k) * B (k x n) with fp16 A
  // and B, in the given tile order.
  virtual Observation matmul(int m, int n, int k, const std::vector<std::uint16_t>& a,
                             const std::vector<std::uint16_t>& b, std::vector<float>& c,
                             Ordering ordering = {}, const RunOptions& options = {}) = 0;

  // Exercise 5: the tile (m, n) of every program id of a grid_m x grid_n
  // grid in grouped order, computed on the device: tiles[2 * pid] = m,
  // tiles[2 * pid + 1] = n.
  virtual Observation grouped_tiles(int grid_m, int grid_n, int group_m, std::vector<int>& tiles,
                                    const RunOptions& options = {}) = 0;
  // Exercise 5 (host code): blocks the first `wave` programs load under the
  // tutorial's cache model, row-major or grouped.
  virtual int first_wave_block_loads(Ordering ordering, int grid_m, int grid_n, int k_blocks,
                                     int wave) = 0;

  // The tile sizes the lab's matmul uses (BM, BN, BK).
  virtual std::vector<int> matmul_tile() const = 0;
};

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);
std::unique_ptr<Backend> make_interpreter_backend();
// The same over solutions/ (OnBackend::reference()).
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);
std::unique_ptr<Backend> make_reference_interpreter_backend();

// The lab's GPU functions on device pointers, as the GPU build compiled
// them: what `./lab bench 05` times.
struct DeviceFunctions {
  void (*add)(const float* x, const float* y, float* out, int n);
  void (*fused_activation)(const float* x, float* out, int n);
  void (*unfused_activation)(const float* x, float* scratch, float* out, int n);
  void (*softmax)(const float* x, int rows, int columns, float* out);
  void (*matmul)(const void* a, const void* b, float* c, int m, int n, int k, int group_m);
};
DeviceFunctions gpu_device_functions();

}  // namespace lab05::harness
