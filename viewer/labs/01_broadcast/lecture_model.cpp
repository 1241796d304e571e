#include "lecture_model.hpp"

#include <algorithm>

#include "model/synthetic_runs.hpp"

namespace cudalab::viewer::lab01 {

Dim3 lecture_grid(std::uint64_t x, std::uint64_t y, Dim3 block) {
  const std::uint64_t blocks = (x * y + block.x - 1) / block.x;
  return {static_cast<std::uint32_t>(std::min<std::uint64_t>(blocks, 65535)),
          static_cast<std::uint32_t>((blocks + 65534) / 65535), 1};
}

KernelRun simulate(Mapping mapping, Dim3 grid, Dim3 block, std::uint64_t x, std::uint64_t y) {
  const std::uint64_t size = x * y;
  auto thread_index = [mapping](Dim3 b, Dim3 t, Dim3 g, Dim3 bd) -> std::uint64_t {
    const std::uint64_t bid = b.x + std::uint64_t{b.y} * g.x;
    const std::uint64_t scale = mapping == Mapping::kLecture ? b.x : bd.x;
    return bid * scale + t.x;
  };
  ThreadMapping fn = [=](Dim3 b, Dim3 t, Dim3 g, Dim3 bd) -> std::optional<Cell> {
    const std::uint64_t i = thread_index(b, t, g, bd);
    if (i >= size) return std::nullopt;
    if (mapping == Mapping::kCoalesced) return Cell{i / y, i % y};
    return Cell{i % x, (i / x) % y};
  };
  const char* names[] = {"broadcast_sum_kernel (lecture)", "broadcast_sum_fixed (exercise 1)",
                         "broadcast_sum_coalesced (exercise 3)"};
  return simulate_broadcast(names[static_cast<int>(mapping)], grid, block, x, y, fn);
}

}  // namespace cudalab::viewer::lab01
