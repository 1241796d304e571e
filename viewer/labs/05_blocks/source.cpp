// Lab 05 in the viewer: the tiled matmul's tile walk (exercises 4 and 5) and
// the fused activation's warp requests (exercise 1), each run with the lab's
// code through its harness (harness/05_blocks/backend.hpp) on the emulator,
// with a Recording around the call: the student's code (or the reference,
// whichever this build grades) exactly as the tests run it.
#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <tuple>

#include "cudalab/emu/recorder.hpp"
#include "harness/05_blocks/backend.hpp"
#include "matmul_walk.hpp"
#include "model/emu_run.hpp"
#include "model/lab_source.hpp"

namespace cudalab::viewer {
namespace {

namespace harness = ::lab05::harness;

enum Lab05Version : std::size_t { kRowMajor, kGrouped, kFused, kUnfused };
enum Lab05Parameter : std::size_t { kM, kN, kK, kGroupM, kWave, kElements };

// The emulator traces every element access: keep runs to a few seconds.
constexpr std::int64_t kMaxMatrixSide = 2048;
constexpr std::int64_t kMaxMatrixElements = std::int64_t{1} << 20;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 22;

class Lab05Source final : public LabSource {
 public:
  std::string title() const override { return "05 blocks"; }
  std::string code_origin() const override {
    return std::string(CUDALAB_VIEWER_GRADED) == "labs" ? "labs/05_blocks (your code)"
                                                        : "solutions/05_blocks (reference)";
  }
  std::vector<Version> versions() const override {
    return {
        {"matmul (row-major order)",
         "ex4: program pid computes C tile (pid / grid_n, pid % grid_n)",
         false,
         {View::kTiles}},
        {"matmul (grouped order)",
         "ex5: group_m tile rows walked column by column",
         false,
         {View::kTiles}},
        {"fused activation",
         "ex1: sqrt(x + 1) in one program: one trip through memory",
         false,
         {View::kCoalescing}},
        {"unfused activation",
         "x + 1 then sqrt, two kernels: two trips (lab code)",
         false,
         {View::kCoalescing}},
    };
  }
  std::vector<View> views() const override { return views_in_descriptor("05"); }
  std::vector<Parameter> parameters() const override {
    return {{"m", "m (rows of A, C)", 1, kMaxMatrixSide, 300},
            {"n", "n (columns of B, C)", 1, kMaxMatrixSide, 440},
            {"k", "k (columns of A, rows of B)", 1, kMaxMatrixSide, 80},
            {"group_m", "group_m (grouped order)", 1, 64, 2},
            {"wave", "wave (programs shaded; 0: all)", 0, 4096, 4},
            {"elements", "elements (activation)", 1, kMaxElements, 4099}};
  }
  std::vector<Preset> presets() const override {
    return {{"300x440x80", {300, 440, 80, 2, 4, 4099}},
            {"200x300x96", {200, 300, 96, 2, 3, 4099}},
            {"576x1152x64 (9 x 9 tiles)", {576, 1152, 64, 3, 9, 4099}}};
  }
  bool has_launch_config() const override { return false; }
  // Fused against unfused, and unfused against fused.
  std::size_t default_comparison(std::size_t version) const override {
    return version == kUnfused ? kFused : kUnfused;
  }
  std::string note(View view) const override {
    if (view == View::kTiles)
      return "Bytes loaded: what the program's global loads of A and B moved (from the trace). "
             "Minimum: (BM*K + K*BN) * 2 bytes, each element of its row panel of A and column "
             "panel of B once. Hatched: the part of an edge tile outside the matrix, never "
             "loaded (masked, or wrapped with % m and % n as the tutorial does). The shading "
             "counts the first `wave` programs only: grouped, they share fewer panels.";
    if (view == View::kCoalescing)
      return "The activation's warp requests: fused, one load of x and one store per element; "
             "unfused, a second kernel reads back what the first wrote.";
    if (view == View::kBars)
      return "From `./lab bench 05`: the activation and the softmax in GB/s against the "
             "device-to-device copy of the same size, the matmul in TFLOP/s against cuBLAS on "
             "the same shape, all measured in the same run; torch_* bars are PyTorch doing the "
             "same job.";
    return {};
  }

