// The errors cudalab/emu/cooperative_groups.hpp raises in kernel code: a
// tiled_partition the GPU would abort. Made here, with the access checks
// quiet, because building a message on a kernel's fiber can run an
// instrumented copy of std::string's code (engine.hpp, CheckingAnAccess).
#include <stdexcept>
#include <string>

#include "cudalab/emu/cooperative_groups.hpp"
#include "engine.hpp"

namespace cudalab::emu::detail {

void bad_tile_size(unsigned size) {
  const CheckingAnAccess quiet;
  throw std::invalid_argument("cooperative_groups::tiled_partition(parent, " +
                              std::to_string(size) +
                              "): the tile size must be a power of two from 1 to 32");
}

void bad_partition_parent() {
  const CheckingAnAccess quiet;
  throw std::invalid_argument(
      "cooperative_groups::tiled_partition(parent, n): the parent is a thread_block, a tile or a "
      "coalesced_group (a grid_group cannot be partitioned)");
}

}  // namespace cudalab::emu::detail
