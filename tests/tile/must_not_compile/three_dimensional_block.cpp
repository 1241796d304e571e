// Must not compile: a three-dimensional block. Its test passes when the
// message says a block has one or two dimensions.
#include "cudalab/tile/tile.hpp"

struct Cube {
  __device__ void operator()(float* out) const {
    const auto cube = cudalab::tile::zeros<float, 4, 4, 4>();
    out[0] = cube.v[0];
  }
};

void launch_it(float* out) { cudalab::tile::launch(Cube{}, 1, out); }
