#include "fragment_model.hpp"

#include <algorithm>

#include "cudalab/numerics/mma_layout.hpp"

namespace cudalab::viewer {
namespace {

namespace nx = cudalab::numerics;

constexpr int kLanes = 32;

// Fills `m` from a layout function of mma_layout.hpp: element i of lane L is
// at coord(L, i). `packed`: two 16-bit elements per 32-bit register.
template <typename Coord>
FragmentMatrix matrix(std::string name, std::string prefix, int rows, int cols,
                      int elements_per_lane, bool packed, Coord coord) {
  FragmentMatrix m{std::move(name), std::move(prefix), rows, cols,
                   std::vector<FragmentOwner>(static_cast<std::size_t>(rows) * cols)};
  for (int lane = 0; lane < kLanes; ++lane)
    for (int i = 0; i < elements_per_lane; ++i) {
      const nx::MatrixCoord at = coord(lane, i);
      FragmentOwner& owner = m.owners[at.row * cols + at.col];
      owner.lane = lane;
      owner.element = i;
      owner.reg = packed ? i / 2 : i;
      owner.half = !packed        ? FragmentOwner::Half::kWhole
                   : (i % 2 == 0) ? FragmentOwner::Half::kLow
                                  : FragmentOwner::Half::kHigh;
    }
  return m;
}

}  // namespace

FragmentLayout fragment_layout(MmaShape shape) {
  FragmentLayout layout;
  layout.shape = shape;
  if (shape == MmaShape::kM16N8K16) {
    layout.instruction = "mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32";
    layout.a = matrix("A", "a", 16, 16, 8, true, nx::m16n8k16_a_element);
    layout.b = matrix("B", "b", 16, 8, 4, true, nx::m16n8k16_b_element);
  } else {
    layout.instruction = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";
    layout.a = matrix("A", "a", 16, 8, 4, false, nx::m16n8k8_tf32_a_element);
    layout.b = matrix("B", "b", 8, 8, 2, false, nx::m16n8k8_tf32_b_element);
  }
  layout.c = matrix("C/D", "c", 16, 8, 4, false, nx::m16n8_c_element);
  return layout;
}

std::string register_label(const FragmentMatrix& matrix, const FragmentOwner& owner) {
  std::string label = matrix.register_prefix + std::to_string(owner.reg);
  if (owner.half == FragmentOwner::Half::kLow) label += ".lo";
  if (owner.half == FragmentOwner::Half::kHigh) label += ".hi";
  return label;
}

std::string describe_element(const FragmentMatrix& matrix, int row, int col) {
  const FragmentOwner& o = matrix.at(row, col);
  return matrix.name + "[" + std::to_string(row) + "][" + std::to_string(col) + "]: lane " +
         std::to_string(o.lane) + " (group " + std::to_string(o.lane / 4) + ", thread " +
         std::to_string(o.lane % 4) + "), register " + register_label(matrix, o) + " (element " +
         std::to_string(o.element) + ")";
}

std::vector<std::pair<int, int>> elements_of_lane(const FragmentMatrix& matrix, int lane) {
  std::vector<std::pair<int, int>> held;
  for (int r = 0; r < matrix.rows; ++r)
    for (int c = 0; c < matrix.cols; ++c)
      if (matrix.at(r, c).lane == lane) held.push_back({r, c});
  std::sort(held.begin(), held.end(), [&](auto x, auto y) {
    return matrix.at(x.first, x.second).element < matrix.at(y.first, y.second).element;
  });
  return held;
}

Rgba lane_colour(int lane) {
  // Hues of the categorical palette, one per group; shades from light to dark.
  const Rgba base = categorical(static_cast<std::uint64_t>(lane / 4));
  const double shade = 1.0 - 0.17 * (lane % 4);
  auto s = [shade](std::uint8_t v) { return static_cast<std::uint8_t>(v * shade); };
  return {s(base.r), s(base.g), s(base.b), 255};
}

Rgba fragment_cell_colour(int lane, std::optional<int> active) {
  return !active || *active == lane ? lane_colour(lane) : dimmed(lane_colour(lane));
}

}  // namespace cudalab::viewer
