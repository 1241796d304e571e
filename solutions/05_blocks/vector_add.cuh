// Lab 05, exercise 1: the first tile programs. Triton's tutorial 01 adds two
// vectors; the lecture's Act_new(x) = sqrt(x + 1) costs PyTorch two kernels
// and two trips through memory, and one fused program a single trip.
//
// A program is a struct with a __device__ operator(): tile::launch runs it
// once per program id, each as one CTA (README.md shows the Triton code next
// to it). The exercises are the TODO regions of labs/05_blocks/, each from
// its `begin` line to its `end` line.
#pragma once

#include <stdexcept>
#include <string>

#include "cudalab/tile/tile.hpp"

namespace lab05 {
inline namespace CUDALAB_BACKEND {

namespace tile = cudalab::tile;

// Elements per program: a power of two, like every block shape.
inline constexpr int kVectorBlock = 1024;

inline void check_length(int n, const char* what) {
  if (n < 0) throw std::invalid_argument(std::string(what) + ": n must be >= 0");
}

// out[i] = x[i] + y[i] for i < n.
struct AddProgram {
  __device__ void operator()([[maybe_unused]] const float* x, [[maybe_unused]] const float* y,
                             [[maybe_unused]] float* out, [[maybe_unused]] int n) const {
    // TODO(ex1) begin, about 6 lines: this program's offsets (program id *
    // kVectorBlock + arange), the mask offsets < n, two masked loads, one
    // masked store of their sum.
    const auto offsets = tile::program_id(0) * kVectorBlock + tile::arange<kVectorBlock>();
    const auto mask = offsets < n;
    const auto a = tile::load(x, offsets, mask);
    const auto b = tile::load(y, offsets, mask);
    tile::store(out, offsets, a + b, mask);
    // TODO(ex1) end
  }
};

// out[i] = sqrt(x[i] + 1) for i < n, reading x once and writing out once.
struct FusedActivationProgram {
  __device__ void operator()([[maybe_unused]] const float* x, [[maybe_unused]] float* out,
                             [[maybe_unused]] int n) const {
    // TODO(ex1) begin, about 4 lines: as AddProgram, with one load and
    // tile::sqrt(values + 1.0f) stored.
    const auto offsets = tile::program_id(0) * kVectorBlock + tile::arange<kVectorBlock>();
    const auto mask = offsets < n;
    const auto values = tile::load(x, offsets, mask);
    tile::store(out, offsets, tile::sqrt(values + 1.0f), mask);
    // TODO(ex1) end
  }
};

inline void add(const float* x, const float* y, float* out, int n) {
  check_length(n, "add");
  tile::launch(AddProgram{}, tile::cdiv(n, kVectorBlock), x, y, out, n);
}

inline void fused_activation(const float* x, float* out, int n) {
  check_length(n, "fused_activation");
  tile::launch(FusedActivationProgram{}, tile::cdiv(n, kVectorBlock), x, out, n);
}

// What PyTorch's eager torch.sqrt(x + 1) does: one kernel per operator, the
// intermediate x + 1 written to memory and read back. Not an exercise: the
// trace and the benchmark compare your fused program with it.
struct AddOneProgram {
  __device__ void operator()(const float* x, float* out, int n) const {
    const auto offsets = tile::program_id(0) * kVectorBlock + tile::arange<kVectorBlock>();
    const auto mask = offsets < n;
    tile::store(out, offsets, tile::load(x, offsets, mask) + 1.0f, mask);
  }
};
struct SqrtProgram {
  __device__ void operator()(const float* x, float* out, int n) const {
    const auto offsets = tile::program_id(0) * kVectorBlock + tile::arange<kVectorBlock>();
    const auto mask = offsets < n;
    tile::store(out, offsets, tile::sqrt(tile::load(x, offsets, mask)), mask);
  }
};

// `scratch` holds n floats for the intermediate.
inline void unfused_activation(const float* x, float* scratch, float* out, int n) {
  check_length(n, "unfused_activation");
  tile::launch(AddOneProgram{}, tile::cdiv(n, kVectorBlock), x, scratch, n);
  tile::launch(SqrtProgram{}, tile::cdiv(n, kVectorBlock), static_cast<const float*>(scratch), out,
               n);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab05
