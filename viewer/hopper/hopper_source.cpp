// The viewer's Hopper page: no lab uses TMA or mbarriers yet, so this source
// runs a small plain-CUDA kernel of its own on the emulator and fills the
// swizzle and pipeline views from its recording. CMake compiles the copy
// tools/emu_rewrite.py makes of this file, instrumented, as a lab's.
//
// The kernel: one producer warp streams tiles of a (tiles * rows) x cols
// matrix into a ring of two shared-memory stages with TMA loads; each stage
// has a "full" barrier (the producer's arrive.expect_tx, the load's
// transaction bytes) and an "empty" one (every consumer thread arrives when
// done with it), as a Hopper GEMM's mainloop does.
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cudalab/device_buffer.hpp"
#include "cudalab/emu/recorder.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/mbarrier.hpp"
#include "cudalab/tma.hpp"
#include "model/lab_source.hpp"
#include "model/pipeline_model.hpp"

namespace cudalab::viewer {

// Not in an anonymous namespace: reports name kernels through their symbols.
namespace hopper_page {

constexpr int kStages = 2;
constexpr unsigned kMaxBoxBytes = 16384;
constexpr unsigned kWarp = 32;

// Warp 0 produces (its lane 0 alone), the other warps consume: each
// consumer thread adds up its share of the stage's bytes into sums[thread].
__global__ void tma_pipeline(const __grid_constant__ CUtensorMap map, int tiles, int box_rows,
                             unsigned box_bytes, unsigned* sums) {
  // 1024-aligned: the 128-byte swizzle's pattern starts at each stage.
  __shared__ __align__(1024) std::uint8_t stage[kStages][kMaxBoxBytes];
  __shared__ std::uint64_t full[kStages];
  __shared__ std::uint64_t empty[kStages];
  const unsigned consumers = blockDim.x - kWarp;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      cudalab::mbarrier_init(&full[s], 1);
      cudalab::mbarrier_init(&empty[s], consumers);
    }
    cudalab::fence_mbarrier_init();
  }
  __syncthreads();
  unsigned sum = 0;
  for (int t = 0; t < tiles; ++t) {
    const int s = t % kStages;
    const unsigned parity = (t / kStages) & 1u;  // tile t is phase t / 2 of its stage's barriers
    if (threadIdx.x == 0) {
      // The stage's previous tile must be consumed before it is overwritten.
      if (t >= kStages) cudalab::mbarrier_wait_parity(&empty[s], parity ^ 1u);
      cudalab::mbarrier_arrive_expect_tx(&full[s], box_bytes);
      cudalab::tma_load(stage[s], &map, &full[s], 0, t * box_rows);
    } else if (threadIdx.x >= kWarp) {
      cudalab::mbarrier_wait_parity(&full[s], parity);
      for (unsigned i = threadIdx.x - kWarp; i < box_bytes; i += consumers) sum += stage[s][i];
      cudalab::mbarrier_arrive(&empty[s]);
    }
  }
  if (threadIdx.x >= kWarp) sums[threadIdx.x - kWarp] = sum;
}

}  // namespace hopper_page

