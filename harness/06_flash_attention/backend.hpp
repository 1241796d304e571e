// Lab 06 behind one interface, whichever backend runs it: the GPU (nvcc) or
// the CPU emulator (every access traced). Host vectors in and out.
//
// Every tensor is fp32 and row-major per head: q, k, v and o hold
// heads x n x d values ([head][row][column]); the log-sum-exp holds
// heads x n. The scores of a head are scale * q k^T (n x n); with `causal`,
// key j is left out of query i's softmax when j > i.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudalab/harness/observation.hpp"

namespace lab06::harness {

using cudalab::harness::Observation;
using cudalab::harness::RunOptions;

struct Attention {
  int heads = 1;  // batch x heads: attention runs on each independently
  int n = 1;      // sequence length (queries = keys = values)
  int d = 64;     // head dimension: 32, 64 or 128
  float scale = 0.125f;
  bool causal = false;
  std::size_t values() const { return static_cast<std::size_t>(heads) * n * d; }
  std::size_t rows() const { return static_cast<std::size_t>(heads) * n; }
};

// The tile sizes of the fused kernel for head dimension d: rows of Q per
// block (Br, FA2's B_r) and rows of K and V per step (Bc, FA2's B_c).
struct FlashTile {
  int query_rows = 0;
  int key_rows = 0;
};

class Backend : public cudalab::harness::BackendBase {
 public:
  // Exercise 1: o = softmax(scale * q k^T [masked]) v in three kernels,
  // through the heads x n x n scores in global memory. `o` (values()
  // elements) goes to the device as it is and comes back.
  virtual Observation naive_attention(const Attention& shape, const std::vector<float>& q,
                                      const std::vector<float>& k, const std::vector<float>& v,
                                      std::vector<float>& o, const RunOptions& options = {}) = 0;

  // Exercise 2: the softmax of each row of x (rows x columns) into out,
  // with the row's statistics gathered in one pass over blocks of `block`
  // columns.
  virtual Observation online_softmax(const std::vector<float>& x, int rows, int columns, int block,
                                     std::vector<float>& out, const RunOptions& options = {}) = 0;

  // Exercises 3 and 4: the fused forward. `out` holds values() + rows()
  // elements: o first, then the log-sum-exp L = m + log(l) of every row.
  virtual Observation flash_forward(const Attention& shape, const std::vector<float>& q,
                                    const std::vector<float>& k, const std::vector<float>& v,
                                    std::vector<float>& out, const RunOptions& options = {}) = 0;

  virtual FlashTile flash_tile(int d) const = 0;

  // Exercise 5: the fused forward on the tensor cores. q, k, v and o are
  // bf16 bit patterns (values() each); lse (rows()) is fp32 and is filled
  // only when the call succeeded.
  virtual Observation flash_forward_bf16(const Attention& shape,
                                         const std::vector<std::uint16_t>& q,
                                         const std::vector<std::uint16_t>& k,
                                         const std::vector<std::uint16_t>& v,
                                         std::vector<std::uint16_t>& o, std::vector<float>& lse,
                                         const RunOptions& options = {}) = 0;
  virtual FlashTile flash_tile_bf16(int d) const = 0;

  // Exercise 6: the backward pass. From q, k, v, the forward's o and
  // log-sum-exp lse (rows(), L = m + log(l)) and the gradient d_o of the
  // loss with respect to o (values() each but lse), the gradients dq, dk and
  // dv (values() each). They go to the device as they are and come back,
  // also when the call fails; dq is zeroed on the device before the kernel
  // adds into it.
  virtual Observation flash_backward(const Attention& shape, const std::vector<float>& q,
                                     const std::vector<float>& k, const std::vector<float>& v,
                                     const std::vector<float>& o, const std::vector<float>& d_o,
                                     const std::vector<float>& lse, std::vector<float>& dq,
                                     std::vector<float>& dk, std::vector<float>& dv,
                                     const RunOptions& options = {}) = 0;
  // Its tiles: the queries of a step of the walk (Br) and the keys a block owns (Bc).
  virtual FlashTile flash_backward_tile(int d) const = 0;
};

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);
// The same over solutions/ (OnBackend::reference()).
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);

// The lab's host functions on device pointers, as the GPU build compiled
// them: what `./lab bench 06` times.
struct DeviceFunctions {
  void (*naive_attention)(const float* q, const float* k, const float* v, float* scores, float* o,
                          const Attention& shape);
  void (*flash_forward)(const float* q, const float* k, const float* v, float* o, float* lse,
                        const Attention& shape);
  void (*flash_forward_bf16)(const void* q, const void* k, const void* v, void* o, float* lse,
                             const Attention& shape);
  void (*flash_backward)(const float* q, const float* k, const float* v, const float* o,
                         const float* d_o, const float* lse, float* delta, float* dq, float* dk,
                         float* dv, const Attention& shape);
};
DeviceFunctions gpu_device_functions();

}  // namespace lab06::harness
