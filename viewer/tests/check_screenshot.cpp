// Checks a screenshot of one viewer panel against what the model says the
// panel must show, for the same command-line arguments the viewer got:
//   indexing    one colour per block that wrote something (block mode), and
//               the anomaly colours exactly when elements were written 0 / 2+ times
//   coalescing  as many touched-sector boxes in each pane as the model's
//               sectors for warp 0 of block 0 at the store
//   timing      one bar per version of the first problem; no chart for a bad file
// Every panel must also not be blank. Exit status 0: pass; 1: mismatch.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <tuple>

#include "model/bench_results.hpp"
#include "model/coalescing_model.hpp"
#include "model/indexing_model.hpp"
#include "model/lab_source.hpp"
#include "model/layout_file.hpp"
#include "model/options.hpp"
#include "model/png_image.hpp"

namespace {

using namespace cudalab::viewer;

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::cout << (ok ? "ok    " : "FAIL  ") << what << "\n";
  if (!ok) ++failures;
}

struct Area {
  int x0, y0, x1, y1;
};
Area area(const Image& image, const Rect& r) {
  auto clamp = [](float v, int hi) { return std::max(0, std::min(static_cast<int>(v), hi)); };
  return {clamp(r.x0, image.width), clamp(r.y0, image.height), clamp(r.x1, image.width),
          clamp(r.y1, image.height)};
}

std::map<std::tuple<int, int, int>, long> colour_counts(const Image& image, Area a) {
  std::map<std::tuple<int, int, int>, long> counts;
  for (int y = a.y0; y < a.y1; ++y)
    for (int x = a.x0; x < a.x1; ++x) {
      const Rgba c = image.at(x, y);
      ++counts[{c.r, c.g, c.b}];
    }
  return counts;
}

// 4-connected regions of exactly `colour` inside `a` with at least `min_pixels`.
int regions_of(const Image& image, Area a, Rgba colour, int min_pixels) {
  const int w = a.x1 - a.x0, h = a.y1 - a.y0;
  std::vector<char> seen(static_cast<std::size_t>(w) * h, 0);
  auto is = [&](int x, int y) {
    const Rgba c = image.at(a.x0 + x, a.y0 + y);
    return c.r == colour.r && c.g == colour.g && c.b == colour.b;
  };
  int regions = 0;
  std::vector<std::pair<int, int>> stack;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (seen[y * w + x] || !is(x, y)) continue;
      int pixels = 0;
      stack.push_back({x, y});
      seen[y * w + x] = 1;
      while (!stack.empty()) {
        const auto [px, py] = stack.back();
        stack.pop_back();
        ++pixels;
        const int nx[] = {px - 1, px + 1, px, px}, ny[] = {py, py, py - 1, py + 1};
        for (int k = 0; k < 4; ++k) {
          if (nx[k] < 0 || ny[k] < 0 || nx[k] >= w || ny[k] >= h) continue;
          if (seen[ny[k] * w + nx[k]] || !is(nx[k], ny[k])) continue;
          seen[ny[k] * w + nx[k]] = 1;
          stack.push_back({nx[k], ny[k]});
        }
      }
      if (pixels >= min_pixels) ++regions;
    }
  return regions;
}

KernelRun run_for(const RunRequest& request) {
  const auto labs = available_labs();
  RunOutcome out = labs.front()->run(request);
  if (!out.run) throw std::runtime_error("the model cannot run this request: " + out.error);
  return std::move(*out.run);
}

void check_indexing(const Image& image, const DrawnLayout& layout, const RunRequest& request) {
  const KernelRun run = run_for(request);
  const Area canvas = area(image, layout.indexing_canvas);
  const auto counts = colour_counts(image, canvas);
  std::size_t block_colours = 0;
  for (std::uint64_t b = 0; b < std::min<std::uint64_t>(run.blocks(), kCategoricalColours); ++b) {
    const Rgba c = categorical(b);
    const auto it = counts.find({c.r, c.g, c.b});
    if (it != counts.end() && it->second >= 4) ++block_colours;
  }
  expect(block_colours == distinct_block_colours(run),
         "indexing: " + std::to_string(block_colours) + " block colours drawn, model says " +
             std::to_string(distinct_block_colours(run)));
  const CoverageStats stats = coverage_stats(run);
  auto drawn = [&](Rgba c) { return counts.count({c.r, c.g, c.b}) > 0; };
  expect(drawn(never_written()) == (stats.never > 0),
         "indexing: never-written colour drawn iff the model has " + std::to_string(stats.never) +
             " > 0 unwritten elements");
  expect(drawn(written_twice()) == (stats.several > 0),
         "indexing: written-twice colour drawn iff the model has " + std::to_string(stats.several) +
             " > 0 doubly written elements");
}

