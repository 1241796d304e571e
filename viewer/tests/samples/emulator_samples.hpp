// A source of real data for the views no lab fills yet (timeline, error plot,
// tile walk): small kernels run on the emulator each time. The viewer's
// screenshot tests open it in cudalab_view_samples (samples_main.cpp); the
// viewer students run does not list it.
#pragma once

#include <memory>

#include "model/lab_source.hpp"

namespace cudalab::viewer {

// Its runs: a tiled matmul (C = A B, 8 x 8 tiles, n x n; parameter "n")
// recorded on the emulator gives the tile walk (the A, B and C tiles each
// block touches at each step, from thread 0's traced accesses) and the
// timeline (each block from start to end by thread 0's clock64(), packed
// into rows of blocks that ran at once); fp32 sums of 2^8 .. 2^20 uniform
// numbers, one thread in order and 256 threads with a tree, give the error
// plot (relative error against a double sum on the host).
std::unique_ptr<LabSource> make_emulator_samples_source();

}  // namespace cudalab::viewer
