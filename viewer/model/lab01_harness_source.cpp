// Lab 01 run through its harness (harness/01_broadcast/backend.hpp) on the
// emulator, with a Recording around the call: the student's code (or the
// reference, whichever this build grades) exactly as the tests run it.
#include <chrono>

#include "backend.hpp"
#include "cudalab/emu/recorder.hpp"
#include "emu_run.hpp"
#include "lab_source.hpp"

namespace cudalab::viewer {
namespace {

constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 22;

enum Lab01Version : std::size_t { kSlides, kEx1, kEx2, kEx3, kEx4, kEx5 };

class Lab01HarnessSource final : public LabSource {
 public:
  std::string title() const override { return "01 broadcast"; }
  std::string code_origin() const override {
    return std::string(CUDALAB_VIEWER_GRADED) == "labs" ? "labs/01_broadcast (your code)"
                                                        : "solutions/01_broadcast (reference)";
  }
  std::vector<Version> versions() const override {
    return {
        {"lecture (slides)",
         "the kernel as the slides show it: * blockIdx.x where blockDim.x "
         "belongs (a built-in model, whatever your code says)"},
        {"ex1 index", "broadcast_sum_kernel on the grid and block you choose"},
        {"ex2 launch", "broadcast_sum: your launch configuration for any size", false},
        {"ex3 coalesced", "broadcast_sum_coalesced: consecutive threads, consecutive addresses",
         false},
        {"ex4 broadcast_add", "out = a + b with b of shape (1, cols), fp32", false},
        {"ex5 float4", "broadcast_sum_vec4: 16-byte accesses", false},
    };
  }
  std::size_t default_comparison() const override { return kEx3; }

  RunOutcome run(const RunRequest& request) const override {
    if (request.version == kSlides) return slides_->run(request);
    if (auto problem = validate(request, kMaxElements)) return {std::nullopt, *problem, 0};
    emu::Options quiet = emu::options();
    quiet.print_reports = false;  // shown in the window instead
    quiet.max_recorded_accesses = 4 * kMaxElements + 1024;
    emu::ScopedOptions scoped(quiet);

    const auto start = std::chrono::steady_clock::now();
    const int x = static_cast<int>(request.rows), y = static_cast<int>(request.cols);
    const int block = static_cast<int>(request.block.x);
    std::vector<float> a(request.rows * request.cols, 1.0f), b(request.cols, 2.0f);
    auto backend = lab01::harness::make_emulator_backend();
    emu::Recording recording;
    lab01::harness::Observation seen;
    switch (request.version) {
      case kEx1:
        seen = backend->broadcast_sum_lecture(a, b, x, y, lecture_launch(request));
        break;
      case kEx2:
        seen = backend->broadcast_sum(a, b, x, y, block);
        break;
      case kEx3:
        seen = backend->broadcast_sum_coalesced(a, b, x, y, block);
        break;
      case kEx4: {
        std::vector<float> out(a.size(), 0.0f);
        seen = backend->broadcast_add(out, a, {x, y}, b, {1, y}, block);
        break;
      }
      case kEx5:
        seen = backend->broadcast_sum_vec4(a, b, x, y, 0, block);
        break;
      default:
        return {std::nullopt, "no such version", 0};
    }
    RunOutcome out;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.error = problems(seen, recording);
    if (recording.launches().empty()) {
      if (out.error.empty()) out.error = "the lab code launched no kernel";
      return out;
    }
    out.run = kernel_run_from_launch(
        recording.last(), {reinterpret_cast<const void*>(seen.output_address), sizeof(float),
                           request.rows, request.cols});
    out.run->kernel += "  [" + code_origin() + "]";
    return out;
  }

 private:
  // The grid the lecture's helper would build for one thread per element,
  // unless the viewer's user chose one.
  static lab01::harness::Launch2D lecture_launch(const RunRequest& r) {
    lab01::harness::Launch2D launch;
    launch.block = r.block.x;
    if (!r.auto_grid) {
      launch.grid_x = r.grid.x;
      launch.grid_y = r.grid.y;
      return launch;
    }
    const std::uint64_t blocks = (r.rows * r.cols + r.block.x - 1) / r.block.x;
    launch.grid_x = static_cast<unsigned>(std::min<std::uint64_t>(blocks, 65535));
    launch.grid_y = static_cast<unsigned>((blocks + 65534) / 65535);
    return launch;
  }

  // What went wrong, as the lab code threw it and the emulator reported it.
  static std::string problems(const lab01::harness::Observation& seen,
                              const emu::Recording& recording) {
    std::string text;
    if (seen.failed()) text = seen.error_type + ": " + seen.error;
    const auto reports = recording.reports();
    for (std::size_t r = 0; r < reports.size() && r < 3; ++r)
      text += (text.empty() ? "" : "\n") + reports[r].to_string();
    if (reports.size() > 3) text += "\n... " + std::to_string(reports.size() - 3) + " more reports";
    return text;
  }

  std::unique_ptr<LabSource> slides_ = make_lab01_model_source();
};

}  // namespace

std::unique_ptr<LabSource> make_lab01_harness_source() {
  return std::make_unique<Lab01HarnessSource>();
}

}  // namespace cudalab::viewer
