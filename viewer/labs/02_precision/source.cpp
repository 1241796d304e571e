// Lab 02 in the viewer. Two views need no run: the bits of one value in each
// float format (cudalab::numerics) and the lane/register layout of one
// mma.sync (cudalab/numerics/mma_layout.hpp); every run fills both. The error
// view runs the lab's code through its harness (harness/02_precision/
// backend.hpp) on the emulator: the GEMM of each mode (exercise 2), the fp64
// reference and the normwise error (exercise 3), or the student's
// tensor-core GEMMs (exercise 5), for K over powers of two. The TFLOP/s bars
// come from a `./lab bench 02` result file.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <random>

#include "cudalab/emu/recorder.hpp"
#include "cudalab/numerics.hpp"
#include "harness/02_precision/backend.hpp"
#include "model/lab_source.hpp"

namespace cudalab::viewer {
namespace {

namespace harness = ::lab02::harness;
using ::lab02::GemmMode;

enum Lab02Version : std::size_t { kFormats, kModes, kTensorCoreGemm };
enum Lab02Parameter : std::size_t { kValueBits, kMmaK, kM, kKMin, kKMax };

constexpr std::int64_t kLargestK = 65536;
// The student's tensor-core GEMMs on the emulator (about 5,000 mma.sync per
// second and core) stop here whatever k_max says; the GEMM modes run the
// whole range (256 .. 65536 at m = 8 took 2 s with the reference code).
constexpr std::int64_t kLargestTensorCoreK = 4096;

// The K of the error plot: k_min, 2 k_min, ... up to k_max.
std::vector<int> k_values(std::int64_t k_min, std::int64_t k_max) {
  std::vector<int> ks;
  for (std::int64_t k = k_min; k <= k_max; k *= 2) ks.push_back(static_cast<int>(k));
  return ks;
}

// Uniform in [0, 1): positive data, so rounding errors do not cancel and the
// growth with K shows (the lab's exercise 3 uses the same kind of data).
std::vector<float> uniform(std::size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

// What one error measurement needs: inputs and the fp64 product.
struct Problem {
  int m, n, k;
  std::vector<float> a, b;
  std::vector<double> exact;
};

class Lab02Source final : public LabSource {
 public:
  std::string title() const override { return "02 precision"; }
  std::string code_origin() const override {
    return std::string(CUDALAB_VIEWER_GRADED) == "labs" ? "labs/02_precision (your code)"
                                                        : "solutions/02_precision (reference)";
  }
  std::vector<Version> versions() const override {
    return {
        {"formats and fragments",
         "the bits of one value in fp32, TF32, bf16 and fp16, and the fragment layout of one "
         "mma.sync (no GEMM runs)",
         false,
         {View::kBitLayout, View::kFragments}},
        {"error vs K: GEMM modes",
         "ex2 + ex3: your gemm_in_mode in each mode against your gemm_fp64, as "
         "normwise_relative_error says, for K = k_min, 2 k_min, ... k_max",
         false,
         {View::kBitLayout, View::kFragments, View::kErrors}},
        {"error vs K: your tc_gemm",
         "ex5: your tensor-core GEMMs (fp16, TF32) against the fp64 product, next to the GEMM "
         "modes of the same inputs, for K up to 4096 (the emulator runs mma.sync slowly)",
         false,
         {View::kBitLayout, View::kFragments, View::kErrors}},
    };
  }
  std::vector<View> views() const override { return views_in_descriptor("02"); }
  std::vector<Parameter> parameters() const override {
    return {{"value_bits", "value (fp32 bits)", 0, 0xffffffffLL, 0x3f801000LL},
            {"mma_k", "mma k (16: fp16/bf16, 8: tf32)", 8, 16, 16},
            {"m", "m = n (error vs K)", 1, 64, 8},
            {"k_min", "k_min", 1, kLargestK, 256},
            {"k_max", "k_max", 1, kLargestK, kLargestK}};
  }
  bool has_launch_config() const override { return false; }
  std::string note(View view) const override {
    switch (view) {
      case View::kBitLayout:
        return "Red cells: the input's low mantissa bits the format cannot hold; rounding "
               "decides from them whether the kept bits go up by one step. A tie (exactly half "
               "a step) rounds to the even neighbour in nearest-even, away from zero in "
               "ties-away, and toward zero always drops. Type a value above, or set the "
               "value_bits parameter.";
      case View::kFragments:
        return "Each cell is one matrix element, coloured by the lane that holds it (hue: the "
               "group lane/4, shade: lane%4) and labelled with the lane and its register. "
               "Hover or click a cell to pick out everything its lane holds. All 32 lanes "
               "must take part: each holds a share of A, B and C.";
      case View::kErrors:
        return "Normwise relative error ||C - exact||_F / ||exact||_F against the fp64 product. "
               "Accumulating in fp32 keeps the error near the input rounding (u_in + K u_fp32); "
               "accumulating in fp16 lets it grow with K (about K u_fp16).";
      case View::kBars:
        return "TFLOP/s = 2 m n k / time. Anchors: cuBLAS in the same run; tc_gemm bars show "
               "their fraction of the cuBLAS mode of their input type.";
      default:
        return {};
    }
  }

  RunOutcome run(const RunRequest& request) const override {
    if (auto problem = refuse(request)) return RunOutcome::failure(*problem);
    const auto start = std::chrono::steady_clock::now();
    RunOutcome out;
    const auto bits = static_cast<std::uint32_t>(request.values[kValueBits]);
    out.bits = bit_layout(numerics::float_from_bits(bits));
    out.fragments =
        fragment_layout(request.values[kMmaK] == 8 ? MmaShape::kM16N8K8Tf32 : MmaShape::kM16N8K16);
    if (request.version != kFormats) errors_vs_k(request, out);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }

 private:
  std::optional<std::string> refuse(const RunRequest& request) const {
    if (auto problem = validate(*this, request)) return problem;
    if (request.values[kMmaK] != 8 && request.values[kMmaK] != 16)
      return "mma_k is 16 (m16n8k16, fp16/bf16) or 8 (m16n8k8, tf32), not " +
             std::to_string(request.values[kMmaK]);
    if (request.values[kKMin] > request.values[kKMax])
      return "k_min (" + std::to_string(request.values[kKMin]) + ") is above k_max (" +
             std::to_string(request.values[kKMax]) + ")";
    return std::nullopt;
  }

  // Error vs K is the one slow run; the same request again (a value typed
  // into the bit layout re-runs) reuses the last plot.
  void errors_vs_k(const RunRequest& request, RunOutcome& out) const {
    const std::vector<std::int64_t> key = {static_cast<std::int64_t>(request.version),
                                           request.values[kM], request.values[kKMin],
                                           request.values[kKMax]};
    {
      std::lock_guard<std::mutex> lock(cache_mutex_);
      if (cached_key_ == key) {
        out.errors = cached_plot_;
        out.error = cached_error_;
        if (!cached_unfinished_.empty()) out.unfinished[View::kErrors] = cached_unfinished_;
        return;
      }
    }
    std::string unfinished;
    try {
      measure_errors(request, out, unfinished);
    } catch (const std::exception& e) {  // a skeleton's gemm_fp64 throws
      out.errors.reset();
      out.error = e.what();
      unfinished = not_done_yet(*this, 3, e.what());
    }
    if (!unfinished.empty()) out.unfinished[View::kErrors] = unfinished;
    std::lock_guard<std::mutex> lock(cache_mutex_);
    cached_key_ = key;
    cached_plot_ = out.errors;
    cached_error_ = out.error;
    cached_unfinished_ = unfinished;
  }

  // The plot, or what the lab code must do first: no point of a series
  // that needs an exercise (every call failed: a skeleton's TODO throws).
  void measure_errors(const RunRequest& request, RunOutcome& out, std::string& unfinished) const {
    emu::Options quiet = emu::options();
    quiet.print_reports = false;  // shown in the window instead
    emu::ScopedOptions scoped(quiet);

    const int m = static_cast<int>(request.values[kM]);
    ErrorPlot plot;
    plot.x_label = "K";
    plot.y_label = "normwise relative error";
    plot.title = "||C - exact|| / ||exact|| of C = A B, m = n = " + std::to_string(m) +
                 ", A and B uniform in [0, 1), on the emulator  [" + code_origin() + "]";
    std::string problems;
    auto backend = harness::make_emulator_backend();
    std::mt19937 rng(2);
    std::int64_t k_max = request.values[kKMax];
    if (request.version == kTensorCoreGemm && k_max > kLargestTensorCoreK) {
      k_max = std::max(request.values[kKMin], kLargestTensorCoreK);
      plot.title += " (K up to " + std::to_string(k_max) + " for tc_gemm on the emulator)";
    }
    for (const int k : k_values(request.values[kKMin], k_max)) {
      Problem p{m, m, k, uniform(std::size_t(m) * k, rng), uniform(std::size_t(k) * m, rng), {}};
      p.exact = backend->call(harness::entry::gemm_fp64, p.a, p.b, m, m, k);
      for (const GemmMode mode : ::lab02::all_gemm_modes) {
        if (request.version == kTensorCoreGemm && mode != GemmMode::tf32 &&
            mode != GemmMode::fp16_fp32_accumulate)
          continue;
        std::vector<float> c(std::size_t(m) * m, NAN);
        const auto seen = backend->gemm_in_mode(mode, m, m, k, p.a, p.b, c);
        add_point(plot, "cuBLAS " + ::lab02::to_string(mode), p, seen, c, *backend, problems);
      }
      if (request.version == kTensorCoreGemm) tensor_core_points(plot, p, *backend, problems);
    }
    out.error = problems;
    auto empty = [&](const std::string& prefix) {
      return std::none_of(plot.series.begin(), plot.series.end(), [&](const Series& s) {
        return s.name.rfind(prefix, 0) == 0 && !s.points.empty();
      });
    };
    if (empty("cuBLAS ")) {  // exercise 2 (gemm_in_mode) or 3 (the error) not done
      unfinished = not_done_yet(*this, 2, first_exercise_problem(problems));
    } else if (request.version == kTensorCoreGemm && empty("your tc_gemm")) {
      unfinished = not_done_yet(*this, 5, first_exercise_problem(problems));
    }
    if (!empty("")) out.errors = plot;
  }

  // From the first problem line, what a skeleton's exception said
  // ("exercise 2: blas_mode(fp32) is not written yet"), else the line.
  static std::string first_exercise_problem(const std::string& problems) {
    const std::string line = problems.substr(0, problems.find('\n'));
    const auto at = line.find("exercise ");
    if (at != std::string::npos) return line.substr(at);
    return line.empty() ? "no point could be measured" : line;
  }

  static void tensor_core_points(ErrorPlot& plot, const Problem& p, harness::Backend& backend,
                                 std::string& problems) {
    std::vector<std::uint16_t> a16(p.a.size()), b16(p.b.size());
    for (std::size_t i = 0; i < p.a.size(); ++i) a16[i] = numerics::fp32_to_fp16_bits(p.a[i]);
    for (std::size_t i = 0; i < p.b.size(); ++i) b16[i] = numerics::fp32_to_fp16_bits(p.b[i]);
    std::vector<float> c(std::size_t(p.m) * p.n, NAN);
    auto seen = backend.call(harness::entry::tc_gemm_fp16, a16, b16, c, p.m, p.n, p.k);
    add_point(plot, "your tc_gemm_fp16", p, seen, c, backend, problems);
    std::fill(c.begin(), c.end(), NAN);
    seen = backend.call(harness::entry::tc_gemm_tf32, p.a, p.b, c, p.m, p.n, p.k);
    add_point(plot, "your tc_gemm_tf32", p, seen, c, backend, problems);
  }

  // One point of series `name`; a failed call or a non-finite error is named
  // in `problems` instead (a log axis has no place for it).
  static void add_point(ErrorPlot& plot, const std::string& name, const Problem& p,
                        const harness::Observation& seen, const std::vector<float>& c,
                        harness::Backend& backend, std::string& problems) {
    auto series = std::find_if(plot.series.begin(), plot.series.end(),
                               [&](const Series& s) { return s.name == name; });
    if (series == plot.series.end()) series = plot.series.insert(plot.series.end(), {name, {}});
    const std::string where = name + " at K = " + std::to_string(p.k) + ": ";
    if (seen.failed()) {
      add_problem(problems, where + seen.error_type + ": " + seen.error);
      return;
    }
    if (!seen.reports.empty()) add_problem(problems, where + seen.reports.front());
    const double error = backend.call(harness::entry::normwise_relative_error, c, p.exact);
    if (!std::isfinite(error)) {
      add_problem(problems,
                  where + "the error is " + format_value(error) + " (unwritten elements?)");
      return;
    }
    series->points.push_back({static_cast<double>(p.k), error});
  }

  // The first few problems; later ones are left out (one cause usually repeats at every K).
  static void add_problem(std::string& problems, const std::string& line) {
    constexpr std::size_t kShown = 4;
    const auto lines = static_cast<std::size_t>(std::count(problems.begin(), problems.end(), '\n'));
    if (lines < kShown) problems += line + "\n";
  }

  mutable std::mutex cache_mutex_;
  mutable std::vector<std::int64_t> cached_key_;
  mutable std::optional<ErrorPlot> cached_plot_;
  mutable std::string cached_error_;
  mutable std::string cached_unfinished_;
};

}  // namespace

std::unique_ptr<LabSource> make_lab_02_source() { return std::make_unique<Lab02Source>(); }

}  // namespace cudalab::viewer