namespace {

using hopper_page::kMaxBoxBytes;

CUtensorMapSwizzle swizzle_mode(unsigned bytes) {
  switch (bytes) {
    case 32:
      return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64:
      return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128:
      return CU_TENSOR_MAP_SWIZZLE_128B;
    default:
      return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

// The box the recording's first TMA load copied (its two inner dimensions).
std::optional<SwizzleBox> first_load_box(const emu::LaunchRecord& launch) {
  for (const emu::TmaCopyRecord& copy : launch.tma_copies) {
    if (copy.is_store) continue;
    return SwizzleBox{copy.rank > 1 ? copy.box[1] : 1, copy.box[0], copy.element_bytes,
                      copy.swizzle_bytes, copy.shared_offset};
  }
  return std::nullopt;
}

class HopperSource final : public LabSource {
 public:
  std::string title() const override { return "hopper (TMA swizzle and async pipeline)"; }
  std::string code_origin() const override { return "viewer/hopper (the viewer's own kernel)"; }
  std::vector<Version> versions() const override {
    return {{"TMA pipeline, 2 stages",
             "a producer warp's TMA loads into two stages, consumer warps behind full/empty "
             "mbarriers",
             false}};
  }
  std::vector<View> views() const override { return {View::kSwizzle, View::kPipeline}; }
  std::vector<Parameter> parameters() const override {
    return {{"rows", "box rows", 8, 256, 64},
            {"cols", "box columns (dimension 0)", 8, 256, 64},
            {"element_bytes", "element bytes (2: fp16, 4: fp32)", 2, 4, 2},
            {"swizzle", "swizzle bytes (0, 32, 64, 128)", 0, 128, 128},
            {"tiles", "tiles loaded", 1, 8, 4},
            {"consumer_warps", "consumer warps", 1, 4, 2}};
  }
  bool has_launch_config() const override { return false; }
  std::string note(View view) const override {
    if (view == View::kPipeline)
      return "Barriers 0 and 2 are full[0] and full[1] (count 1: the producer's "
             "arrive.expect_tx, then the TMA load's bytes), 1 and 3 empty[0] and empty[1] "
             "(count: every consumer thread). Warp 0 is the producer.";
    return {};
  }

  RunOutcome run(const RunRequest& request) const override {
    if (auto problem = validate(*this, request)) return RunOutcome::failure(*problem);
    const auto value = [&](int i) { return static_cast<unsigned>(request.values[i]); };
    const SwizzleBox controls{value(0), value(1), value(2), value(3), 0};
    RunOutcome out;
    try {
      out.swizzle = swizzle_layout(controls);  // from the controls until the run gives its own
    } catch (const std::invalid_argument& e) {
      return RunOutcome::failure(e.what());
    }
    const unsigned box_bytes = controls.rows * controls.cols * controls.element_bytes;
    if (box_bytes > kMaxBoxBytes) {
      out.error = "a box of " + std::to_string(box_bytes) + " bytes: the kernel's stages hold " +
                  std::to_string(kMaxBoxBytes) + " (fewer rows or columns)";
      return out;
    }
    emu::Options quiet = emu::options();
    quiet.print_reports = false;
    emu::ScopedOptions scoped(quiet);
    const auto start = std::chrono::steady_clock::now();
    const int tiles = static_cast<int>(value(4));
    const unsigned consumers = value(5) * hopper_page::kWarp;
    const std::size_t bytes = std::size_t{box_bytes} * static_cast<std::size_t>(tiles);
    std::vector<std::uint8_t> data(bytes);
    for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::uint8_t>(i * 7);
    DeviceBuffer<std::uint8_t> matrix(data);
    DeviceBuffer<unsigned> sums(consumers);
    try {
      const CUtensorMap map =
          make_tensor_map(controls.element_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                      : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                          matrix.data(), {controls.cols, std::uint64_t{controls.rows} * value(4)},
                          {std::uint64_t{controls.cols} * controls.element_bytes},
                          {controls.cols, controls.rows}, swizzle_mode(controls.swizzle_bytes));
      emu::Recording recording;
      hopper_page::tma_pipeline<<<1, hopper_page::kWarp + consumers>>>(
          map, tiles, static_cast<int>(controls.rows), box_bytes, sums.data());
      cudaDeviceSynchronize();
      (void)cudaGetLastError();
      if (!recording.clean()) out.error = recording.reports_text();
      const emu::LaunchRecord& launch = recording.last();
      if (const auto box = first_load_box(launch)) out.swizzle = swizzle_layout(*box);
      out.pipeline = pipeline_timeline(launch, 0, {"full[0]", "empty[0]", "full[1]", "empty[1]"});
    } catch (const std::exception& e) {
      out.error = e.what();  // a box the tensor map refuses: the controls' layout stays
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }
};

}  // namespace

std::unique_ptr<LabSource> make_hopper_source() { return std::make_unique<HopperSource>(); }

}  // namespace cudalab::viewer
