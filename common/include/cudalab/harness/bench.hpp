// The benchmark loop every lab's `./lab bench NN` shares (GPU only): a
// result file for this run with the GPU's facts, the copy-bandwidth anchor
// measured first in the same run, kernel timing as the median of repeats
// with the L2 flushed before each, PyTorch's figures for the same job merged
// as anchors, each version checked through the lab's backend before it is
// timed, the tables printed on stdout, and the command line every bench
// program takes.
//
//   int main(int argc, char** argv) {
//     return cudalab::harness::bench_main(argc, argv, "lab01_bench", "01_broadcast",
//                                         [](cudalab::harness::BenchRun& run) { ... });
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cudalab/compare.hpp"
#include "cudalab/harness/observation.hpp"
#include "cudalab/results.hpp"

namespace cudalab::harness {

class BenchRun {
 public:
  // Needs a GPU (bench_main checks for one first); measures the copy
  // anchor (1 GiB device to device) before anything else.
  BenchRun(std::string tool, std::string lab, int argc, const char* const* argv, int repeats,
           std::string pytorch_json = "");
  ~BenchRun();
  BenchRun(const BenchRun&) = delete;
  BenchRun& operator=(const BenchRun&) = delete;

  ResultFile& result() { return result_; }
  int repeats() const { return repeats_; }
  // --ranks: how many GPUs a multi-GPU benchmark (lab 04) uses; 0 when not
  // given (the benchmark then takes every visible GPU).
  int ranks() const { return ranks_; }
  // The file --pytorch-json named ("" without one), for a lab that reads
  // more than the merge_pytorch* helpers do.
  const std::string& pytorch_json() const { return pytorch_json_; }
  // That file's JSON; nullopt when the run has none, and (with the note
  // "no <what>: <why>") when it is not JSON or is {"error": why}.
  std::optional<nlohmann::json> pytorch_results(const std::string& what);
  void set_ranks(int ranks) { ranks_ = ranks; }

  // Median milliseconds of repeats() runs of `work`, each after the L2 was
  // flushed (a buffer twice its size written), after one warm-up run.
  double median_ms_cold_l2(const std::function<void()>& work);

  // Adds a figure whose value the lab computed (lab 04's bus bandwidth, by
  // the student's arithmetic) and returns it as added, with its fraction of
  // `anchor` ("" for none).
  const Figure& add_figure(std::string name, std::string version, std::vector<std::int64_t> shape,
                           std::uint64_t bytes, double ms, double value, std::string unit,
                           const std::string& anchor = "");

  // Adds a bandwidth figure (GB/s from bytes and the time) and returns it
  // as added, with its fraction of `anchor` (default: the 1 GiB copy).
  const Figure& add_bandwidth(std::string name, std::string version,
                              std::vector<std::int64_t> shape, std::uint64_t bytes, double ms,
                              const std::string& anchor = "");

  // The anchor for a kernel that streams `bytes` in and `bytes` out: a
  // device-to-device copy of `bytes`, timed as the kernels are (L2 flushed
  // before each run, median), measured on first use; returns its name. A
  // small kernel is then compared with a copy of its own size, not with one
  // of 1 GiB (at 8 MiB a copy's fixed costs are a tenth of its time).
  std::string same_size_copy_anchor(std::uint64_t bytes);

  // Says in the result file (and on stdout) what this run could not measure.
  void add_note(const std::string& note);

  // Adds a throughput figure (TFLOP/s = flops / time) and returns it as
  // added, with its fraction of `anchor` when that anchor is in the result
  // (an anchor in TFLOP/s, e.g. cuBLAS on the same shape); `bytes` is what
  // the job must move at least (inputs read and output written once);
  // `errors`, when given, how far this run's output was from its reference.
  const Figure& add_throughput(std::string name, std::string version,
                               std::vector<std::int64_t> shape, std::uint64_t flops,
                               std::uint64_t bytes, double ms, const std::string& anchor = "",
                               std::optional<ErrorFigures> errors = std::nullopt);

  // Adds an anchor in TFLOP/s (flops / ms) timed in this run, e.g. cuBLAS
  // on the shape of a lab kernel; `source` says what ran. Returns its name.
  std::string add_throughput_anchor(std::string name, std::uint64_t flops, double ms,
                                    std::string source);

