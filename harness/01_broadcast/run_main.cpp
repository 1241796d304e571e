// lab01: `./lab run 01`. Runs each exercise of the code it was built with
// (labs/ or solutions/) on a few inputs and prints, per exercise, whether the
// result is right (with the first mismatch), how often each element was
// written and how many 32-byte sectors each warp's stores touched (emulator),
// and the kernel time (GPU). Exit status 0 only when every exercise passes.
//
//   lab01 [--emu | --gpu] [--exercise N] [--json FILE]
//
// --json writes the emulator's trace of each exercise's traced run, for the
// viewer (./lab view 01).
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/compare.hpp"
#include "cudalab/random.hpp"
#include "reference.hpp"

namespace {

using lab01::harness::Backend;
using lab01::harness::Observation;
using lab01::harness::RunOptions;
using lab01::harness::Shape;

struct Arguments {
  enum class Where { kDefault, kEmulator, kGpu } where = Where::kDefault;
  int exercise = 0;  // 0: all
  std::string json_path;
};

// Parses the command line; CLI11 prints --help and one-line errors itself.
Arguments parse_arguments(CLI::App& app, int argc, char** argv) {
  Arguments arguments;
  bool emu = false, gpu = false;
  auto* on_emu =
      app.add_flag("--emu", emu, "run on the CPU emulator (default: the GPU when there is one)");
  app.add_flag("--gpu", gpu, "run on the GPU")->excludes(on_emu);
  app.add_option("--exercise", arguments.exercise, "run exercise N only")->check(CLI::Range(1, 5));
  app.add_option("--json", arguments.json_path, "write the emulator's traces for the viewer");
  app.parse(argc, argv);
  if (emu) arguments.where = Arguments::Where::kEmulator;
  if (gpu) arguments.where = Arguments::Where::kGpu;
  return arguments;
}

// One exercise's printed report: passes unless a check fails.
class ExerciseReport {
 public:
  ExerciseReport(int number, std::string title) {
    std::cout << "\nExercise " << number << ": " << title << "\n";
  }
  void fail(const std::string& what) {
    passed_ = false;
    std::cout << "  FAIL  " << indent(what) << "\n";
  }
  void pass(const std::string& what) { std::cout << "  ok    " << what << "\n"; }
  void note(const std::string& what) { std::cout << "        " << indent(what) << "\n"; }
  bool passed() const { return passed_; }

 private:
  static std::string indent(const std::string& text) {
    std::string out;
    for (char c : text) out += c == '\n' ? std::string("\n        ") : std::string(1, c);
    while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
    return out;
  }
  bool passed_ = true;
};

std::string fixed(double value, int digits = 2) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << value;
  return out.str();
}

class Runner {
 public:
  Runner(Backend& backend, cudalab::Random& rng) : backend_(backend), rng_(rng) {}

  nlohmann::json traces = nlohmann::json::array();

  // Checks one in-place run of a (x, y) += b (y) made by `call`.
  using InPlaceCall =
      std::function<Observation(std::vector<float>&, const std::vector<float>&, const RunOptions&)>;
  void in_place(ExerciseReport& report, const std::string& what, int x, int y, bool trace,
                const InPlaceCall& call) {
    const auto size = static_cast<std::size_t>(x) * static_cast<std::size_t>(y);
    std::vector<float> a = rng_.uniform(size, -1.0f, 1.0f);
    const std::vector<float> b = lab01::harness::nonzero_values(rng_, static_cast<std::size_t>(y));
    const std::vector<float> expected = lab01::harness::broadcast_sum_reference(a, b, x, y);
    const Observation run = call(a, b, options(trace));
    const bool correct =
        !run.failed() && check_values(report, what, a, expected,
                                      {static_cast<std::size_t>(x), static_cast<std::size_t>(y)});
    finish(report, what, run, correct, y, 3.0 * 4.0 * static_cast<double>(size));
  }

