// Must not compile: sum<2> of a two-dimensional block. Its test passes when
// the message says the axis is not one of the block's.
#include "cudalab/tile/tile.hpp"

struct AxisTwo {
  __device__ void operator()(float* out) const {
    namespace tile = cudalab::tile;
    out[0] = tile::sum<2>(tile::zeros<float, 4, 8>()).v[0];
  }
};

void launch_it(float* out) { cudalab::tile::launch(AxisTwo{}, 1, out); }
