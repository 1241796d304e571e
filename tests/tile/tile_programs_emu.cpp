// The tile programs on the emulator: the rewritten copy of this file, of
// tile_programs.cuh and of tile_backend_impl.hpp, compiled by the host
// compiler and instrumented (tests/tile/CMakeLists.txt), so that every access
// of 128 threads per program is checked and can be traced.
#include <memory>

#include "tile_backend_impl.hpp"

namespace tile_tests {

std::unique_ptr<Backend> make_emulator_backend() { return std::make_unique<TileBackend>(); }

}  // namespace tile_tests
