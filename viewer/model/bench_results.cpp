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

void add_error_point(BenchResult& r, const Figure& f) {
  if (!r.error_vs_k) {
    r.error_vs_k.emplace();
    std::string shape;
    for (std::size_t d = 0; d + 1 < f.shape.size(); ++d) shape += std::to_string(f.shape[d]) + "x";
    r.error_vs_k->title = "normwise relative error vs K (m x n = " +
                          (shape.empty() ? "?" : shape.substr(0, shape.size() - 1)) + ", " + r.gpu +
                          ")";
    r.error_vs_k->x_label = "K";
  }
  const double k = f.shape.empty() ? 0.0 : static_cast<double>(f.shape.back());
  const bool speed_or_time = f.unit == "ms" || (f.unit.size() > 2 && f.unit.ends_with("/s"));
  if (!(f.errors && f.errors->normwise) && speed_or_time) return;  // no error in the figure
  const double error = f.errors && f.errors->normwise ? *f.errors->normwise : f.value;
  auto& series = r.error_vs_k->series;
  auto it = std::find_if(series.begin(), series.end(),
                         [&](const Series& s) { return s.name == f.version; });
  if (it == series.end()) it = series.insert(series.end(), Series{f.version, {}});
  it->points.push_back({k, error});
  std::sort(it->points.begin(), it->points.end(),
            [](PlotPoint a, PlotPoint b) { return a.x < b.x; });
}

// Lab 04's bench: busbw_all_reduce etc. of shape {ranks, bytes}.
void add_busbw_point(BenchResult& r, const Figure& f) {
  if (f.shape.size() < 2) return;
  if (!r.busbw_vs_size) {
    r.busbw_vs_size.emplace();
    r.busbw_vs_size->title =
        "bus bandwidth vs message size, " + std::to_string(f.shape[0]) + " ranks (" + r.gpu + ")";
    r.busbw_vs_size->x_label = "bytes";
    r.busbw_vs_size->y_label = "busbw (" + f.unit + ")";
    r.busbw_vs_size->x_log_base = 2;
  }
  const std::string name = f.name.substr(std::string(kBusbwFigurePrefix).size()) + " " + f.version;
  auto& series = r.busbw_vs_size->series;
  auto it =
      std::find_if(series.begin(), series.end(), [&](const Series& s) { return s.name == name; });
  if (it == series.end()) it = series.insert(series.end(), Series{name, {}});
  it->points.push_back({static_cast<double>(f.shape[1]), f.value});
  std::sort(it->points.begin(), it->points.end(),
            [](PlotPoint a, PlotPoint b) { return a.x < b.x; });
}

}  // namespace

const ErrorPlot* file_plot(const BenchResult& result) {
  if (result.error_vs_k) return &*result.error_vs_k;
  return result.busbw_vs_size ? &*result.busbw_vs_size : nullptr;
}

Timeline timeline_of(const cudalab::Timeline& from) {
  Timeline to;
  to.title = from.name;
  to.unit = "ms";
  for (const cudalab::TimelineRow& row : from.rows) {
    TimelineRow& r = to.rows.emplace_back(TimelineRow{row.name, {}});
    for (const cudalab::Span& s : row.spans)
      r.spans.push_back({s.name, s.start_ms, s.end_ms, s.kind, s.id, s.after, s.race});
  }
  return to;
}

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
  for (const Anchor& a : file.anchors) {
    const auto at = a.name.find('@');  // NAME@SHAPE: measured on that shape
    r.anchors.push_back(
        {a.name, a.value, a.unit, at == std::string::npos ? "" : a.name.substr(at + 1)});
  }
  for (const Figure& f : file.figures) {
    if (f.name == kErrorVsKFigure) {
      add_error_point(r, f);
      continue;
    }
    // PyTorch doing the same job on one problem is an anchor of that problem,
    // named by what PyTorch ran (lab 01's pytorch_add_: "PyTorch add_").
    if (is_pytorch(f.version) || is_pytorch(f.name)) {
      r.anchors.push_back({"pytorch:" + f.version, f.value, f.unit, problem_of(f)});
      continue;
    }
    if (f.name.starts_with(kBusbwFigurePrefix)) add_busbw_point(r, f);
    Measurement m{f.version, problem_of(f), f.value, f.unit, f.time_ms, std::nullopt, ""};
    if (f.fraction_of) {
      m.fraction = f.fraction_of->value;
      m.fraction_of = f.fraction_of->anchor;
    }
    r.versions.push_back(m);
  }
  for (const cudalab::Timeline& t : file.timelines) r.timelines.push_back(timeline_of(t));
  if (r.versions.empty() && r.timelines.empty() && !r.error_vs_k)
    return path + ": neither kernel figures, timelines nor error_vs_k figures in the file";
  return r;
}

}  // namespace cudalab::viewer
