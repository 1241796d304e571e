// Lab 01 in the viewer: its versions run through the lab's harness
// (harness/01_broadcast/backend.hpp) on the emulator, with a Recording around
// the call: the student's code (or the reference, whichever this build
// grades) exactly as the tests run it. Version 0 is the lecture's kernel as
// the slides show it (lecture_model.hpp).
#include <algorithm>
#include <chrono>

#include "cudalab/emu/recorder.hpp"
#include "harness/01_broadcast/backend.hpp"
#include "lecture_model.hpp"
#include "model/emu_run.hpp"
#include "model/lab_source.hpp"

namespace cudalab::viewer {
namespace {

namespace harness = ::lab01::harness;  // not viewer::lab01, the lecture model

constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 22;

enum Lab01Version : std::size_t { kSlides, kEx1, kEx2, kEx3, kEx4, kEx5 };
enum Lab01Parameter : std::size_t { kRows, kCols };

class Lab01Source final : public LabSource {
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
  std::vector<View> views() const override { return views_in_descriptor("01"); }
  std::vector<Parameter> parameters() const override {
    const auto most = static_cast<std::int64_t>(kMaxElements);
    return {{"rows", "rows (x)", 1, most, 64}, {"cols", "cols (y)", 1, most, 100}};
  }
  std::vector<Preset> presets() const override {
    return {{"7x37", {7, 37}},
            {"64x100", {64, 100}},
            {"300x301", {300, 301}},
            {"1024x1024", {1024, 1024}}};
  }
  std::size_t default_comparison(std::size_t version) const override {
    return version == kEx3 ? kSlides : kEx3;  // the coalesced one, or for it the slides'
  }
  std::string note(View view) const override {
    if (view != View::kBars) return {};
    return "Bandwidth = bytes the kernel must move (read a, read b, write a) / time. The copy "
           "line is cudaMemcpy device-to-device in the same run: the practical ceiling.";
  }

  RunOutcome run(const RunRequest& request) const override {
    if (auto problem = refuse(request)) return RunOutcome::failure(*problem);
    const auto rows = static_cast<std::uint64_t>(request.values[kRows]);
    const auto cols = static_cast<std::uint64_t>(request.values[kCols]);
    const auto start = std::chrono::steady_clock::now();
    RunOutcome out =
        request.version == kSlides ? slides(request, rows, cols) : on_emulator(request, rows, cols);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }

 private:
  std::optional<std::string> refuse(const RunRequest& request) const {
    if (auto problem = validate(*this, request)) return problem;
    const auto elements = static_cast<std::uint64_t>(request.values[kRows]) *
                          static_cast<std::uint64_t>(request.values[kCols]);
    if (elements > kMaxElements)
      return "the tensor has " + std::to_string(elements) +
             " elements; the viewer emulates at most " + std::to_string(kMaxElements);
    return std::nullopt;
  }

  static RunOutcome slides(const RunRequest& r, std::uint64_t rows, std::uint64_t cols) {
    const Dim3 grid = r.auto_grid ? lab01::lecture_grid(rows, cols, r.block) : r.grid;
    RunOutcome out;
    out.run = lab01::simulate(lab01::Mapping::kLecture, grid, r.block, rows, cols);
    return out;
  }

  RunOutcome on_emulator(const RunRequest& request, std::uint64_t rows, std::uint64_t cols) const {
    emu::Options quiet = emu::options();
    quiet.print_reports = false;  // shown in the window instead
    quiet.max_recorded_accesses = 4 * kMaxElements + 1024;
    emu::ScopedOptions scoped(quiet);

    const int x = static_cast<int>(rows), y = static_cast<int>(cols);
    const int block = static_cast<int>(request.block.x);
    std::vector<float> a(rows * cols, 1.0f), b(cols, 2.0f);
    auto backend = harness::make_emulator_backend();
    emu::Recording recording;
    harness::Observation seen;
    switch (request.version) {
      case kEx1:
        seen = backend->call(harness::entry::broadcast_sum_lecture, a, b, x, y,
                             lecture_launch(request, rows, cols));
        break;
      case kEx2:
        seen = backend->call(harness::entry::broadcast_sum, a, b, x, y, block);
        break;
      case kEx3:
        seen = backend->call(harness::entry::broadcast_sum_coalesced, a, b, x, y, block);
        break;
      case kEx4: {
        std::vector<float> out(a.size(), 0.0f);
        seen = backend->call(harness::entry::broadcast_add, out, a, harness::Shape{x, y}, b,
                             harness::Shape{1, y}, block);
        break;
      }
      case kEx5:
        seen = backend->call(harness::entry::broadcast_sum_vec4, a, b, x, y, block);
        break;
      default:
        return RunOutcome::failure("no such version");
    }
    RunOutcome out;
    out.error = run_problems(seen, recording);
    // Version K runs exercise K; a skeleton's TODO throws or touches nothing.
    const int exercise = static_cast<int>(request.version);
    if (recording.launches().empty()) {
      if (out.error.empty()) out.error = "the lab code launched no kernel";
      set_unfinished(out, *this, request.version,
                     not_done_yet(*this, exercise,
                                  seen.failed() ? seen.error : "the lab code launched no kernel"));
      return out;
    }
    out.run = kernel_run_from_launch(
        recording.last(),
        {reinterpret_cast<const void*>(seen.output_address), sizeof(float), rows, cols});
    if (out.run->requests.empty())
      set_unfinished(out, *this, request.version,
                     not_done_yet(*this, exercise,
                                  out.run->kernel + " made no global memory access: every "
                                                    "element is black (never written)"));
    out.run->kernel += "  [" + code_origin() + "]";
    return out;
  }

  // The grid the lecture's helper would build, unless the viewer's user chose one.
  static harness::LaunchDims lecture_launch(const RunRequest& r, std::uint64_t rows,
                                            std::uint64_t cols) {
    const Dim3 grid = r.auto_grid ? lab01::lecture_grid(rows, cols, r.block) : r.grid;
    harness::LaunchDims launch;
    launch.block.x = r.block.x;
    launch.grid.x = grid.x;
    launch.grid.y = grid.y;
    return launch;
  }
};

}  // namespace

std::unique_ptr<LabSource> make_lab_01_source() { return std::make_unique<Lab01Source>(); }

}  // namespace cudalab::viewer
