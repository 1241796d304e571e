// Must not compile: [4, 8] + [8, 4], whose dimensions neither match nor are
// 1. Its test passes when the message says the shapes cannot broadcast.
#include "cudalab/tile/tile.hpp"

struct Mismatched {
  __device__ void operator()(const float* x, float* out) const {
    namespace tile = cudalab::tile;
    const auto a =
        tile::load(x, tile::as_column(tile::arange<4>()) * 8 + tile::as_row(tile::arange<8>()));
    const auto b =
        tile::load(x, tile::as_column(tile::arange<8>()) * 4 + tile::as_row(tile::arange<4>()));
    out[0] = tile::sum<0>(a + b).v[0];
  }
};

void launch_it(const float* x, float* out) { cudalab::tile::launch(Mismatched{}, 1, x, out); }
