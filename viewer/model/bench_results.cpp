#include "bench_results.hpp"

#include <algorithm>

#include "cudalab/results.hpp"

namespace cudalab::viewer {
namespace {

std::string problem_of(const Figure& f) {
  std::string shape;
  for (std::int64_t d : f.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  return f.name + " " + shape;
}

bool is_pytorch(const std::string& name) { return name.find("pytorch") != std::string::npos; }

// Which anchor a figure is a fraction of: version 1 files know only the copy.
void fraction_of(const Figure& f, Measurement& m) {
  if (!f.fraction_of_copy) return;
  m.fraction = *f.fraction_of_copy;
  m.fraction_of = kCopyAnchorName;
}

}  // namespace

std::vector<std::string> problems(const BenchResult& result) {
  std::vector<std::string> out;
  for (const Measurement& m : result.versions)
    if (std::find(out.begin(), out.end(), m.problem) == out.end()) out.push_back(m.problem);
  return out;
}

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
  for (const Anchor& a : file.anchors) r.anchors.push_back({a.name, a.value, a.unit, ""});
  for (const Figure& f : file.figures) {
    // PyTorch doing the same job on one problem is an anchor of that problem.
    if (is_pytorch(f.version) || is_pytorch(f.name)) {
      r.anchors.push_back({"pytorch:" + f.name, f.value, f.unit, problem_of(f)});
      continue;
    }
    Measurement m{f.version, problem_of(f), f.value, f.unit, f.time_ms, std::nullopt, ""};
    fraction_of(f, m);
    r.versions.push_back(m);
  }
  if (r.versions.empty()) return path + ": no kernel figures in the file";
  return r;
}

}  // namespace cudalab::viewer
