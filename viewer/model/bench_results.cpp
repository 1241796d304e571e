#include "bench_results.hpp"

#include "cudalab/results.hpp"

namespace cudalab::viewer {
namespace {

std::string problem_of(const Figure& f) {
  std::string shape;
  for (std::int64_t d : f.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  return f.name + " " + shape;
}

bool is_pytorch(const std::string& name) { return name.find("pytorch") != std::string::npos; }

}  // namespace

std::variant<BenchResult, std::string> load_bench_result(const std::string& path) {
  ResultFile file;
  try {
    file = read_result(path);  // names the file and the problem
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
  BenchResult r;
  r.source = path;
  r.lab = file.lab;
  r.date = file.date;
  if (file.gpu) {
    r.gpu = file.gpu->name;
    r.driver = cuda_version_string(file.gpu->driver_version);
  } else {
    r.gpu = "no GPU";
  }
  for (const Anchor& a : file.anchors) {
    if (a.unit != "GB/s") continue;
    if (a.name == kCopyAnchorName)
      r.copy_gbps = a.value;
    else if (is_pytorch(a.name))
      r.pytorch_gbps = a.value;
  }
  for (const Figure& f : file.figures) {
    if (f.unit != "GB/s") continue;  // the timing panel compares bandwidths
    Measurement m{f.version, problem_of(f), f.time_ms, f.value};
    (is_pytorch(f.version) || is_pytorch(f.name) ? r.pytorch : r.versions).push_back(m);
  }
  if (r.versions.empty()) return path + ": no kernel bandwidth figures (GB/s) in the file";
  return r;
}

}  // namespace cudalab::viewer
