// The tile programs in the tile interpreter: tile_programs.cuh compiled by
// the host compiler with CUDALAB_INTERPRET=1 (tests/tile/CMakeLists.txt), so
// that each program is a plain call on one CPU thread holding whole blocks.
// Not instrumented: there are no CUDA threads to trace, and the library
// checks every access against the emulator's allocations instead.
#include <memory>

#include "tile_backend_impl.hpp"

namespace tile_tests {

std::unique_ptr<Backend> make_interpreter_backend() { return std::make_unique<TileBackend>(); }

}  // namespace tile_tests