void check_coalescing(const Image& image, const DrawnLayout& layout, RunRequest request) {
  const auto labs = available_labs();
  const KernelRun left = run_for(request);
  request.version = labs.front()->default_comparison();
  const KernelRun right = run_for(request);
  const auto left_site = first_store_site(left);
  if (!left_site) throw std::runtime_error("the kernel stores nothing");
  const auto right_site = corresponding_site(left, *left_site, right);
  const std::pair<const KernelRun*, std::optional<std::uint32_t>> panes[] = {{&left, left_site},
                                                                             {&right, right_site}};
  const char* side[] = {"left", "right"};
  for (int pane = 0; pane < 2; ++pane) {
    const auto& [run, site] = panes[pane];
    const auto index = site ? find_request(*run, *site, 0, 0) : std::nullopt;
    if (!index) throw std::runtime_error("warp 0 of block 0 made no store");
    const int expected = analyse(run->requests[*index]).sectors;
    const int boxes =
        regions_of(image, area(image, layout.coalescing_panes[pane]), kSectorTouched, 6);
    expect(boxes == expected, std::string("coalescing ") + side[pane] + ": " +
                                  std::to_string(boxes) + " touched sectors drawn, model says " +
                                  std::to_string(expected));
  }
}

void check_timing(const Image& image, const DrawnLayout& layout, const std::string& results) {
  const auto loaded = load_bench_result(results);
  if (std::holds_alternative<std::string>(loaded)) {  // the viewer must show a message, no chart
    const Rect& r = layout.timing_chart;
    expect(r.x1 <= r.x0 || r.y1 <= r.y0, "timing: an unreadable file draws no chart");
    return;
  }
  const BenchResult& r = std::get<BenchResult>(loaded);
  const TimingChart chart = chart_for_problem(r, problems(r).front());
  // Bars are counted as bands of rows holding bar pixels: the anchor lines
  // cross the bars and would split them into several regions.
  const Area chart_area = area(image, layout.timing_chart);
  int bars = 0;
  bool in_bar = false;
  for (int y = chart_area.y0; y < chart_area.y1; ++y) {
    bool row_has_bar = false;
    for (int x = chart_area.x0; x < chart_area.x1 && !row_has_bar; ++x)
      row_has_bar = image.at(x, y) == kVersionBar;
    bars += row_has_bar && !in_bar;
    in_bar = row_has_bar;
  }
  expect(bars == static_cast<int>(chart.versions.size()),
         "timing: " + std::to_string(bars) + " bars drawn, the file has " +
             std::to_string(chart.versions.size()) + " versions of " + chart.problem);
}

}  // namespace

int main(int argc, char** argv) {
  std::string image_path, layout_path, panel, shape = "64x100", block = "256", grid, results;
  std::size_t version = 0;
  std::string lab = "01";
  CLI::App cli{"check a cudalab_view screenshot against the model"};
  cli.add_option("--image", image_path)->required();
  cli.add_option("--layout", layout_path)->required();
  cli.add_option("--panel", panel)->required();
  cli.add_option("lab,--lab", lab);
  cli.add_option("--version", version);
  cli.add_option("--shape", shape);
  cli.add_option("--block", block);
  cli.add_option("--grid", grid);
  cli.add_option("--results", results);
  CLI11_PARSE(cli, argc, argv);

  try {
    const Image image = read_png(image_path);
    const DrawnLayout layout = read_layout(layout_path);
    const auto all = colour_counts(image, {0, 0, image.width, image.height});
    long dominant = 0;
    for (const auto& [colour, n] : all) dominant = std::max(dominant, n);
    const long total = static_cast<long>(image.width) * image.height;
    expect(all.size() >= 16 && dominant < total * 97 / 100,
           "not blank: " + std::to_string(all.size()) + " colours, the commonest covers " +
               std::to_string(100 * dominant / total) + "%");

    RunRequest request;
    const auto extent = parse_extent(shape);
    const auto block_dim = parse_dim3(block);
    if (!extent || !block_dim) throw std::runtime_error("bad --shape or --block");
    request.rows = extent->first;
    request.cols = extent->second;
    request.block = *block_dim;
    request.version = version;
    if (!grid.empty()) {
      request.auto_grid = false;
      request.grid = parse_dim3(grid).value_or(Dim3{});
    }
    if (panel == "indexing") check_indexing(image, layout, request);
    if (panel == "coalescing") check_coalescing(image, layout, request);
    if (panel == "timing") check_timing(image, layout, results);
  } catch (const std::exception& e) {
    std::cerr << "check_viewer_screenshot: " << e.what() << "\n";
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