  // PyTorch's figure `version` on `shape` (merged from bench_pytorch.py) as
  // the anchor "pytorch:<version>": its name, or "" when the run has none.
  std::string pytorch_anchor(const std::string& version, const std::vector<std::int64_t>& shape);

  // A table of figures on stdout: print_header starts one (a title line,
  // then the headings: version, `shape_heading`, ms, `unit`, the fraction of
  // the figure's anchor and, with `with_errors`, its normwise error);
  // print_row prints a figure under it, shape as "4x16x4096x128".
  void print_header(const std::string& title, const std::string& shape_heading,
                    const std::string& unit, bool with_errors = false);
  void print_row(const Figure& figure) const;
  // The PyTorch figures (versions "torch_..."), under `title`, after the
  // lab's own; nothing when the run has none.
  void print_pytorch_rows(const std::string& title, const std::string& shape_heading,
                          const std::string& unit, bool with_errors = false);

  // Merges the throughput figures the lab's bench_pytorch.py wrote (figures
  // with "version" and "flops" besides shape, bytes, time_ms) as figures of
  // `name` in TFLOP/s, each with its own version. Does nothing when the run
  // has no PyTorch figures.
  void merge_pytorch_throughput(const std::string& name);

  // Merges the figures the lab's bench_pytorch.py wrote (--pytorch-json:
  // figures of shape, bytes, time_ms; torch_version; repeats) as version
  // `version` of figure `name`, and the largest one as anchor `anchor`
  // described by `job`. Does nothing when the run has no PyTorch figures.
  // `anchor_for`, when given, names each figure's anchor from its shape
  // (e.g. the same-size copy); otherwise the 1 GiB copy.
  void merge_pytorch(
      const std::string& name, const std::string& version, const std::string& anchor,
      const std::string& job,
      const std::function<std::string(const std::vector<std::int64_t>&)>& anchor_for = {});

  // Merges the figures the lab's bench_pytorch.py wrote that name their own
  // job and version ({"name", "version", "shape", "bytes", "time_ms"}: how
  // long something took, e.g. lab 03's three spins) as figures in ms whose
  // value is the time, without an anchor, and its "timelines" (as
  // pytorch_bench.timeline makes them). Does nothing when the run has no
  // PyTorch figures.
  void merge_pytorch_durations();

  // Merges the figures under `key` of the JSON bench_pytorch.py wrote
  // ({"figures": [...]} as above, or {"error": "..."}, e.g. a student's
  // PyTorch operator) as version `version` of figure `name`, each against
  // the anchor `anchor_for` names; an "error" becomes a note. Does nothing
  // when the run has no PyTorch figures or the key is absent.
  void merge_pytorch_section(
      const std::string& key, const std::string& name, const std::string& version,
      const std::function<std::string(const std::vector<std::int64_t>&)>& anchor_for = {});

 private:
  struct FlushBuffer;
  ResultFile result_;
  int repeats_;
  int ranks_ = 0;
  std::string pytorch_json_;
  std::unique_ptr<FlushBuffer> flush_;
  bool table_with_errors_ = false;
};

// Whether `version` may be timed: `check` runs it on a small awkward shape
// (`shape`, for the message) through the lab's backend as the tests call it
// and returns what is wrong, "" when nothing (what_is_wrong below). A wrong
// version, or one whose check throws, is reported on stdout and not timed.
bool passes_check(const std::string& version, const std::string& shape,
                  const std::function<std::string()>& check);

// What is wrong with one checked call: the error it failed with, elements
// written outside its output, or the comparison's summary (how many
// elements differ, the rule, the worst errors); "" when it ran and every
// element was within the tolerance.
std::string what_is_wrong(const Observation& call, const Comparison& result);

// main() of a lab's bench program: --out FILE (required), --pytorch-json
// FILE or --no-pytorch REASON, --repeats N, --ranks N; runs `body` and writes the
// result file. Returns the exit
// status (1 without a GPU, 2 for bad arguments or a failure).
int bench_main(int argc, char** argv, const std::string& tool, const std::string& lab,
               const std::function<void(BenchRun&)>& body);

}  // namespace cudalab::harness
