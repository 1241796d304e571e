// A `./lab bench` result file as the viewer keeps it: each kernel version's
// achieved bandwidth per problem, next to the copy bandwidth and PyTorch
// measured in the same run (bars_model.hpp turns a problem into a chart).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cudalab::viewer {

// One measurement of one version on one problem.
struct Measurement {
  std::string version;  // e.g. "v3_coalesced"
  std::string problem;  // job and shape, e.g. "broadcast_sum 16384x16384"
  double time_ms = 0;
  double bandwidth_gbps = 0;
};

// A bench result file as the viewer uses it.
struct BenchResult {
  std::string source;  // the file it came from
  std::string lab, gpu, driver, date;
  std::vector<Measurement> versions;
  std::optional<double> copy_gbps;  // device-to-device copy, same run
  // PyTorch doing the same job: per problem where measured per shape, else
  // one figure for the whole run.
  std::vector<Measurement> pytorch;
  std::optional<double> pytorch_gbps;
};

// The problems present, in the order they first appear.
std::vector<std::string> problems(const BenchResult& result);

}  // namespace cudalab::viewer
