// tile_backend.hpp's Backend over tile_programs.cuh, written once and
// compiled by each build (GPU, emulator, interpreter) inside its inline
// namespace CUDALAB_BACKEND: inputs to the device, one tile::launch on a
// guarded output (call_on_output), the output back.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/device_call.hpp"
#include "cudalab/numerics/formats.hpp"
#include "tile_backend.hpp"
#include "tile_programs.cuh"

namespace tile_tests {
inline namespace CUDALAB_BACKEND {

using cudalab::DeviceBuffer;
using cudalab::harness::call_on_output;

// Calls f(S{}) for the shape S of the list that equals `wanted`: device code
// needs the shape at compile time.
template <class... S, class F>
void with_shape(Shapes<S...>, const std::vector<int>& wanted, const char* call, F&& f) {
  const bool found = ((S::list() == wanted && (f(S{}), true)) || ...);
  if (!found) {
    throw std::invalid_argument(std::string(call) +
                                ": no program is instantiated for this shape (tile_backend.hpp "
                                "lists the shapes)");
  }
}

inline tile::Grid to_tile_grid(Grid grid) { return tile::Grid(grid.x, grid.y, grid.z); }

// The programs' element type for fp16 or bf16 values held as bit patterns.
template <class Half>
const Half* as_halves(const DeviceBuffer<std::uint16_t>& bits) {
  static_assert(sizeof(Half) == sizeof(std::uint16_t));
  return reinterpret_cast<const Half*>(bits.data());
}

class TileBackend final : public cudalab::harness::BackendFor<Backend> {
 public:
  Observation creation(int n, float value, std::vector<float>& out) override {
    return call_on_output(out, {}, [&](float* out_device) {
      with_shape(CreationSizes{}, {n}, "creation",
                 [&]<int N>(Dims<N>) { tile::launch(Creation<N>{}, 1, out_device, value); });
    });
  }

  Observation program_ids(Grid grid, std::vector<int>& out) override {
    return call_on_output(out, {}, [&](int* out_device) {
      tile::launch(ProgramIds{}, to_tile_grid(grid), out_device);
    });
  }

  Observation integer_ops(int n, std::vector<int>& out) override {
    return call_on_output(out, {}, [&](int* out_device) {
      tile::launch(IntegerOps{}, tile::cdiv(n, kBlock), out_device, n);
    });
  }

  Observation elementwise(const std::vector<float>& x, const std::vector<float>& y,
                          std::vector<float>& out) override {
    const DeviceBuffer<float> x_device(x), y_device(y);
    const int n = static_cast<int>(x.size());
    return call_on_output(out, {}, [&](float* out_device) {
      tile::launch(Elementwise{}, tile::cdiv(n, kBlock), x_device.data(), y_device.data(),
                   out_device, n);
    });
  }

  Observation cast(Element to, const std::vector<float>& x,
                   std::vector<std::uint16_t>& out) override {
    const DeviceBuffer<float> x_device(x);
    const int n = static_cast<int>(x.size());
    return call_on_output(out, {}, [&](std::uint16_t* out_device) {
      if (to == Element::fp16) {
        tile::launch(CastTo<__half>{}, tile::cdiv(n, kBlock), x_device.data(),
                     reinterpret_cast<__half*>(out_device), n);
      } else if (to == Element::bf16) {
        tile::launch(CastTo<__nv_bfloat16>{}, tile::cdiv(n, kBlock), x_device.data(),
                     reinterpret_cast<__nv_bfloat16*>(out_device), n);
      } else {
        throw std::invalid_argument("cast: to fp16 or bf16");
      }
    });
  }

  Observation broadcasts(const std::vector<int>& shape, const std::vector<float>& column,
                         const std::vector<float>& row, const std::vector<float>& matrix,
                         float scalar, std::vector<float>& out) override {
    const DeviceBuffer<float> column_device(column), row_device(row), matrix_device(matrix),
        scalar_device(std::vector<float>{scalar});
    return call_on_output(out, {}, [&](float* out_device) {
      with_shape(BroadcastShapes{}, shape, "broadcasts", [&]<int M, int N>(Dims<M, N>) {
        tile::launch(Broadcasts<M, N>{}, 1, column_device.data(), row_device.data(),
                     matrix_device.data(), scalar_device.data(), out_device);
      });
    });
  }

  Observation reduce_1d(int block, const std::vector<float>& x, float other,
                        std::vector<float>& out) override {
    const DeviceBuffer<float> x_device(x);
    const int n = static_cast<int>(x.size());
    return call_on_output(out, {}, [&](float* out_device) {
      with_shape(Reduce1DSizes{}, {block}, "reduce_1d", [&]<int N>(Dims<N>) {
        tile::launch(Reduce1D<N>{}, 1, x_device.data(), n, other, out_device);
      });
    });
  }

  Observation reduce_2d(const std::vector<int>& shape, const std::vector<float>& x,
                        std::vector<float>& out) override {
    const DeviceBuffer<float> x_device(x);
    return call_on_output(out, {}, [&](float* out_device) {
      with_shape(Reduce2DShapes{}, shape, "reduce_2d", [&]<int M, int N>(Dims<M, N>) {
        tile::launch(Reduce2D<M, N>{}, 1, x_device.data(), out_device);
      });
    });
  }

  Observation masked_load(const std::vector<float>& x, float other,
                          std::vector<float>& out) override {
    const DeviceBuffer<float> x_device(x);
    const int programs = tile::cdiv(static_cast<int>(out.size()), kBlock);
    return call_on_output(out, {}, [&](float* out_device) {
      tile::launch(MaskedLoad{}, programs, x_device.data(), static_cast<int>(x.size()), other,
                   out_device);
    });
  }

  Observation masked_store(const std::vector<float>& x, std::vector<float>& out) override {
    const DeviceBuffer<float> x_device(x);
    const int n = static_cast<int>(out.size());
    return call_on_output(out, {}, [&](float* out_device) {
      tile::launch(MaskedStore{}, tile::cdiv(n, kBlock), x_device.data(), n, out_device);
    });
  }

  Observation masked_load_2d(const std::vector<float>& x, int rows, int columns, int ld,
                             float other, std::vector<float>& out) override {
    const DeviceBuffer<float> x_device(x);
    return call_on_output(out, {}, [&](float* out_device) {
      tile::launch(MaskedLoad2D{}, 1, x_device.data(), rows, columns, ld, other, out_device);
    });
  }

  Observation unmasked_load(const std::vector<float>& x, std::vector<float>& out) override {
    const DeviceBuffer<float> x_device(x);
    const int programs = tile::cdiv(static_cast<int>(out.size()), kBlock);
    return call_on_output(out, {}, [&](float* out_device) {
      tile::launch(UnmaskedLoad{}, programs, x_device.data(), out_device);
    });
  }

  Observation unmasked_store(const std::vector<float>& x, std::vector<float>& out) override {
    const DeviceBuffer<float> x_device(x);
    const int n = static_cast<int>(x.size());
    return call_on_output(out, {}, [&](float* out_device) {
      tile::launch(UnmaskedStore{}, tile::cdiv(n, kBlock), x_device.data(), n, out_device);
    });
  }

  Observation block_ptr_load(const std::vector<int>& window, const StridedTensor& tensor,
                             const std::vector<float>& x, int row0, int column0, Grid grid,
                             bool pad_with_nan, std::vector<float>& out) override {
    const DeviceBuffer<float> x_device(x);
    return call_on_output(out, {}, [&](float* out_device) {
      with_shape(WindowShapes{}, window, "block_ptr_load", [&]<int BM, int BN>(Dims<BM, BN>) {
        tile::launch(BlockPtrLoad<BM, BN>{}, to_tile_grid(grid), x_device.data(), tensor.rows,
                     tensor.columns, tensor.row_stride, tensor.column_stride, row0, column0,
                     pad_with_nan, out_device);
      });
    });
  }

  Observation block_ptr_store(const std::vector<int>& window, const StridedTensor& tensor,
                              const std::vector<float>& x, int row0, int column0, Grid grid,
                              std::vector<float>& out) override {
    const DeviceBuffer<float> x_device(x);
    return call_on_output(out, {}, [&](float* out_device) {
      with_shape(WindowShapes{}, window, "block_ptr_store", [&]<int BM, int BN>(Dims<BM, BN>) {
        tile::launch(BlockPtrStore<BM, BN>{}, to_tile_grid(grid), x_device.data(), out_device,
                     tensor.rows, tensor.columns, tensor.row_stride, tensor.column_stride, row0,
                     column0);
      });
    });
  }

  Observation dot(Element inputs, const std::vector<int>& mkn, const std::vector<float>& a,
                  const std::vector<float>& b, const std::vector<float>& acc,
                  std::vector<float>& out) override {
    const DeviceBuffer<float> a_device(inputs == Element::fp32 ? a : std::vector<float>{}),
        b_device(inputs == Element::fp32 ? b : std::vector<float>{}), acc_device(acc);
    const DeviceBuffer<std::uint16_t> a_bits(rounded(inputs, a)), b_bits(rounded(inputs, b));
    return call_on_output(out, {}, [&](float* out_device) {
      with_shape(DotShapes{}, mkn, "dot", [&]<int M, int K, int N>(Dims<M, K, N>) {
        const float* acc_or_null = acc.empty() ? nullptr : acc_device.data();
        if (inputs == Element::fp32) {
          tile::launch(Dot<float, M, K, N>{}, 1, a_device.data(), b_device.data(), acc_or_null,
                       out_device);
        } else if (inputs == Element::fp16) {
          tile::launch(Dot<__half, M, K, N>{}, 1, as_halves<__half>(a_bits),
                       as_halves<__half>(b_bits), acc_or_null, out_device);
        } else {
          tile::launch(Dot<__nv_bfloat16, M, K, N>{}, 1, as_halves<__nv_bfloat16>(a_bits),
                       as_halves<__nv_bfloat16>(b_bits), acc_or_null, out_device);
        }
      });
    });
  }

  Observation accumulated_dot(Element inputs, const std::vector<int>& shape, int k,
                              const std::vector<float>& a, const std::vector<float>& b, int rows,
                              std::vector<float>& out) override {
    const DeviceBuffer<float> a_device(inputs == Element::fp32 ? a : std::vector<float>{}),
        b_device(inputs == Element::fp32 ? b : std::vector<float>{});
    const DeviceBuffer<std::uint16_t> a_bits(rounded(inputs, a)), b_bits(rounded(inputs, b));
    return call_on_output(out, {}, [&](float* out_device) {
      with_shape(AccumulatorShapes{}, shape, "accumulated_dot",
                 [&]<int M, int BK, int N>(Dims<M, BK, N>) {
                   if (inputs == Element::fp32) {
                     tile::launch(AccumulatedDot<float, M, BK, N>{}, 1, a_device.data(),
                                  b_device.data(), k, rows, out_device);
                   } else if (inputs == Element::fp16) {
                     tile::launch(AccumulatedDot<__half, M, BK, N>{}, 1, as_halves<__half>(a_bits),
                                  as_halves<__half>(b_bits), k, rows, out_device);
                   } else {
                     tile::launch(AccumulatedDot<__nv_bfloat16, M, BK, N>{}, 1,
                                  as_halves<__nv_bfloat16>(a_bits),
                                  as_halves<__nv_bfloat16>(b_bits), k, rows, out_device);
                   }
                 });
    });
  }

  Observation strided_copy(const std::vector<float>& x, int stride, std::vector<float>& out,
                           const RunOptions& options) override {
    const DeviceBuffer<float> x_device(x);
    return call_on_output(out, options, [&](float* out_device) {
      tile::launch(StridedCopy{}, 1, x_device.data(), stride, out_device);
    });
  }

 private:
  // fp16 or bf16 bit patterns of `values`, rounded to nearest even (empty for fp32).
  static std::vector<std::uint16_t> rounded(Element to, const std::vector<float>& values) {
    std::vector<std::uint16_t> bits;
    if (to == Element::fp32) return bits;
    for (const float value : values) {
      bits.push_back(to == Element::fp16 ? cudalab::numerics::fp32_to_fp16_bits(value)
                                         : cudalab::numerics::fp32_to_bf16_bits(value));
    }
    return bits;
  }
};

}  // namespace CUDALAB_BACKEND
}  // namespace tile_tests
