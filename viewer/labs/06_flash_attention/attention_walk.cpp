#include "attention_walk.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cudalab::viewer::lab06 {
namespace {

constexpr std::uint32_t kFloat = 4;

bool inside(std::uintptr_t base, std::uint64_t bytes, std::uint64_t address) {
  return base != 0 && address >= base && address < base + bytes;
}

std::vector<TileGrid> grids(const AttentionShape& s) {
  const auto blocks = static_cast<std::uint32_t>(s.query_blocks());
  const auto tiles = static_cast<std::uint32_t>(s.key_tiles());
  const auto d = static_cast<std::uint32_t>(s.d);
  return {{"Q (n x d)", blocks, 1, s.n, s.d, s.query_rows, d},
          {"K^T (d x n)", 1, tiles, s.d, s.n, d, s.key_rows},
          {"V (n x d)", tiles, 1, s.n, s.d, s.key_rows, d},
          {"O (n x d)", blocks, 1, s.n, s.d, s.query_rows, d},
          {"S = Q K^T (n x n, never stored)", blocks, tiles, s.n, s.n, s.query_rows, s.key_rows}};
}

// The accesses of one block, [first, end) of launch.accesses, placed.
std::vector<ElementAccess> block_accesses(const emu::LaunchRecord& launch,
                                          const AttentionBuffers& buffers,
                                          const AttentionShape& shape, std::uint32_t block,
                                          std::size_t first, std::size_t end) {
  const std::uint64_t matrix_bytes = shape.n * shape.d * kFloat;
  std::vector<ElementAccess> out;
  std::uint32_t last_step = 0;
  for (std::size_t i = first; i < end; ++i) {
    const emu::AccessRecord& r = launch.accesses[i];
    if (r.is_shared()) continue;
    const bool is_k = inside(buffers.k, matrix_bytes, r.address);
    const bool is_v = inside(buffers.v, matrix_bytes, r.address);
    const bool is_q = inside(buffers.q, matrix_bytes, r.address);
    if (!is_k && !is_v && !is_q) continue;
    const std::uintptr_t base = is_k ? buffers.k : is_v ? buffers.v : buffers.q;
    const std::uint32_t elements = std::max<std::uint32_t>(r.bytes / kFloat, 1);
    for (std::uint32_t e = 0; e < elements; ++e) {
      const std::uint64_t index = (r.address - base) / kFloat + e;
      const std::uint64_t row = index / shape.d, column = index % shape.d;
      const std::uint32_t bytes = e == 0 ? std::uint32_t{r.bytes} : 0u;
      if (is_q) {
        out.push_back({kQ, row, column, 0, bytes, r.is_read()});
        continue;
      }
      const auto step = static_cast<std::uint32_t>(row / shape.key_rows);
      last_step = std::max(last_step, step);
      if (is_k)
        out.push_back({kKTransposed, column, row, step, bytes, r.is_read()});
      else
        out.push_back({kV, row, column, step, bytes, r.is_read()});
      // The program's scores against key `row`: one S element per query of
      // its block, placed once per key (at K's first column).
      if (is_k && column == 0) {
        const std::uint64_t first_query = std::uint64_t{block} * shape.query_rows;
        const std::uint64_t last_query = std::min(first_query + shape.query_rows, shape.n);
        for (std::uint64_t query = first_query; query < last_query; ++query)
          out.push_back({kS, query, row, step, 0, false});
      }
    }
  }
  // The output's stores close the program's walk: its last step.
  for (std::size_t i = first; i < end; ++i) {
    const emu::AccessRecord& r = launch.accesses[i];
    if (r.is_shared() || !inside(buffers.out, matrix_bytes, r.address)) continue;
    const std::uint32_t elements = std::max<std::uint32_t>(r.bytes / kFloat, 1);
    for (std::uint32_t e = 0; e < elements; ++e) {
      const std::uint64_t index = (r.address - buffers.out) / kFloat + e;
      if (index >= shape.n * shape.d) break;
      out.push_back({kO, index / shape.d, index % shape.d, last_step,
                     e == 0 ? std::uint32_t{r.bytes} : 0u, r.is_read()});
    }
  }
  return out;
}

// The accesses of each block: launch.accesses are ordered by block.
std::vector<std::pair<std::size_t, std::size_t>> block_ranges(const emu::LaunchRecord& launch) {
  const std::uint32_t blocks = launch.grid.x * launch.grid.y * launch.grid.z;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  std::size_t first = 0;
  for (std::uint32_t block = 0; block < blocks; ++block) {
    while (first < launch.accesses.size() && launch.accesses[first].block < block) ++first;
    std::size_t end = first;
    while (end < launch.accesses.size() && launch.accesses[end].block == block) ++end;
    ranges.emplace_back(first, end);
    first = end;
  }
  return ranges;
}

}  // namespace

