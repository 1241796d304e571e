// Lab 06's entry points (backend.hpp) bound to the lab's code, compiled once
// per backend (nvcc; the host compiler for the emulator) in units
// cmake/CudalabLab.cmake generates, inside the inline namespace CUDALAB_BACKEND.
#pragma once

#include <cstdint>

#include "backend.hpp"
#include "cudalab/harness/device_call.hpp"
#include "flash_backward.cuh"
#include "flash_forward.cuh"
#include "flash_forward_bf16.cuh"
#include "naive_attention.cuh"
#include "online_softmax.cuh"

namespace lab06::harness {
inline namespace CUDALAB_BACKEND {

// The harness's shape as the lab's kernels take it.
inline AttentionShape lab_shape(const Attention& shape) {
  return {shape.heads, shape.n, shape.d, shape.scale, shape.causal};
}

class LabBackend final : public cudalab::harness::EntryBackendFor<Backend> {
 public:
  LabBackend() {
    bind(entry::naive_attention,
         [](Attention shape, const float* q, const float* k, const float* v, float* scores,
            float* o) { lab06::naive_attention(q, k, v, scores, o, lab_shape(shape)); });
    bind(entry::online_softmax, [](const float* x, int rows, int columns, int block, float* out) {
      lab06::online_softmax(x, out, rows, columns, block);
    });
    // o, then L, in one output.
    bind(entry::flash_forward,
         [](Attention shape, const float* q, const float* k, const float* v, float* out) {
           lab06::flash_forward(q, k, v, out, out + shape.values(), lab_shape(shape));
         });
    bind(entry::flash_tile, [](int) { return FlashTile{kFlashQueryRows, kFlashKeyRows}; });
    bind(entry::flash_forward_bf16,
         [](Attention shape, const std::uint16_t* q, const std::uint16_t* k, const std::uint16_t* v,
            std::uint16_t* o,
            float* lse) { lab06::flash_forward_bf16(q, k, v, o, lse, lab_shape(shape)); });
    bind(entry::flash_tile_bf16, [](int) { return FlashTile{kTcQueryRows, kTcKeyRows}; });
    // dq, dk and dv back to back in one output.
    bind(entry::flash_backward,
         [](Attention shape, const float* q, const float* k, const float* v, const float* o,
            const float* d_o, const float* lse, float* delta, float* gradients) {
           const std::size_t values = shape.values();
           lab06::flash_backward(q, k, v, o, d_o, lse, delta, gradients, gradients + values,
                                 gradients + 2 * values, lab_shape(shape));
         });
    bind(entry::flash_backward_tile, [](int) { return FlashTile{kBwdQueryRows, kBwdKeyRows}; });
  }
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab06::harness
