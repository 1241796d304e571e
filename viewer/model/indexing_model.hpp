// What the thread-indexing panel draws: one cell per output element,
// coloured by the block, warp or thread that wrote it, with elements written
// 0 or 2+ times marked; tiles of elements when zoomed out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernel_run.hpp"
#include "palette.hpp"

namespace cudalab::viewer {

enum class ColourBy { kBlock, kWarp, kThread };

// A block or warp whose cells are highlighted (the others are dimmed).
struct Selection {
  std::optional<std::uint32_t> block;
  std::optional<std::uint32_t> warp;  // within the selected block, or in every block
  bool matches(ThreadRef t) const {
    return (!block || t.block == *block) && (!warp || t.warp() == *warp);
  }
  bool empty() const { return !block && !warp; }
};

struct CoverageStats {
  std::uint64_t never = 0, once = 0, several = 0;
  std::uint32_t max_count = 0;
};
CoverageStats coverage_stats(const KernelRun& run);

// The colour of element `index` (anomalies win over the mode's colour).
Rgba cell_colour(const KernelRun& run, std::uint64_t index, ColourBy mode, const Selection& sel);

// The colour the legend shows for block/warp id or thread index.
Rgba legend_colour(const KernelRun& run, ColourBy mode, std::uint64_t id);
// How many entries the legend has in this mode (blocks, warps per block, threads per block).
std::uint64_t legend_entries(const KernelRun& run, ColourBy mode);

// Distinct colours of written-once elements in block mode: the number of
// blocks that wrote something, while there are at most kCategoricalColours blocks.
std::size_t distinct_block_colours(const KernelRun& run);

// Tiles of 2^level x 2^level elements for drawing zoomed-out views of big
// tensors: each tile knows whether it holds an element written 0 or 2+ times,
// so anomalies stay visible however far one zooms out.
class CoveragePyramid {
 public:
  enum Flags : std::uint8_t { kNever = 1, kSeveral = 2 };
  explicit CoveragePyramid(const KernelRun& run);
  int levels() const { return static_cast<int>(levels_.size()); }
  std::uint64_t rows(int level) const { return levels_[level].rows; }
  std::uint64_t cols(int level) const { return levels_[level].cols; }
  std::uint8_t flags(int level, std::uint64_t row, std::uint64_t col) const;

 private:
  struct Level {
    std::uint64_t rows, cols;
    std::vector<std::uint8_t> flags;
  };
  std::vector<Level> levels_;
};

// The coarsest detail that still gives each drawn tile >= min_px pixels:
// level 0 draws single elements.
int level_for_zoom(double pixels_per_element, double min_px = 3.0);

// The colour of a tile at `level`: its top-left element's colour unless the
// tile holds an anomaly (2+ writes beat 0 writes).
Rgba tile_colour(const KernelRun& run, const CoveragePyramid& pyramid, int level,
                 std::uint64_t tile_row, std::uint64_t tile_col, ColourBy mode,
                 const Selection& sel);

// Pan and zoom of the tensor inside the panel's canvas, in pixels.
struct GridView {
  double pixels_per_element = 8.0;
  double origin_x = 0.0, origin_y = 0.0;  // canvas pixel of element (0, 0)'s corner
};
GridView fit_view(std::uint64_t rows, std::uint64_t cols, double width, double height);
// Zooms by `factor` keeping the element under canvas point (x, y) in place.
void zoom_at(GridView& view, double factor, double x, double y);

// Half-open ranges of tiles at `level` that intersect a width x height canvas.
struct TileRange {
  std::uint64_t row_begin = 0, row_end = 0, col_begin = 0, col_end = 0;
};
TileRange visible_tiles(const GridView& view, const CoveragePyramid& pyramid, int level,
                        double width, double height);

// The element under canvas point (x, y), if any.
std::optional<std::uint64_t> element_at(const KernelRun& run, const GridView& view, double x,
                                        double y);

// "element (3, 17) written 2 times: block (0,1,0) thread (5,0,0) warp 0 lane 5, ..."
std::string describe_element(const KernelRun& run, std::uint64_t index);
std::string describe_thread(const KernelRun& run, ThreadRef t);

}  // namespace cudalab::viewer