  void broadcast_add(ExerciseReport& report, const Shape& a_shape, const Shape& b_shape, bool half,
                     bool trace) {
    using lab01::harness::to_string;
    const std::string what =
        std::string(half ? "fp16 " : "fp32 ") + to_string(a_shape) + " + " + to_string(b_shape);
    const Shape out_shape = lab01::harness::broadcast_result_shape(a_shape, b_shape);
    const std::vector<std::size_t> dims(out_shape.begin(), out_shape.end());
    const std::size_t a_count = lab01::harness::element_count(a_shape);
    const std::size_t b_count = lab01::harness::element_count(b_shape);
    const std::vector<float> a = rng_.uniform(a_count, -100.0f, 100.0f);
    const std::vector<float> b = lab01::harness::nonzero_values(rng_, b_count);
    Observation run;
    bool correct = false;
    if (half) {
      const auto a_bits = lab01::harness::to_half_bits(a);
      const auto b_bits = lab01::harness::to_half_bits(b);
      const auto expected = lab01::harness::broadcast_add_reference(
          a_bits, a_shape, b_bits, b_shape, lab01::harness::add_half_bits);
      std::vector<std::uint16_t> out(expected.size(), 0x7e00);
      run = backend_.broadcast_add_half(out, a_bits, a_shape, b_bits, b_shape, 256, options(trace));
      correct =
          !run.failed() && check_values(report, what, as_floats(out), as_floats(expected), dims);
    } else {
      const auto expected = lab01::harness::broadcast_add_reference(
          a, a_shape, b, b_shape, [](float p, float q) { return p + q; });
      std::vector<float> out(expected.size(), std::numeric_limits<float>::quiet_NaN());
      run = backend_.broadcast_add(out, a, a_shape, b, b_shape, 256, options(trace));
      correct = !run.failed() && check_values(report, what, out, expected, dims);
    }
    const double element_bytes = half ? 2.0 : 4.0;
    finish(report, what, run, correct, 0,
           element_bytes * static_cast<double>(a_count + b_count + dims_count(dims)));
  }

  void incompatible(ExerciseReport& report, const Shape& a_shape, const Shape& b_shape) {
    using lab01::harness::to_string;
    const std::string what = to_string(a_shape) + " + " + to_string(b_shape);
    std::vector<float> a(lab01::harness::element_count(a_shape), 1.0f);
    std::vector<float> b(lab01::harness::element_count(b_shape), 2.0f);
    const std::vector<float> poison(16, -7.0f);
    std::vector<float> out = poison;
    const Observation run = backend_.broadcast_add(out, a, a_shape, b, b_shape, 256, options(true));
    if (run.error_type != "std::invalid_argument") {
      report.fail(what + ": must throw std::invalid_argument, " +
                  (run.failed() ? "threw " + run.error_type + ": " + run.error
                                : std::string("returned normally")));
    } else if (out != poison || run.guard_elements_changed != 0 || run.launches.value_or(0) != 0) {
      report.fail(what + ": threw, but only after launching a kernel or writing the output");
    } else {
      report.pass(what + ": " + run.error);
    }
  }

 private:
  RunOptions options(bool trace) const {
    RunOptions options;
    options.trace = trace && backend_.is_emulator();
    options.export_json = options.trace;
    options.time = true;
    return options;
  }

  static std::size_t dims_count(const std::vector<std::size_t>& dims) {
    std::size_t count = 1;
    for (std::size_t d : dims) count *= d;
    return count;
  }

  static std::vector<float> as_floats(const std::vector<std::uint16_t>& bits) {
    std::vector<float> values(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) {
      values[i] = lab01::harness::half_bits_to_float(bits[i]);
    }
    return values;
  }

  static bool check_values(ExerciseReport& report, const std::string& what,
                           const std::vector<float>& actual, const std::vector<float>& expected,
                           const std::vector<std::size_t>& dims) {
    cudalab::CompareOptions compare_options;
    compare_options.shape = dims;
    compare_options.max_reported = 3;
    const auto comparison = cudalab::compare(actual, expected, {}, compare_options);
    if (!comparison.ok) report.fail(what + ": wrong result\n" + comparison.to_string());
    return comparison.ok;
  }

