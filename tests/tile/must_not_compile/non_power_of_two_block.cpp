// Must not compile: a block of 781 elements. Its test (tests/tile/CMakeLists.txt)
// passes when the message says a dimension must be a power of two.
#include "cudalab/tile/tile.hpp"

struct RowOf781 {
  __device__ void operator()(float* out) const {
    cudalab::tile::store(out, cudalab::tile::arange<781>(), cudalab::tile::zeros<float, 781>());
  }
};

void launch_it(float* out) { cudalab::tile::launch(RowOf781{}, 1, out); }
