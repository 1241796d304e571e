#include "indexing_model.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <tuple>

namespace cudalab::viewer {

CoverageStats coverage_stats(const KernelRun& run) {
  CoverageStats s;
  for (const ElementWrites& e : run.writes) {
    if (e.count == 0)
      ++s.never;
    else if (e.count == 1)
      ++s.once;
    else
      ++s.several;
    s.max_count = std::max(s.max_count, e.count);
  }
  return s;
}

namespace {

Rgba mode_colour(const KernelRun& run, ThreadRef t, ColourBy mode) {
  switch (mode) {
    case ColourBy::kBlock:
      return categorical(t.block);
    case ColourBy::kWarp:
      return categorical(t.warp());
    case ColourBy::kThread: {
      const double n = static_cast<double>(std::max<std::uint64_t>(run.threads_per_block(), 2));
      return ramp(t.thread / (n - 1));
    }
  }
  return {};
}

}  // namespace

Rgba cell_colour(const KernelRun& run, std::uint64_t index, ColourBy mode, const Selection& sel) {
  const ElementWrites& e = run.writes[index];
  if (e.count == 0) return never_written();
  if (e.count > 1) return written_twice();
  const Rgba c = mode_colour(run, e.first, mode);
  return sel.empty() || sel.matches(e.first) ? c : dimmed(c);
}

Rgba legend_colour(const KernelRun& run, ColourBy mode, std::uint64_t id) {
  if (mode == ColourBy::kThread) return mode_colour(run, {0, static_cast<std::uint32_t>(id)}, mode);
  return categorical(id);
}

std::uint64_t legend_entries(const KernelRun& run, ColourBy mode) {
  switch (mode) {
    case ColourBy::kBlock:
      return run.blocks();
    case ColourBy::kWarp:
      return run.warps_per_block();
    case ColourBy::kThread:
      return run.threads_per_block();
  }
  return 0;
}

std::size_t distinct_block_colours(const KernelRun& run) {
  std::set<std::tuple<int, int, int>> colours;
  for (std::uint64_t i = 0; i < run.writes.size(); ++i) {
    if (run.writes[i].count != 1) continue;
    const Rgba c = cell_colour(run, i, ColourBy::kBlock, {});
    colours.insert({c.r, c.g, c.b});
  }
  return colours.size();
}

CoveragePyramid::CoveragePyramid(const KernelRun& run) {
  Level base{run.rows, run.cols, std::vector<std::uint8_t>(run.elements())};
  for (std::uint64_t i = 0; i < run.elements(); ++i) {
    const std::uint32_t n = run.writes[i].count;
    base.flags[i] = n == 0 ? kNever : n > 1 ? kSeveral : 0;
  }
  levels_.push_back(std::move(base));
  while (levels_.back().rows > 1 || levels_.back().cols > 1) {
    const Level& fine = levels_.back();
    Level coarse{(fine.rows + 1) / 2, (fine.cols + 1) / 2, {}};
    coarse.flags.assign(coarse.rows * coarse.cols, 0);
    for (std::uint64_t r = 0; r < fine.rows; ++r)
      for (std::uint64_t c = 0; c < fine.cols; ++c)
        coarse.flags[(r / 2) * coarse.cols + c / 2] |= fine.flags[r * fine.cols + c];
    levels_.push_back(std::move(coarse));
  }
}

std::uint8_t CoveragePyramid::flags(int level, std::uint64_t row, std::uint64_t col) const {
  const Level& l = levels_[level];
  return l.flags[row * l.cols + col];
}

int level_for_zoom(double pixels_per_element, double min_px) {
  int level = 0;
  while (pixels_per_element * std::ldexp(1.0, level) < min_px && level < 62) ++level;
  return level;
}

Rgba tile_colour(const KernelRun& run, const CoveragePyramid& pyramid, int level,
                 std::uint64_t tile_row, std::uint64_t tile_col, ColourBy mode,
                 const Selection& sel) {
  const std::uint8_t f = pyramid.flags(level, tile_row, tile_col);
  if (f & CoveragePyramid::kSeveral) return written_twice();
  if (f & CoveragePyramid::kNever) return never_written();
  const std::uint64_t row = tile_row << level, col = tile_col << level;
  return cell_colour(run, row * run.cols + col, mode, sel);
}

GridView fit_view(std::uint64_t rows, std::uint64_t cols, double width, double height) {
  GridView v;
  if (rows == 0 || cols == 0) return v;
  v.pixels_per_element =
      std::min(width / static_cast<double>(cols), height / static_cast<double>(rows));
  v.pixels_per_element = std::min(v.pixels_per_element, 48.0);
  v.origin_x = (width - v.pixels_per_element * static_cast<double>(cols)) / 2;
  v.origin_y = (height - v.pixels_per_element * static_cast<double>(rows)) / 2;
  return v;
}

void zoom_at(GridView& view, double factor, double x, double y) {
  const double new_ppe = std::clamp(view.pixels_per_element * factor, 1e-4, 200.0);
  const double k = new_ppe / view.pixels_per_element;
  view.origin_x = x - (x - view.origin_x) * k;
  view.origin_y = y - (y - view.origin_y) * k;
  view.pixels_per_element = new_ppe;
}

TileRange visible_tiles(const GridView& view, const CoveragePyramid& pyramid, int level,
                        double width, double height) {
  const double tile_px = view.pixels_per_element * std::ldexp(1.0, level);
  auto range = [tile_px](double origin, double extent, std::uint64_t count, std::uint64_t& begin,
                         std::uint64_t& end) {
    const double first = std::floor((0.0 - origin) / tile_px);
    const double last = std::ceil((extent - origin) / tile_px);
    begin = static_cast<std::uint64_t>(std::clamp(first, 0.0, static_cast<double>(count)));
    end = static_cast<std::uint64_t>(std::clamp(last, 0.0, static_cast<double>(count)));
  };
  TileRange r;
  range(view.origin_y, height, pyramid.rows(level), r.row_begin, r.row_end);
  range(view.origin_x, width, pyramid.cols(level), r.col_begin, r.col_end);
  return r;
}

std::optional<std::uint64_t> element_at(const KernelRun& run, const GridView& view, double x,
                                        double y) {
  const double col = std::floor((x - view.origin_x) / view.pixels_per_element);
  const double row = std::floor((y - view.origin_y) / view.pixels_per_element);
  if (col < 0 || row < 0 || col >= static_cast<double>(run.cols) ||
      row >= static_cast<double>(run.rows))
    return std::nullopt;
  return static_cast<std::uint64_t>(row) * run.cols + static_cast<std::uint64_t>(col);
}

std::string describe_thread(const KernelRun& run, ThreadRef t) {
  const Dim3 b = unflatten(t.block, run.grid), th = unflatten(t.thread, run.block);
  std::ostringstream out;
  out << "blockIdx (" << b.x << "," << b.y << "," << b.z << ") threadIdx (" << th.x << "," << th.y
      << "," << th.z << ") warp " << t.warp() << " lane " << t.lane();
  return out.str();
}

std::string describe_element(const KernelRun& run, std::uint64_t index) {
  const ElementWrites& e = run.writes[index];
  std::ostringstream out;
  out << "element (" << index / run.cols << ", " << index % run.cols << ") written " << e.count
      << (e.count == 1 ? " time" : " times");
  if (e.count >= 1) out << "\n  by " << describe_thread(run, e.first);
  if (e.count >= 2) out << "\n  and " << describe_thread(run, e.second);
  if (e.count >= 3) out << "\n  and " << e.count - 2 << " more";
  return out.str();
}

}  // namespace cudalab::viewer