  // Prints what the run observed and records its trace for --json.
  void finish(ExerciseReport& report, const std::string& what, const Observation& run, bool correct,
              int y, double bytes_moved) {
    if (run.failed()) report.fail(what + ": " + run.error_type + ": " + run.error);
    if (run.guard_elements_changed != 0) {
      report.fail(what + ": " + std::to_string(run.guard_elements_changed) +
                  " elements just outside the output changed (out-of-bounds writes)");
    }
    std::string line = what + (correct ? ": correct" : "");
    if (run.kernel_ms && run.kernel_ms_is_gpu_time && *run.kernel_ms > 0) {
      line += ", GPU time " + fixed(*run.kernel_ms, 3) + " ms (" +
              fixed(bytes_moved / *run.kernel_ms / 1e6, 0) + " GB/s)";
    }
    if (correct && run.guard_elements_changed == 0) report.pass(line);
    if (run.coverage) {
      const auto& c = *run.coverage;
      const std::string counts = "coverage: " + std::to_string(c.unwritten) + " written 0 times, " +
                                 std::to_string(c.written_once) + " once, " +
                                 std::to_string(c.written_more) + " 2+ times";
      const std::string problems = lab01::harness::coverage_problems(c, y);
      if (problems.empty()) {
        report.note(counts);
      } else {
        report.fail(counts + "\n" + problems);
      }
    }
    if (run.stores && run.stores->requests > 0) {
      report.note("stores: " + fixed(run.stores->sectors_per_request()) +
                  " sectors per warp request (max " + std::to_string(run.stores->max_sectors) +
                  "), efficiency " + fixed(100 * run.stores->efficiency, 0) +
                  "% (32 floats need 4 sectors, 32 float4s 16)");
    }
    if (run.write_widths && (run.write_widths->vector_writes + run.write_widths->misaligned) > 0) {
      report.note("writes: " + std::to_string(run.write_widths->vector_writes) + " of 16 bytes, " +
                  std::to_string(run.write_widths->scalar_writes) + " of 4 bytes, " +
                  std::to_string(run.write_widths->misaligned) + " misaligned");
    }
    if (run.report_count > 0) {
      report.note(std::to_string(run.report_count) + " emulator reports; first:\n" +
                  run.reports.front());
    }
    if (!run.trace_json.empty()) {
      traces.push_back({{"case", what}, {"trace", nlohmann::json::parse(run.trace_json)}});
    }
  }

  Backend& backend_;
  cudalab::Random& rng_;
};

