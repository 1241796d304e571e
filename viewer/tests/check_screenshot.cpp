// Checks a screenshot of one viewer panel against what the model says the
// panel must show, for the same command-line arguments the viewer got:
//   indexing    one colour per block that wrote something (block mode), and
//               the anomaly colours exactly when elements were written 0 / 2+ times
//   coalescing  as many touched-sector boxes in each pane as the model's
//               sectors for warp 0 of block 0 at the store
//   timing      one bar per version of the first problem; no chart for a bad file
//   timeline    one span per block of the samples' matmul, each drawn in its
//               kind's colour where the model places it (the viewer saves the
//               timeline it drew: block times differ from run to run); with
//               --results, exactly the file's first timeline; every
//               dependency arrowhead and race line where the model puts them
//   errors      every point of every series in its series' colour where the
//               log axes place it
//   tiles       every tile in the colour the model gives it at the step shown
//   bits        every bit cell of every format in its field's colour
//   fragments   every element of A, B and C/D in the colour of the lane that
//               holds it (dimmed unless it is the --lane's)
//   traffic     every rank's bar, each peer's part in that peer's colour
//               where the model puts it, as long as the layout says
//   swizzle     every element of the box in its bank's colour, the box the
//               model's (the one the run's TMA load recorded)
//   pipeline    as timeline: every span in its kind's colour where the model
//               places it
//   errors with --results: the file's error_vs_k points (else its busbw
//               figures against the message size), as above
//   timing      also: the model's anchor lines, each label on a row of its
//               own (no two overlap) and inside the window
// Where the lab's run says what the student must do first for the view
// (RunOutcome::unfinished: a skeleton's exercise not done yet), the view
// must show exactly that sentence, in its colour; the picture is checked as
// far as the run gave one. Every panel must also not be blank. Exit status
// 0: pass; 1: mismatch.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <tuple>

#include "emulator_samples.hpp"
#include "model/bars_model.hpp"
#include "model/bench_results.hpp"
#include "model/bit_layout_model.hpp"
#include "model/coalescing_model.hpp"
#include "model/fragment_model.hpp"
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

RunOutcome run(const LabSource& lab, const RunRequest& request) {
  RunOutcome out = lab.run(request);
  if (!out.has_data()) throw std::runtime_error("the model cannot run this request: " + out.error);
  return out;
}

