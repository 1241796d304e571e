// What the tensor-core fragment view draws: for one mma.sync shape, the A
// (16 x k), B (k x 8) and C/D (16 x 8) matrices with each element labelled
// by the lane and the register that holds it (cudalab/numerics/mma_layout.hpp,
// the PTX ISA's fragment layouts). Backend-free, no ImGui.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "palette.hpp"

namespace cudalab::viewer {

enum class MmaShape {
  kM16N8K16,     // .f16 and .bf16 inputs (the same layout)
  kM16N8K8Tf32,  // .tf32 inputs
};

// Who holds one element: lane `lane`, fragment element `element` (the i of
// mma_layout.hpp), which lives in register `reg`, in its lower or upper half
// for the packed f16x2/bf16x2 registers.
struct FragmentOwner {
  int lane = -1;
  int element = 0;
  int reg = 0;
  enum class Half { kWhole, kLow, kHigh } half = Half::kWhole;
};

struct FragmentMatrix {
  std::string name;             // "A", "B", "C/D"
  std::string register_prefix;  // "a", "b", "c": the PTX operand's registers
  int rows = 0, cols = 0;
  std::vector<FragmentOwner> owners;  // row-major, rows x cols
  const FragmentOwner& at(int row, int col) const { return owners[row * cols + col]; }
};

struct FragmentLayout {
  MmaShape shape = MmaShape::kM16N8K16;
  std::string instruction;  // "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
  FragmentMatrix a, b, c;
  int k() const { return a.cols; }
};

FragmentLayout fragment_layout(MmaShape shape);

// "a1.hi", "c3": the register (and half) as a label.
std::string register_label(const FragmentMatrix& matrix, const FragmentOwner& owner);
// "A[3][10]: lane 9 (group 2, thread 1), register a2.lo (element 4)".
std::string describe_element(const FragmentMatrix& matrix, int row, int col);
// The elements a lane holds in `matrix`, in its register order.
std::vector<std::pair<int, int>> elements_of_lane(const FragmentMatrix& matrix, int lane);

// A lane's colour: its group of 4 (lane / 4) picks the hue, the thread in the
// group the shade, so the 8 x 4 structure of the layouts shows at a glance.
Rgba lane_colour(int lane);
// The colour of an element held by `lane` while `active` (hovered or
// selected) stands out: its own colour for the active lane's elements and
// for all when none is active, dimmed otherwise.
Rgba fragment_cell_colour(int lane, std::optional<int> active);

}  // namespace cudalab::viewer