bool run_exercise(int number, Backend& backend, Runner& runner) {
  using lab01::harness::lecture_grid;
  const bool gpu = !backend.is_emulator();
  // Inputs for a timed run on the GPU: 4096 x 8192 floats (128 MiB).
  const int big_x = gpu ? 4096 : 1031;
  const int big_y = gpu ? 8192 : 2039;
  switch (number) {
    case 1: {
      ExerciseReport report(1, "the global thread index (lecture kernel, 2-D grid)");
      const auto small = lecture_grid(37 * 45, 64, 4);
      runner.in_place(report, "a (37, 45), grid (4, 7), block 64", 37, 45, true,
                      [&](auto& a, const auto& b, const auto& o) {
                        return backend.broadcast_sum_lecture(a, b, 37, 45, small, o);
                      });
      const auto big = lecture_grid(std::size_t(big_x) * big_y, 32);
      runner.in_place(report,
                      "a (" + std::to_string(big_x) + ", " + std::to_string(big_y) + "), grid (" +
                          std::to_string(big.grid_x) + ", " + std::to_string(big.grid_y) +
                          "), block 32",
                      big_x, big_y, false, [&](auto& a, const auto& b, const auto& o) {
                        return backend.broadcast_sum_lecture(a, b, big_x, big_y, big, o);
                      });
      return report.passed();
    }
    case 2: {
      ExerciseReport report(2, "a launch configuration for any size and block size");
      const int cases[][3] = {{127, 129, 96}, {7, 10007, 1}, {0, 7, 128}, {big_x, big_y, 128}};
      for (const auto& c : cases) {
        const std::string what = "a (" + std::to_string(c[0]) + ", " + std::to_string(c[1]) +
                                 "), block size " + std::to_string(c[2]);
        runner.in_place(report, what, c[0], c[1], c[0] * c[1] < 20000,
                        [&](auto& a, const auto& b, const auto& o) {
                          return backend.broadcast_sum(a, b, c[0], c[1], c[2], o);
                        });
      }
      return report.passed();
    }
    case 3: {
      ExerciseReport report(3, "coalesced stores");
      runner.in_place(report, "a (64, 96), block 128", 64, 96, true,
                      [&](auto& a, const auto& b, const auto& o) {
                        return backend.broadcast_sum_coalesced(a, b, 64, 96, 128, o);
                      });
      runner.in_place(report,
                      "a (" + std::to_string(big_x) + ", " + std::to_string(big_y) + "), block 256",
                      big_x, big_y, false, [&](auto& a, const auto& b, const auto& o) {
                        return backend.broadcast_sum_coalesced(a, b, big_x, big_y, 256, o);
                      });
      return report.passed();
    }
    case 4: {
      ExerciseReport report(4, "broadcasting add, up to 4-D, fp32 and fp16");
      runner.broadcast_add(report, {2, 3, 5, 7}, {3, 1, 7}, false, true);
      runner.broadcast_add(report, {31, 1}, {1, 257}, true, true);
      runner.broadcast_add(report, {big_x, big_y}, {big_y}, false, false);
      runner.incompatible(report, {3, 4}, {5});
      return report.passed();
    }
    case 5: {
      ExerciseReport report(5, "16-byte (float4) accesses, tails and alignment");
      for (int offset = 0; offset < 4; ++offset) {
        const std::string what =
            "a (33, 1029) starting " + std::to_string(offset) + " floats after a 16-byte boundary";
        runner.in_place(report, what, 33, 1029, true, [&](auto& a, const auto& b, const auto& o) {
          return backend.broadcast_sum_vec4(a, b, 33, 1029, offset, 256, o);
        });
      }
      runner.in_place(report, "a (" + std::to_string(big_x) + ", " + std::to_string(big_y) + ")",
                      big_x, big_y, false, [&](auto& a, const auto& b, const auto& o) {
                        return backend.broadcast_sum_vec4(a, b, big_x, big_y, 0, 256, o);
                      });
      return report.passed();
    }
  }
  return false;
}

int run(const Arguments& arguments) {
  std::unique_ptr<Backend> backend;
  if (arguments.where != Arguments::Where::kEmulator) {
    std::string why_not;
    backend = lab01::harness::make_gpu_backend(&why_not);
    if (!backend && arguments.where == Arguments::Where::kGpu) {
      std::cerr << "lab01: --gpu: " << why_not << "\n";
      return 2;
    }
  }
  if (!backend) backend = lab01::harness::make_emulator_backend();

  cudalab::Random rng = cudalab::Random::fresh();
  std::cout << "lab 01 broadcast on the " << backend->name() << " (" << rng.seed_note() << ")\n";
  Runner runner(*backend, rng);
  int failed = 0;
  for (int number = 1; number <= 5; ++number) {
    if (arguments.exercise != 0 && arguments.exercise != number) continue;
    if (!run_exercise(number, *backend, runner)) ++failed;
  }

  if (!arguments.json_path.empty()) {
    const nlohmann::json document = {
        {"lab", "01_broadcast"}, {"backend", backend->name()}, {"runs", runner.traces}};
    std::ofstream file(arguments.json_path);
    file << document.dump() << "\n";
    if (!file) {
      std::cerr << "lab01: could not write " << arguments.json_path << "\n";
      return 2;
    }
    std::cout << "\ntraces written to " << arguments.json_path
              << (runner.traces.empty() ? " (none: traces come from the emulator)" : "") << "\n";
  }

  std::cout << "\n"
            << (failed == 0 ? std::string("all exercises pass")
                            : std::to_string(failed) + " exercise(s) fail")
            << "\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"lab01: run each exercise of lab 01 and say what is right and what is wrong"};
  Arguments arguments;
  try {
    arguments = parse_arguments(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help, or a bad argument
  }
  try {
    return run(arguments);
  } catch (const std::exception& e) {
    std::cerr << "lab01: " << e.what() << "\n";
    return 2;
  }
}
