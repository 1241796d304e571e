#include <chrono>

#include "lab_source.hpp"
#include "synthetic_runs.hpp"

namespace cudalab::viewer {
namespace {

constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 24;

class Lab01ModelSource final : public LabSource {
 public:
  std::string title() const override { return "01 broadcast"; }
  std::string code_origin() const override { return "built-in model of the lecture's indexing"; }
  std::vector<Version> versions() const override {
    return {{"lecture", "the lecture's kernel: * blockIdx.x where blockDim.x belongs"},
            {"ex1 fixed index", "global index fixed; a warp still writes y floats apart"},
            {"ex3 coalesced", "consecutive threads write consecutive addresses"}};
  }
  std::size_t default_comparison() const override { return 2; }
  RunOutcome run(const RunRequest& request) const override {
    if (auto problem = validate(request, kMaxElements)) return {std::nullopt, *problem, 0};
    const auto start = std::chrono::steady_clock::now();
    Dim3 grid = request.grid;
    if (request.auto_grid) {
      const std::uint64_t size = request.rows * request.cols;
      const std::uint64_t blocks = (size + request.block.x - 1) / request.block.x;
      grid = {static_cast<std::uint32_t>(std::min<std::uint64_t>(blocks, 65535)),
              static_cast<std::uint32_t>((blocks + 65534) / 65535), 1};
    }
    const auto mapping = static_cast<Lab01Mapping>(std::min<std::size_t>(request.version, 2));
    RunOutcome out;
    out.run = simulate_lab01(mapping, grid, request.block, request.rows, request.cols);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }
};

}  // namespace

std::unique_ptr<LabSource> make_lab01_model_source() {
  return std::make_unique<Lab01ModelSource>();
}

std::optional<std::string> validate(const RunRequest& request, std::uint64_t max_elements) {
  const std::uint64_t elements = request.rows * request.cols;
  if (elements == 0) return "the tensor is empty: pick at least 1 x 1";
  if (elements > max_elements)
    return "the tensor has " + std::to_string(elements) +
           " elements; the viewer emulates at most " + std::to_string(max_elements);
  if (request.block.volume() == 0) return "a block needs at least one thread";
  if (request.block.volume() > 1024)
    return "a block has at most 1024 threads, not " + std::to_string(request.block.volume());
  if (!request.auto_grid && request.grid.volume() == 0) return "the grid needs at least one block";
  if (!request.auto_grid && (request.grid.y > 65535 || request.grid.z > 65535))
    return "gridDim.y and gridDim.z are at most 65535";
  return std::nullopt;
}

}  // namespace cudalab::viewer
