// Lab 06 behind one interface, whichever backend runs it: the GPU (nvcc) or
// the CPU emulator (every access traced). Its entry points are declared once
// here (cudalab/harness/entry_points.hpp) with the element counts of their
// vectors, and bound to the lab's code in backend_impl.hpp. Tensors are fp32
// (exercise 5: bf16 bits), row-major per head: q, k, v and o hold heads x n x
// d values, L = m + log(l) heads x n; the scores of a head are scale * q k^T,
// and with `causal` key j is left out of query i's softmax when j > i.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cudalab/harness/entry_points.hpp"

namespace lab06::harness {

using cudalab::harness::elements;
using cudalab::harness::Entry;
using cudalab::harness::In;
using cudalab::harness::InOut;
using cudalab::harness::Observation;
using cudalab::harness::Out;
using cudalab::harness::RunOptions;
using cudalab::harness::Size;
using cudalab::harness::Temp;

struct Attention {
  int heads = 1;  // batch x heads: attention runs on each independently
  int n = 1;      // sequence length (queries = keys = values)
  int d = 64;     // head dimension: 32, 64 or 128
  float scale = 0.125f;
  bool causal = false;
  std::size_t values() const { return static_cast<std::size_t>(heads) * n * d; }
  std::size_t rows() const { return static_cast<std::size_t>(heads) * n; }
  std::size_t scores() const { return static_cast<std::size_t>(heads) * n * n; }
};

// The tile sizes of a fused kernel for head dimension d: rows of Q per
// block (Br, FA2's B_r) and rows of K and V per step (Bc, FA2's B_c).
struct FlashTile {
  int query_rows = 0;
  int key_rows = 0;
};

namespace entry {
// Exercise 1: o = softmax(scale * q k^T [masked]) v in three kernels,
// through the heads x n x n scores in global memory (`scores`).
inline constexpr Entry<void(Attention shape, In<float> q, In<float> k, In<float> v,
                            Temp<float> scores, Out<float> o)>
    naive_attention{"naive_attention", [](Attention s) -> std::array<Size, 5> {
                      const std::size_t x = s.values();
                      return {{{"q", x}, {"k", x}, {"v", x}, {"scores", s.scores()}, {"o", x}}};
                    }};

// Exercise 2: the softmax of each row of x (rows x columns) into out, with
// the row's statistics gathered in one pass over blocks of `block` columns.
inline constexpr Entry<void(In<float> x, int rows, int columns, int block, Out<float> out)>
    online_softmax{"online_softmax", [](int rows, int columns, int) -> std::array<Size, 2> {
                     const std::size_t values =
                         elements(rows, "rows") * elements(columns, "columns");
                     return {{{"x", values}, {"out", values}}};
                   }};

// Exercises 3 and 4: the fused forward. `out` holds values() + rows()
// elements, o first, then L: one region for the guards and the coverage.
inline constexpr Entry<void(Attention shape, In<float> q, In<float> k, In<float> v, Out<float> out)>
    flash_forward{"flash_forward", [](Attention s) -> std::array<Size, 4> {
                    const std::size_t x = s.values();
                    return {{{"q", x}, {"k", x}, {"v", x}, {"out (o, then L)", x + s.rows()}}};
                  }};
inline constexpr Entry<FlashTile(int d)> flash_tile{"flash_tile"};

// Exercise 5: the fused forward on the tensor cores, bf16 q, k, v and o;
// L (fp32) comes back beside the observed o.
inline constexpr Entry<void(Attention shape, In<std::uint16_t> q, In<std::uint16_t> k,
                            In<std::uint16_t> v, Out<std::uint16_t> o, InOut<float> lse)>
    flash_forward_bf16{"flash_forward_bf16", [](Attention s) -> std::array<Size, 5> {
                         const std::size_t x = s.values();
                         return {{{"q", x}, {"k", x}, {"v", x}, {"o", x}, {"lse", s.rows()}}};
                       }};
inline constexpr Entry<FlashTile(int d)> flash_tile_bf16{"flash_tile_bf16"};

// Exercise 6: the backward pass. From q, k, v, the forward's o and L, and
// dO, the gradients dq, dk and dv in that order in `gradients`: one region
// for the guards and the coverage. `delta` holds D = rowsum(dO o O); the
// lab code zeroes dq on the device before the kernel adds into it.
inline constexpr Entry<void(Attention shape, In<float> q, In<float> k, In<float> v, In<float> o,
                            In<float> d_o, In<float> lse, Temp<float> delta, Out<float> gradients)>
    flash_backward{"flash_backward", [](Attention s) -> std::array<Size, 8> {
                     const std::size_t x = s.values(), rows = s.rows();
                     return {Size{"q", x},        Size{"k", x},
                             Size{"v", x},        Size{"o", x},
                             Size{"d_o", x},      Size{"lse", rows},
                             Size{"delta", rows}, Size{"gradients (dq, dk, dv)", 3 * x}};
                   }};
// Its tiles: the queries of a step of the walk (Br) and the keys a block owns (Bc).
inline constexpr Entry<FlashTile(int d)> flash_backward_tile{"flash_backward_tile"};
}  // namespace entry

using Backend = cudalab::harness::EntryBackend;

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);
// The same over solutions/ (OnBackend::reference()).
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);

}  // namespace lab06::harness
