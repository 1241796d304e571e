// Where kernel runs come from: a lab's kernels run on the emulator with a
// shape and launch configuration the student picks in the viewer.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel_run.hpp"

namespace cudalab::viewer {

struct Version {
  std::string name;              // "lecture", "ex1 fixed index", ...
  std::string description;       // one line: what this version changes
  bool grid_from_viewer = true;  // false: the lab code picks its own grid
};

struct RunRequest {
  std::size_t version = 0;
  std::uint64_t rows = 0, cols = 0;  // the output is rows x cols
  // The launch configuration; with auto_grid the lab's own grid for the shape is used.
  bool auto_grid = true;
  Dim3 grid, block{256, 1, 1};
};

struct RunOutcome {
  std::optional<KernelRun> run;
  std::string error;   // what went wrong, as the emulator or the lab reported it
  double seconds = 0;  // wall time of the emulated run
};

class LabSource {
 public:
  virtual ~LabSource() = default;
  virtual std::string title() const = 0;  // "01 broadcast"
  // What code it runs: the student's (labs/) or the reference (solutions/).
  virtual std::string code_origin() const = 0;
  virtual std::vector<Version> versions() const = 0;
  // The version the coalescing panel compares with: the coalesced one.
  virtual std::size_t default_comparison() const = 0;
  virtual RunOutcome run(const RunRequest& request) const = 0;
};

// Every lab the viewer can show, in ladder order.
std::vector<std::unique_ptr<LabSource>> available_labs();

// Lab 01's index mappings computed directly (no emulator): the viewer's
// fallback where the lab harness is not built, and the unit tests' source.
std::unique_ptr<LabSource> make_lab01_model_source();

// Refuses requests nobody should emulate (empty shapes, > max_elements,
// zero-sized blocks, > 1024 threads per block) with a message naming the problem.
std::optional<std::string> validate(const RunRequest& request, std::uint64_t max_elements);

}  // namespace cudalab::viewer