std::optional<AttentionBuffers> find_attention_buffers(const emu::LaunchRecord& launch,
                                                       std::uintptr_t out,
                                                       const AttentionShape& shape) {
  const std::uint64_t matrix_bytes = shape.n * shape.d * kFloat;
  struct Candidate {
    std::uintptr_t base = 0;
    std::size_t first_read = 0;
    std::set<std::pair<std::uint32_t, std::uint64_t>> block_tiles;  // (block, key tile)
  };
  std::vector<Candidate> candidates;
  for (const emu::AllocationInfo& a : launch.allocations)
    if (a.bytes == matrix_bytes && !inside(a.base, a.bytes, out))
      candidates.push_back({a.base, 0, {}});
  std::vector<bool> read(candidates.size(), false);
  for (std::size_t i = 0; i < launch.accesses.size(); ++i) {
    const emu::AccessRecord& r = launch.accesses[i];
    if (r.is_shared() || !r.is_read()) continue;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      if (!inside(candidates[c].base, matrix_bytes, r.address)) continue;
      if (!read[c]) candidates[c].first_read = i;
      read[c] = true;
      const std::uint64_t row = (r.address - candidates[c].base) / kFloat / shape.d;
      candidates[c].block_tiles.insert({r.block, row / shape.key_rows});
      break;
    }
  }
  std::vector<Candidate> read_ones;
  for (std::size_t c = 0; c < candidates.size(); ++c)
    if (read[c]) read_ones.push_back(std::move(candidates[c]));
  if (read_ones.empty()) return std::nullopt;
  // q: the fewest (block, tile) pairs, the first read among equals.
  std::sort(read_ones.begin(), read_ones.end(), [](const Candidate& a, const Candidate& b) {
    return std::pair(a.block_tiles.size(), a.first_read) <
           std::pair(b.block_tiles.size(), b.first_read);
  });
  AttentionBuffers buffers{read_ones[0].base, 0, 0, out};
  std::sort(read_ones.begin() + 1, read_ones.end(),
            [](const Candidate& a, const Candidate& b) { return a.first_read < b.first_read; });
  if (read_ones.size() > 1) buffers.k = read_ones[1].base;
  if (read_ones.size() > 2) buffers.v = read_ones[2].base;
  return buffers;
}

TileWalk attention_walk(const emu::LaunchRecord& launch, const AttentionBuffers& buffers,
                        const AttentionShape& shape) {
  TileWalk walk;
  walk.grids = grids(shape);
  const auto ranges = block_ranges(launch);
  walk.programs.reserve(ranges.size());
  for (std::uint32_t block = 0; block < ranges.size(); ++block) {
    const auto [first, end] = ranges[block];
    const std::uint64_t first_query = std::uint64_t{block} * shape.query_rows;
    const std::uint64_t last_query = std::min(first_query + shape.query_rows, shape.n);
    std::string name = "program " + std::to_string(block) + ": queries [" +
                       std::to_string(first_query) + ", " + std::to_string(last_query) + ")";
    walk.programs.push_back(program_walk(
        std::move(name), walk.grids, block_accesses(launch, buffers, shape, block, first, end)));
  }
  return walk;
}

}  // namespace cudalab::viewer::lab06