bool same_rgb(Rgba a, Rgba b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

// The sentence the view must show (RunOutcome::unfinished), drawn in its
// colour; or none at all.
void check_message(const Image& image, const DrawnLayout& layout, const RunOutcome& out,
                   View view) {
  const auto todo = out.unfinished.find(view);
  if (todo == out.unfinished.end()) {
    expect(layout.message.empty(),
           "no sentence instead of the view: the run gives it all it "
           "needs (shown: '" +
               layout.message + "')");
    return;
  }
  expect(layout.message == todo->second, "the view says what to do first: '" + layout.message +
                                             "', the model says '" + todo->second + "'");
  // Text is antialiased: count the pixels of its hue (amber: red over green
  // well over blue), the glyphs' edges blended into the background included.
  long pixels = 0;
  const Rgba c = kUnfinishedText;
  const Area a = area(image, layout.message_rect);
  for (int y = a.y0; y < a.y1; ++y)
    for (int x = a.x0; x < a.x1; ++x) {
      const Rgba p = image.at(x, y);
      pixels += p.r >= 100 && p.r >= p.g && p.g >= p.b + (c.g - c.b) / 3;
    }
  expect(pixels >= 100, "the sentence is drawn in its colour (" + std::to_string(pixels) +
                            " pixels of its hue where the layout says)");
}

void check_indexing(const Image& image, const DrawnLayout& layout, const KernelRun& run) {
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

void check_coalescing(const Image& image, const DrawnLayout& layout, const LabSource& lab,
                      RunRequest request, const KernelRun& left) {
  request.version = lab.default_comparison(request.version);
  const RunOutcome compared = run(lab, request);
  if (!compared.run) throw std::runtime_error("the comparison's run has no element grid");
  const KernelRun& right = *compared.run;
  const auto left_site = first_store_site(left);
  if (!left_site && !left.sites.empty()) throw std::runtime_error("the kernel stores nothing");
  // A kernel that made no access at all (an exercise not done yet): nothing
  // on the left, the comparison at its own first store on the right.
  const auto right_site =
      left_site ? corresponding_site(left, *left_site, right) : first_store_site(right);
  if (!left_site) {
    expect(regions_of(image, area(image, layout.coalescing_panes[0]), kSectorTouched, 6) == 0,
           "coalescing left: no sector drawn for a kernel that made no access");
  }
  const std::pair<const KernelRun*, std::optional<std::uint32_t>> panes[] = {{&left, left_site},
                                                                             {&right, right_site}};
  const char* side[] = {"left", "right"};
  for (int pane = left_site ? 0 : 1; pane < 2; ++pane) {
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
  const BarChart chart = bars_for_problem(r, problems(r).front());
  // The anchors: the model's lines, each at its value on the bars' scale,
  // their labels apart from each other and inside the window.
  expect(layout.timing_anchor_x.size() == chart.anchors.size() &&
             layout.timing_anchor_labels.size() == chart.anchors.size(),
         "timing: " + std::to_string(layout.timing_anchor_x.size()) +
             " anchor lines drawn, the model has " + std::to_string(chart.anchors.size()));
  const Rect& c = layout.timing_chart;
  const double scale = chart.max_value > 0 ? c.width() / (chart.max_value * 1.05) : 0;
  int misplaced = 0, overlapping = 0, outside = 0;
  for (std::size_t a = 0; a < chart.anchors.size() && a < layout.timing_anchor_x.size(); ++a)
    misplaced += std::abs(layout.timing_anchor_x[a] - (c.x0 + chart.anchors[a].value * scale)) > 1;
  const auto& labels = layout.timing_anchor_labels;
  for (std::size_t a = 0; a < labels.size(); ++a) {
    outside += labels[a].x0 < 0 || labels[a].x1 > image.width;
    for (std::size_t b = a + 1; b < labels.size(); ++b)
      overlapping += labels[a].x0 < labels[b].x1 && labels[b].x0 < labels[a].x1 &&
                     labels[a].y0 < labels[b].y1 && labels[b].y0 < labels[a].y1;
  }
  expect(misplaced == 0, "timing: " + std::to_string(misplaced) +
                             " anchor lines not where the model's values put them");
  expect(overlapping == 0,
         "timing: " + std::to_string(overlapping) + " pairs of anchor labels overlap");
  expect(outside == 0, "timing: " + std::to_string(outside) + " anchor labels outside the window");
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
  expect(bars == static_cast<int>(chart.bars.size()),
         "timing: " + std::to_string(bars) + " bars drawn, the file has " +
             std::to_string(chart.bars.size()) + " versions of " + chart.problem);
}

bool same_spans(const Timeline& a, const Timeline& b) {
  if (a.rows.size() != b.rows.size()) return false;
  for (std::size_t r = 0; r < a.rows.size(); ++r) {
    const auto &x = a.rows[r].spans, &y = b.rows[r].spans;
    if (x.size() != y.size()) return false;
    for (std::size_t s = 0; s < x.size(); ++s)
      if (x[s].name != y[s].name || x[s].start != y[s].start || x[s].end != y[s].end) return false;
  }
  return true;
}

// `model`: a timeline of the same run (same spans, other times), or with
// `exact` the very timeline the viewer must have drawn (from a result file).
void check_timeline(const Image& image, const DrawnLayout& layout, const Timeline& model,
                    bool exact) {
  if (!layout.timeline) throw std::runtime_error("the layout file holds no drawn timeline");
  const Timeline& drawn = *layout.timeline;
  if (exact) expect(same_spans(drawn, model), "timeline: the spans drawn are the file's");
  std::size_t model_spans = 0, drawn_spans = 0;
  for (const TimelineRow& row : model.rows) model_spans += row.spans.size();
  for (const TimelineRow& row : drawn.rows) drawn_spans += row.spans.size();
  expect(drawn_spans == model_spans, "timeline: " + std::to_string(drawn_spans) +
                                         " spans drawn, a run of the model has " +
                                         std::to_string(model_spans));
  expect(layout.timeline_rows.size() == drawn.rows.size(),
         "timeline: " + std::to_string(layout.timeline_rows.size()) + " row bands for " +
             std::to_string(drawn.rows.size()) + " rows");
  const TimeRange range = extent(drawn);
  const Rect& canvas = layout.timeline_canvas;
  int misplaced = 0;
  std::string first;
  for (std::size_t r = 0; r < drawn.rows.size() && r < layout.timeline_rows.size(); ++r) {
    const Rect& band = layout.timeline_rows[r];
    for (const Span& span : drawn.rows[r].spans) {
      const SpanPixels p = span_pixels(span, range, canvas.width());
      const int y = static_cast<int>((band.y0 + band.y1) / 2);
      // A few points across the box: an arrow or a race line may cross one.
      // Each must show the span drawn last there: a span stretched to the
      // minimum width may lie under the next one.
      bool found = false;
      for (double at : {0.5, 0.3, 0.7}) {
        const double x = p.x0 + (p.x1 - p.x0) * at;
        const Span* top = &span;
        for (const Span& other : drawn.rows[r].spans) {
          const SpanPixels o = span_pixels(other, range, canvas.width());
          if (x >= o.x0 && x < o.x1) top = &other;
        }
        found |= same_rgb(image.at(static_cast<int>(canvas.x0 + x), y), span_colour(drawn, *top));
      }
      if (found) continue;
      if (misplaced++ == 0)
        first = " (first: " + describe_span(drawn, span) + " at pixel " +
                std::to_string(static_cast<int>(canvas.x0 + (p.x0 + p.x1) / 2)) + "," +
                std::to_string(y) + ")";
    }
  }
  expect(misplaced == 0, "timeline: " + std::to_string(misplaced) +
                             " spans not in their colour where the model places them" + first);
  if (layout.timeline_rows.empty()) return;
  // Arrows and race lines where the model puts them: an arrowhead's middle in
  // the arrow colour, a race line's middle in red (drawn under the arrows).
  const TimelineFrame frame{canvas.x0, canvas.y0, canvas.width(),
                            layout.timeline_rows.front().height(), range};
  int heads_missing = 0;
  for (const Arrow& arrow : dependency_arrows(drawn, frame)) {
    const auto [left, right] = arrowhead(arrow, 6.0);  // smaller than the panel's: inside it
    const int x = static_cast<int>(std::lround((arrow.head.x + left.x + right.x) / 3));
    const int y = static_cast<int>(std::lround((arrow.head.y + left.y + right.y) / 3));
    heads_missing += !same_rgb(image.at(x, y), kArrowColour);
  }
  expect(heads_missing == 0, "timeline: " + std::to_string(heads_missing) + " of " +
                                 std::to_string(dependency_arrows(drawn, frame).size()) +
                                 " dependency arrowheads not drawn where the model puts them");
  int lines_missing = 0;
  const auto links = race_links(drawn, frame);
  for (const RaceLink& link : links) {
    bool red = false;  // near the middle: the line is two pixels wide
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        red |= same_rgb(image.at(static_cast<int>(std::lround((link.from.x + link.to.x) / 2)) + dx,
                                 static_cast<int>(std::lround((link.from.y + link.to.y) / 2)) + dy),
                        kRaceColour);
    lines_missing += !red;
  }
  expect(lines_missing == 0, "timeline: " + std::to_string(lines_missing) + " of " +
                                 std::to_string(links.size()) + " race lines not drawn");
}

void check_errors(const Image& image, const DrawnLayout& layout, const ErrorPlot& plot) {
  const Rect& area = layout.error_plot;
  expect(area.width() > 0 && area.height() > 0, "errors: a plot area was drawn");
  const LogAxis x = x_axis(plot), y = y_axis(plot);
  auto pixel = [&](PlotPoint p) {
    const PlotPixel px = point_pixel(x, y, p, area.width(), area.height());
    return std::pair{static_cast<int>(area.x0 + px.x), static_cast<int>(area.y0 + px.y)};
  };
  int points = 0, misplaced = 0;
  for (std::size_t s = 0; s < plot.series.size(); ++s)
    for (const PlotPoint& p : plot.series[s].points) {
      const auto [px, py] = pixel(p);
      // A later series' marker drawn over this one hides it.
      bool hidden = false;
      for (std::size_t later = s + 1; later < plot.series.size(); ++later)
        for (const PlotPoint& q : plot.series[later].points) {
          const auto [qx, qy] = pixel(q);
          hidden |= std::abs(qx - px) <= 9 && std::abs(qy - py) <= 9;
        }
      if (hidden) continue;
      ++points;
      misplaced += !same_rgb(image.at(px, py), series_colour(s));
    }
  expect(points > 0 && misplaced == 0,
         "errors: " + std::to_string(points - misplaced) + " of " + std::to_string(points) +
             " visible points in their series' colour where the log axes place them");
}

// `finished`: the lab code did what the walk is about (a skeleton's walk may
// hold only C's stores, at the last step).
void check_tiles(const Image& image, const DrawnLayout& layout, const TileWalk& walk,
                 std::size_t step, std::size_t program, bool finished) {
  expect(layout.tile_grids.size() == walk.grids.size(),
         "tiles: " + std::to_string(layout.tile_grids.size()) + " grids drawn, the walk has " +
             std::to_string(walk.grids.size()));
  step = std::min(step, step_count(walk) - 1);
  int tiles = 0, wrong = 0, selected = 0, edges = 0, unhatched = 0;
  for (std::size_t g = 0; g < walk.grids.size() && g < layout.tile_grids.size(); ++g) {
    const TileGrid& grid = walk.grids[g];
    const Rect& r = layout.tile_grids[g];
    const float cell = r.width() / grid.cols;
    const float gap = cell >= 6 ? 1.0f : 0.0f;
    const auto counts = touches_at(walk, g, step);
    const std::uint32_t most = *std::max_element(counts.begin(), counts.end());
    for (std::uint32_t row = 0; row < grid.rows; ++row)
      for (std::uint32_t col = 0; col < grid.cols; ++col) {
        const bool mine = touches(walk, program, step, {static_cast<std::uint32_t>(g), row, col});
        const Rgba expected = tile_colour(counts[row * grid.cols + col], most, mine);
        // The fill covers the part of the tile inside the matrix; look at its
        // middle, past the frame of the selected program's tiles.
        const InsideFraction inside = inside_fraction(grid, row, col);
        const float x0 = r.x0 + cell * col, y0 = r.y0 + cell * row;
        const float inside_w = (cell - gap) * static_cast<float>(inside.cols);
        const float inside_h = (cell - gap) * static_cast<float>(inside.rows);
        if (inside_w >= 8 && inside_h >= 8) {
          const int x = static_cast<int>(x0 + std::max(4.0f, inside_w * 0.4f));
          const int y = static_cast<int>(y0 + std::max(4.0f, inside_h * 0.4f));
          ++tiles;
          selected += mine;
          wrong += !same_rgb(image.at(x, y), expected);
        }
        // The rest of an edge tile is hatched.
        if (inside.cols < 1 || inside.rows < 1) {
          ++edges;
          bool hatched = false;
          for (int y = static_cast<int>(y0) + 1; y < static_cast<int>(y0 + cell - gap) - 1; ++y)
            for (int x = static_cast<int>(x0) + 1; x < static_cast<int>(x0 + cell - gap) - 1; ++x) {
              const bool outside = x > x0 + inside_w + 1 || y > y0 + inside_h + 1;
              hatched |= outside && same_rgb(image.at(x, y), kTileHatch);
            }
          unhatched += !hatched;
        }
      }
  }
  expect(tiles > 0 && (selected > 0 || !finished), "tiles: program " + std::to_string(program) +
                                                       " touches " + std::to_string(selected) +
                                                       " tiles at step " + std::to_string(step));
  expect(wrong == 0, "tiles: " + std::to_string(tiles - wrong) + " of " + std::to_string(tiles) +
                         " tiles in the model's colour");
  expect(unhatched == 0, "tiles: " + std::to_string(edges - unhatched) + " of " +
                             std::to_string(edges) + " edge tiles hatched past the matrix");
}

void check_bits(const Image& image, const DrawnLayout& layout, const BitLayout& bits) {
  expect(layout.bit_rows.size() == bits.formats.size(),
         "bits: " + std::to_string(layout.bit_rows.size()) + " rows drawn for " +
             std::to_string(bits.formats.size()) + " formats");
  int cells = 0, wrong = 0;
  std::string first;
  for (std::size_t r = 0; r < bits.formats.size() && r < layout.bit_rows.size(); ++r) {
    const FormatBits& f = bits.formats[r];
    const Rect& row = layout.bit_rows[r];
    const double cell = row.width() / row_extent(f);
    for (int i = 0; i < f.cells(); ++i) {
      // Near the cell's top-left corner, away from the digit in its middle.
      const int x = static_cast<int>(row.x0 + (cell_offset(f, i) + 0.15) * cell);
      const int y = static_cast<int>(row.y0 + row.height() * 0.12);
      ++cells;
      if (same_rgb(image.at(x, y), field_colour(f.field(i)))) continue;
      if (wrong++ == 0) first = " (first: " + f.name + " bit " + std::to_string(i) + ")";
    }
  }
  expect(cells > 0 && wrong == 0, "bits: " + std::to_string(cells - wrong) + " of " +
                                      std::to_string(cells) + " cells in their field's colour" +
                                      first);
}

void check_fragments(const Image& image, const DrawnLayout& layout, const FragmentLayout& frags,
                     std::optional<int> lane) {
  const FragmentMatrix* matrices[] = {&frags.a, &frags.b, &frags.c};
  expect(layout.fragment_matrices.size() == 3,
         "fragments: " + std::to_string(layout.fragment_matrices.size()) + " matrices drawn");
  int cells = 0, wrong = 0;
  std::string first;
  for (std::size_t m = 0; m < 3 && m < layout.fragment_matrices.size(); ++m) {
    const FragmentMatrix& matrix = *matrices[m];
    const Rect& area = layout.fragment_matrices[m];
    const double cell = area.width() / matrix.cols;
    for (int r = 0; r < matrix.rows; ++r)
      for (int c = 0; c < matrix.cols; ++c) {
        const int x = static_cast<int>(area.x0 + (c + 0.12) * cell);
        const int y = static_cast<int>(area.y0 + (r + 0.12) * cell);
        ++cells;
        if (same_rgb(image.at(x, y), fragment_cell_colour(matrix.at(r, c).lane, lane))) continue;
        if (wrong++ == 0) first = " (first: " + describe_element(matrix, r, c) + ")";
      }
  }
  expect(cells > 0 && wrong == 0,
         "fragments: " + std::to_string(cells - wrong) + " of " + std::to_string(cells) +
             " elements in the colour of their lane" +
             (lane ? " (lane " + std::to_string(*lane) + " standing out)" : std::string()) + first);
}

}  // namespace

// One bar per rank, as long as its bytes make it, each peer's part in the
// peer's colour at its middle.
void check_swizzle(const Image& image, const DrawnLayout& layout, const SwizzleLayout& model) {
  const Rect& grid = layout.swizzle_grid;
  const SwizzleBox& box = model.box;
  expect(grid.width() > 0 && grid.height() > 0, "swizzle: the grid was drawn");
  if (grid.width() <= 0) return;
  const double cell_w = grid.width() / box.cols, cell_h = grid.height() / box.rows;
  int misplaced = 0;
  std::string first;
  for (unsigned r = 0; r < box.rows; ++r)
    for (unsigned c = 0; c < box.cols; ++c) {
      const int x = static_cast<int>(grid.x0 + (c + 0.5) * cell_w);
      const int y = static_cast<int>(grid.y0 + (r + 0.5) * cell_h);
      if (same_rgb(image.at(x, y), bank_colour(model.bank(r, c)))) continue;
      if (misplaced++ == 0) first = " (first: " + describe_element(model, r, c) + ")";
    }
  expect(misplaced == 0, "swizzle: " + std::to_string(misplaced) + " of " +
                             std::to_string(box.rows * box.cols) +
                             " elements not in their bank's colour" + first);
}

void check_traffic(const Image& image, const DrawnLayout& layout, const TrafficChart& chart) {
  expect(layout.traffic_bars.size() == chart.bars.size(),
         "traffic: " + std::to_string(layout.traffic_bars.size()) + " bars drawn, the run has " +
             std::to_string(chart.bars.size()) + " ranks");
  int misplaced = 0;
  for (std::size_t r = 0; r < chart.bars.size() && r < layout.traffic_bars.size(); ++r) {
    const Rect& bar = layout.traffic_bars[r];
    const double width = bar.width() > 0 ? bar.width() / bar_pixels(chart, 1.0, 1.0) /
                                               static_cast<double>(chart.bars[r].bytes)
                                         : 0;
    double done = 0;
    for (const TrafficPart& part : chart.bars[r].parts) {
      if (part.bytes == 0) continue;  // nothing drawn (a skeleton's kernel moved nothing)
      const double a = bar_pixels(chart, done, width);
      done += static_cast<double>(part.bytes);
      const double b = bar_pixels(chart, done, width);
      const int x = static_cast<int>(bar.x0 + (a + b) / 2);
      const int y = static_cast<int>((bar.y0 + bar.y1) / 2);
      misplaced += !same_rgb(image.at(x, y), peer_colour(part.to));
    }
  }
  expect(misplaced == 0, "traffic: " + std::to_string(misplaced) +
                             " parts of bars not in their peer's colour where the model puts them");
}

// The lab the viewer showed: the emulator samples or one of available_labs().
std::unique_ptr<LabSource> lab_named(const std::string& name, bool samples) {
  if (samples) return make_emulator_samples_source();
  for (auto& lab : available_labs())
    if (lab->title().rfind(name, 0) == 0) return std::move(lab);
  return nullptr;
}

// The request the viewer built from the same arguments.
RunRequest request_for(const LabSource& lab, const std::string& shape,
                       const std::vector<std::string>& params, const std::string& block,
                       const std::string& grid, std::size_t version) {
  RunRequest request = default_request(lab);
  auto set = [&](const std::string& name, std::int64_t value) {
    const auto index = parameter_index(lab, name);
    if (!index) throw std::runtime_error("no parameter " + name);
    request.values[*index] = value;
  };
  if (!shape.empty()) {
    const auto extent = parse_extent(shape);
    if (!extent) throw std::runtime_error("bad --shape");
    set("rows", static_cast<std::int64_t>(extent->first));
    set("cols", static_cast<std::int64_t>(extent->second));
  }
  for (const std::string& text : params) {
    const auto assignment = parse_assignment(text);
    if (!assignment) throw std::runtime_error("bad --param " + text);
    set(assignment->first, assignment->second);
  }
  const auto block_dim = parse_dim3(block);
  if (!block_dim) throw std::runtime_error("bad --block");
  request.block = *block_dim;
  request.version = version;
  if (!grid.empty()) {
    request.auto_grid = false;
    request.grid = parse_dim3(grid).value_or(Dim3{});
  }
  return request;
}

int main(int argc, char** argv) {
  std::string image_path, layout_path, panel, shape, block = "256", grid, results, leaderboard;
  std::vector<std::string> params;
  std::size_t version = 0, step = 0, program = 0;
  std::optional<int> lane;
  std::string lab = "01";
  bool samples = false;
  CLI::App cli{"check a cudalab_view screenshot against the model"};
  cli.add_option("--image", image_path)->required();
  cli.add_option("--layout", layout_path)->required();
  cli.add_option("--panel", panel)->required();
  cli.add_option("lab,--lab", lab);
  cli.add_option("--version", version);
  cli.add_option("--shape", shape);
  cli.add_option("--param", params);
  cli.add_option("--step", step);
  cli.add_option("--program", program);
  cli.add_option("--lane", lane);
  cli.add_flag("--samples", samples, "the screenshot is of cudalab_view_samples");
  cli.add_option("--block", block);
  cli.add_option("--grid", grid);
  cli.add_option("--results", results);
  cli.add_option("--leaderboard", leaderboard);
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

    if (panel == "timing") check_timing(image, layout, results);
    if (panel == "leaderboard") {  // a bar per ranked student, in the bars' colour
      const auto bar = all.find({kVersionBar.r, kVersionBar.g, kVersionBar.b});
      expect(bar != all.end() && bar->second > 200, "the leaderboard draws its score bars");
    }
    if (panel == "errors" && !results.empty()) {  // the result file's error_vs_k or busbw figures
      const auto loaded = load_bench_result(results);
      if (const auto* error = std::get_if<std::string>(&loaded)) throw std::runtime_error(*error);
      const BenchResult& file = std::get<BenchResult>(loaded);
      const ErrorPlot* plot = file_plot(file);
      if (plot == nullptr)
        throw std::runtime_error(results + " holds neither error_vs_k nor busbw figures");
      check_errors(image, layout, *plot);
      return failures == 0 ? 0 : 1;
    }
    if (panel == "timeline" && !results.empty()) {  // the result file's timeline
      const auto loaded = load_bench_result(results);
      if (const auto* error = std::get_if<std::string>(&loaded)) throw std::runtime_error(*error);
      const BenchResult& file = std::get<BenchResult>(loaded);
      if (file.timelines.empty()) throw std::runtime_error(results + " holds no timeline");
      check_timeline(image, layout, file.timelines.front(), true);
      return failures == 0 ? 0 : 1;
    }
    if (panel != "indexing" && panel != "coalescing" && panel != "timeline" && panel != "errors" &&
        panel != "tiles" && panel != "bits" && panel != "fragments" && panel != "traffic" &&
        panel != "swizzle" && panel != "pipeline")
      return failures == 0 ? 0 : 1;
    const auto source = lab_named(lab, samples);
    if (!source) throw std::runtime_error("no lab '" + lab + "' in this build");
    const RunRequest request = request_for(*source, shape, params, block, grid, version);
    const RunOutcome out = run(*source, request);
    const auto view = static_cast<View>(*panel_from_name(panel));
    check_message(image, layout, out, view);
    // A view the run gave nothing to draw, and that says why: checked above.
    if (!shows_something(out, view) && out.unfinished.count(view) > 0) return failures == 0 ? 0 : 1;
    if ((panel == "indexing" || panel == "coalescing") && !out.run)
      throw std::runtime_error("the lab's run has no element grid");
    if (panel == "indexing") check_indexing(image, layout, *out.run);
    if (panel == "swizzle") {
      expect(out.swizzle.has_value(), "the run gives a swizzle layout");
      if (out.swizzle) check_swizzle(image, layout, *out.swizzle);
    }
    if (panel == "pipeline") {
      expect(out.pipeline.has_value(), "the run gives a pipeline");
      if (out.pipeline) check_timeline(image, layout, *out.pipeline, false);
    }
    if (panel == "coalescing") check_coalescing(image, layout, *source, request, *out.run);
    if (panel == "timeline" || panel == "errors" || panel == "tiles" || panel == "bits" ||
        panel == "fragments" || panel == "traffic") {
      if (panel == "timeline" && out.timeline) check_timeline(image, layout, *out.timeline, false);
      if (panel == "errors" && out.errors) check_errors(image, layout, *out.errors);
      if (panel == "tiles" && out.tiles)
        check_tiles(image, layout, *out.tiles, step, program, out.unfinished.empty());
      if (panel == "bits" && out.bits) check_bits(image, layout, *out.bits);
      if (panel == "fragments" && out.fragments)
        check_fragments(image, layout, *out.fragments, lane);
      if (samples)
        expect(out.timeline && out.errors && out.tiles, "the samples give all three views");
      if (panel == "errors") expect(out.errors.has_value(), "the run gives an error plot");
      if (panel == "tiles") expect(out.tiles.has_value(), "the run gives a tile walk");
      if (panel == "traffic") {
        expect(out.traffic.has_value(), "the run gives its traffic");
        if (out.traffic) check_traffic(image, layout, *out.traffic);
      }
      if (panel == "bits") expect(out.bits.has_value(), "the run gives a bit layout");
      if (panel == "fragments")
        expect(out.fragments.has_value(), "the run gives a fragment layout");
    }
  } catch (const std::exception& e) {
    std::cerr << "check_viewer_screenshot: " << e.what() << "\n";
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
