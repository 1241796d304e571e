#include "matmul_walk.hpp"

#include <array>
#include <vector>

namespace cudalab::viewer::lab05 {
namespace {

enum Matrix : std::uint32_t { kA, kB, kC };

struct Placed {
  std::uintptr_t base = 0;
  std::uint64_t rows = 0, cols = 0;
  std::uint32_t element_bytes = 0;
  bool contains(std::uint64_t address) const {
    return base != 0 && address >= base && address < base + rows * cols * element_bytes;
  }
};

std::array<Placed, 3> placed(const MatmulBuffers& buffers, const MatmulShape& s) {
  return {Placed{buffers.a, s.m, s.k, s.input_bytes}, Placed{buffers.b, s.k, s.n, s.input_bytes},
          Placed{buffers.c, s.m, s.n, 4}};
}

// Every element each traced global access of `block` covers (a vector
// access covers several), placed in its matrix and K step.
std::vector<ElementAccess> block_accesses(const emu::LaunchRecord& launch,
                                          const std::array<Placed, 3>& matrices,
                                          const MatmulShape& shape, std::size_t first,
                                          std::size_t end) {
  const auto last_step = static_cast<std::uint32_t>(shape.k_steps() == 0 ? 0 : shape.k_steps() - 1);
  std::vector<ElementAccess> out;
  for (std::size_t i = first; i < end; ++i) {
    const emu::AccessRecord& r = launch.accesses[i];
    if (r.is_shared()) continue;
    for (std::uint32_t g = 0; g < 3; ++g) {
      const Placed& p = matrices[g];
      if (!p.contains(r.address)) continue;
      const std::uint32_t per_element = std::max<std::uint32_t>(r.bytes / p.element_bytes, 1);
      for (std::uint32_t e = 0; e < per_element; ++e) {
        const std::uint64_t index = (r.address - p.base) / p.element_bytes + e;
        ElementAccess a{g,
                        index / p.cols,
                        index % p.cols,
                        last_step,
                        e == 0 ? std::uint32_t{r.bytes} : 0u,
                        r.is_read()};
        if (g == kA) a.step = static_cast<std::uint32_t>(a.col / shape.bk);
        if (g == kB) a.step = static_cast<std::uint32_t>(a.row / shape.bk);
        out.push_back(a);
      }
      break;
    }
  }
  return out;
}

std::vector<TileGrid> grids(const MatmulShape& s) {
  auto tiles = [](std::uint64_t elements, std::uint32_t tile) {
    return static_cast<std::uint32_t>((elements + tile - 1) / tile);
  };
  return {{"A (m x k)", tiles(s.m, s.bm), tiles(s.k, s.bk), s.m, s.k, s.bm, s.bk},
          {"B (k x n)", tiles(s.k, s.bk), tiles(s.n, s.bn), s.k, s.n, s.bk, s.bn},
          {"C (m x n)", tiles(s.m, s.bm), tiles(s.n, s.bn), s.m, s.n, s.bm, s.bn}};
}

std::size_t tiles_touched(const TileWalk& walk) {
  std::size_t n = 0;
  for (const ProgramWalk& p : walk.programs)
    for (const auto& step : p.steps) n += step.size();
  return n;
}

bool was_read(const emu::LaunchRecord& launch, const emu::AllocationInfo& allocation) {
  for (const emu::AccessRecord& r : launch.accesses)
    if (!r.is_shared() && r.is_read() && r.address >= allocation.base &&
        r.address < allocation.base + allocation.bytes)
      return true;
  return false;
}

}  // namespace

std::optional<MatmulBuffers> find_matmul_buffers(const emu::LaunchRecord& launch, std::uintptr_t c,
                                                 const MatmulShape& shape) {
  const std::uint64_t a_bytes = shape.m * shape.k * shape.input_bytes;
  const std::uint64_t b_bytes = shape.k * shape.n * shape.input_bytes;
  std::vector<std::uintptr_t> as, bs;
  for (const emu::AllocationInfo& allocation : launch.allocations) {
    if (c >= allocation.base && c < allocation.base + allocation.bytes) continue;
    if (allocation.bytes != a_bytes && allocation.bytes != b_bytes) continue;
    if (!was_read(launch, allocation)) continue;
    if (allocation.bytes == a_bytes) as.push_back(allocation.base);
    if (allocation.bytes == b_bytes) bs.push_back(allocation.base);
  }
  std::optional<MatmulBuffers> best;
  std::size_t fewest = 0;
  for (std::uintptr_t a : as)
    for (std::uintptr_t b : bs) {
      if (a == b) continue;
      const MatmulBuffers candidate{a, b, c};
      const std::size_t touched = tiles_touched(matmul_walk(launch, candidate, shape));
      if (!best || touched < fewest) {
        best = candidate;
        fewest = touched;
      }
    }
  return best;
}

TileWalk matmul_walk(const emu::LaunchRecord& launch, const MatmulBuffers& buffers,
                     const MatmulShape& shape) {
  TileWalk walk;
  walk.grids = grids(shape);
  walk.minimum_bytes = (std::uint64_t{shape.bm} * shape.k + shape.k * shape.bn) * shape.input_bytes;
  const auto matrices = placed(buffers, shape);
  const auto blocks = launch.grid.x * launch.grid.y * launch.grid.z;
  walk.programs.reserve(blocks);
  // launch.accesses are ordered by block.
  std::size_t first = 0;
  for (std::uint32_t block = 0; block < blocks; ++block) {
    std::size_t end = first;
    while (end < launch.accesses.size() && launch.accesses[end].block == block) ++end;
    const auto accesses = block_accesses(launch, matrices, shape, first, end);
    std::string name = "program " + std::to_string(block);
    for (const ElementAccess& a : accesses)
      if (a.grid == kC && !a.is_load) {
        name += ": C tile (" + std::to_string(a.row / shape.bm) + ", " +
                std::to_string(a.col / shape.bn) + ")";
        break;
      }
    walk.programs.push_back(program_walk(std::move(name), walk.grids, accesses));
    first = end;
  }
  return walk;
}

}  // namespace cudalab::viewer::lab05
