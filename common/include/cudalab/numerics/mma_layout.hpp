// Which lane of the warp holds which matrix element in an mma.sync fragment,
// as the PTX ISA specifies ("Matrix Fragments for mma.m16n8k16" and
// "mma.m16n8k8" with .f16/.bf16 and .tf32). Lanes form 8 groups of 4:
//   group = lane / 4 (0..7), thread_in_group = lane % 4 (0..3).
// Element i of a lane's fragment is the i-th value in its registers
// (for f16x2/bf16x2 registers: the lower half first).
#pragma once

#include "cudalab/numerics/bits.hpp"

namespace cudalab::numerics {

struct MatrixCoord {
  int row;
  int col;
};

CUDALAB_HOST_DEVICE constexpr int lane_group(int lane) { return lane >> 2; }
CUDALAB_HOST_DEVICE constexpr int lane_thread_in_group(int lane) { return lane & 3; }

// m16n8k16 .f16/.bf16, A (16 x 16, row-major operand): 8 elements per lane,
// in 4 registers of 2. Registers 0 and 2 hold rows group, 1 and 3 rows
// group + 8; registers 2 and 3 hold the upper 8 columns.
CUDALAB_HOST_DEVICE constexpr MatrixCoord m16n8k16_a_element(int lane, int i) {
  return {lane_group(lane) + 8 * ((i >> 1) & 1),
          2 * lane_thread_in_group(lane) + (i & 1) + 8 * (i >> 2)};
}

// m16n8k16 .f16/.bf16, B (16 x 8, K rows by N columns): 4 elements per lane.
CUDALAB_HOST_DEVICE constexpr MatrixCoord m16n8k16_b_element(int lane, int i) {
  return {2 * lane_thread_in_group(lane) + (i & 1) + 8 * (i >> 1), lane_group(lane)};
}

// m16n8k8 .tf32, A (16 x 8): 4 elements per lane, one per register.
CUDALAB_HOST_DEVICE constexpr MatrixCoord m16n8k8_tf32_a_element(int lane, int i) {
  return {lane_group(lane) + 8 * (i & 1), lane_thread_in_group(lane) + 4 * (i >> 1)};
}

// m16n8k8 .tf32, B (8 x 8): 2 elements per lane.
CUDALAB_HOST_DEVICE constexpr MatrixCoord m16n8k8_tf32_b_element(int lane, int i) {
  return {lane_thread_in_group(lane) + 4 * i, lane_group(lane)};
}

// C and D (16 x 8, fp32) of both shapes: 4 elements per lane.
CUDALAB_HOST_DEVICE constexpr MatrixCoord m16n8_c_element(int lane, int i) {
  return {lane_group(lane) + 8 * (i >> 1), 2 * lane_thread_in_group(lane) + (i & 1)};
}

}  // namespace cudalab::numerics