  RunOutcome run(const RunRequest& request) const override {
    if (auto problem = refuse(request)) return RunOutcome::failure(*problem);
    const auto start = std::chrono::steady_clock::now();
    RunOutcome out;
    try {
      out = request.version == kFused || request.version == kUnfused ? activation(request)
                                                                     : matmul(request);
    } catch (const std::exception& e) {
      out = RunOutcome::failure(e.what());
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }

 private:
  std::optional<std::string> refuse(const RunRequest& request) const {
    if (auto problem = validate(*this, request)) return problem;
    const auto& v = request.values;
    for (auto [rows, cols, name] : {std::tuple{v[kM], v[kK], "A"}, std::tuple{v[kK], v[kN], "B"},
                                    std::tuple{v[kM], v[kN], "C"}})
      if (rows * cols > kMaxMatrixElements)
        return std::string(name) + " has " + std::to_string(rows * cols) +
               " elements; the viewer emulates matrices of at most " +
               std::to_string(kMaxMatrixElements);
    return std::nullopt;
  }

  static emu::ScopedOptions quiet_options() {
    emu::Options quiet = emu::options();
    quiet.print_reports = false;  // shown in the window instead
    quiet.max_recorded_accesses = std::size_t{1} << 26;
    return emu::ScopedOptions(quiet);
  }

  RunOutcome matmul(const RunRequest& request) const {
    const auto& v = request.values;
    const int m = static_cast<int>(v[kM]), n = static_cast<int>(v[kN]), k = static_cast<int>(v[kK]);
    auto backend = harness::make_emulator_backend();
    const std::vector<int> tile = backend->call(harness::entry::matmul_tile);  // BM, BN, BK
    const lab05::MatmulShape shape{std::uint64_t(m),
                                   std::uint64_t(n),
                                   std::uint64_t(k),
                                   std::uint32_t(tile.at(0)),
                                   std::uint32_t(tile.at(1)),
                                   std::uint32_t(tile.at(2)),
                                   2};
    std::mt19937 random(5);
    std::uniform_int_distribution<std::uint16_t> small_half(0x3000, 0x3c00);  // 0.125 .. 1
    std::vector<std::uint16_t> a(std::size_t(m) * k), b(std::size_t(k) * n);
    for (auto& x : a) x = small_half(random);
    for (auto& x : b) x = small_half(random);
    std::vector<float> c(std::size_t(m) * n, 0.0f);
    harness::Ordering ordering;
    ordering.grouped = request.version == kGrouped;
    ordering.group_m = static_cast<int>(v[kGroupM]);

    emu::ScopedOptions scoped = quiet_options();
    emu::Recording recording;
    const harness::Observation seen =
        backend->call(harness::entry::matmul, m, n, k, a, b, c, ordering);
    RunOutcome out;
    out.error = run_problems(seen, recording);
    if (recording.launches().empty()) {
      if (out.error.empty()) out.error = "the lab code launched no kernel";
      return out;
    }
    const emu::LaunchRecord& launch = recording.last();
    auto buffers = lab05::find_matmul_buffers(launch, seen.output_address, shape);
    std::string unfinished;
    if (!buffers) {  // a skeleton's matmul stores its zero accumulator and loads nothing
      out.error += std::string(out.error.empty() ? "" : "\n") +
                   "the kernel read no buffer of A's or B's size: only its stores of C to walk";
      unfinished = not_done_yet(*this, 4,
                                "the kernel loaded nothing from A or B; the walk shows only "
                                "where each program stored its tile of C");
      buffers = lab05::MatmulBuffers{0, 0, seen.output_address};
    }
    TileWalk walk = lab05::matmul_walk(launch, *buffers, shape);
    if (request.version == kGrouped && unfinished.empty()) {
      // Each program must compute a tile of C of its own (exercise 5's order).
      std::set<std::pair<std::uint32_t, std::uint32_t>> c_tiles;
      for (const ProgramWalk& program : walk.programs)
        for (const TileTouch& t : program.steps.back())
          if (t.grid == 2) c_tiles.insert({t.row, t.col});
      if (c_tiles.size() < walk.programs.size())
        unfinished = not_done_yet(
            *this, 5,
            std::to_string(walk.programs.size()) + " programs stored only " +
                std::to_string(c_tiles.size()) +
                " distinct tiles of C: GroupedOrder must give each program a tile of its own");
    }
    if (!unfinished.empty()) set_unfinished(out, *this, request.version, unfinished);
    walk.wave = static_cast<std::size_t>(v[kWave]);
    walk.title = versions()[request.version].name + ": C (" + std::to_string(m) + " x " +
                 std::to_string(n) + ") = A (" + std::to_string(m) + " x " + std::to_string(k) +
                 ") B (" + std::to_string(k) + " x " + std::to_string(n) +
                 "), tiles BM x BN x BK = " + std::to_string(shape.bm) + " x " +
                 std::to_string(shape.bn) + " x " + std::to_string(shape.bk) + ", " +
                 std::to_string(walk.programs.size()) + " programs, " +
                 std::to_string(shape.k_steps()) + " K steps  [" + code_origin() + "]";
    if (launch.accesses_truncated)
      out.error += std::string(out.error.empty() ? "" : "\n") +
                   "the trace was cut short: later programs' tiles are missing";
    out.tiles = std::move(walk);
    return out;
  }

  RunOutcome activation(const RunRequest& request) const {
    const auto elements = static_cast<std::size_t>(request.values[kElements]);
    std::vector<float> x(elements), y(elements, 0.0f);
    for (std::size_t i = 0; i < elements; ++i) x[i] = static_cast<float>(i % 97);
    auto backend = harness::make_emulator_backend();
    emu::ScopedOptions scoped = quiet_options();
    emu::Recording recording;
    const int n = static_cast<int>(x.size());
    const harness::Observation seen = request.version == kFused
                                          ? backend->call(harness::entry::fused_activation, x, y, n)
                                          : backend->call(harness::entry::unfused_activation, x,
                                                          harness::Temp<float>{x.size()}, y, n);
    RunOutcome out;
    out.error = run_problems(seen, recording);
    if (recording.launches().empty()) {
      if (out.error.empty()) out.error = "the lab code launched no kernel";
      return out;
    }
    // Every launch's requests in one run (the unfused version's two kernels
    // each add their sites); who wrote y comes from the last launch.
    const OutputTensor output{reinterpret_cast<const void*>(seen.output_address), sizeof(float), 1,
                              elements};
    KernelRun run = kernel_run_from_launch(recording.last(), output);
    if (run.requests.empty() && request.version == kFused)  // a skeleton's program does nothing
      set_unfinished(out, *this, request.version,
                     not_done_yet(*this, 1,
                                  "FusedActivationProgram made no memory access (it loads and "
                                  "stores nothing yet), so there is no request to compare"));
    for (std::size_t l = 0; l + 1 < recording.launches().size(); ++l) {
      const KernelRun earlier = kernel_run_from_launch(recording.launches()[l], output);
      const auto offset = static_cast<std::uint32_t>(earlier.sites.size());
      for (WarpRequest& r : run.requests) r.site += offset;
      run.sites.insert(run.sites.begin(), earlier.sites.begin(), earlier.sites.end());
      run.requests.insert(run.requests.begin(), earlier.requests.begin(), earlier.requests.end());
      run.kernel = earlier.kernel + " + " + run.kernel;
    }
    run.kernel += "  [" + code_origin() + "]";
    out.run = std::move(run);
    return out;
  }
};

}  // namespace

std::unique_ptr<LabSource> make_lab_05_source() { return std::make_unique<Lab05Source>(); }

}  // namespace cudalab::viewer
