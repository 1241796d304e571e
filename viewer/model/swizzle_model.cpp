#include "swizzle_model.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <stdexcept>

#include "cudalab/tma_swizzle.hpp"

namespace cudalab::viewer {
namespace {

constexpr unsigned kReadRows = 8;       // an ldmatrix matrix: 8 rows ...
constexpr unsigned kReadRowBytes = 16;  // ... of 16 bytes each
constexpr unsigned kBankGroups = kBanks * kBankBytes / kReadRowBytes;  // 8 groups of 4 banks
constexpr unsigned kMostElements = 256;

// A row of the box every max(row bytes, span) bytes: rows narrower than the
// swizzle span are padded to it, as an H100 lays them out (2026-12-07).
std::uint32_t unswizzled(const SwizzleBox& box, unsigned row, unsigned col) {
  const std::uint32_t pitch = std::max(box.cols * box.element_bytes, box.swizzle_bytes);
  return box.shared_offset + row * pitch + col * box.element_bytes;
}

std::uint32_t placed(const SwizzleBox& box, std::uint32_t address) {
  return tma_swizzled_address(address, box.swizzle_bytes);
}

ColumnRead read_of(const SwizzleBox& box, unsigned first_row, unsigned column) {
  std::array<unsigned, kBankGroups> rows_in_group{};
  for (unsigned r = first_row; r < first_row + kReadRows; ++r) {
    const std::uint32_t at = placed(box, unswizzled(box, r, 0) + column * kReadRowBytes);
    ++rows_in_group[(at / kReadRowBytes) % kBankGroups];
  }
  ColumnRead read{first_row, column, 0, 0};
  for (unsigned n : rows_in_group) {
    read.bank_groups += n > 0;
    read.ways = std::max(read.ways, n);
  }
  return read;
}

}  // namespace

SwizzleLayout swizzle_layout(const SwizzleBox& box) {
  const unsigned e = box.element_bytes, span = box.swizzle_bytes;
  if (e != 1 && e != 2 && e != 4 && e != 8)
    throw std::invalid_argument("element size " + std::to_string(e) + ": 1, 2, 4 or 8 bytes");
  if (span != 0 && span != 32 && span != 64 && span != 128)
    throw std::invalid_argument("swizzle " + std::to_string(span) + ": 0, 32, 64 or 128 bytes");
  if (box.rows < 1 || box.cols < 1 || box.rows > kMostElements || box.cols > kMostElements)
    throw std::invalid_argument("a box of " + std::to_string(box.rows) + " x " +
                                std::to_string(box.cols) + ": 1 to 256 elements each way");
  SwizzleLayout out;
  out.box = box;
  out.banks.resize(std::size_t{box.rows} * box.cols);
  for (unsigned r = 0; r < box.rows; ++r)
    for (unsigned c = 0; c < box.cols; ++c)
      out.banks[r * box.cols + c] =
          static_cast<std::uint8_t>(placed(box, unswizzled(box, r, c)) / kBankBytes % kBanks);
  const unsigned row_bytes = box.cols * e;
  for (unsigned r = 0; r + kReadRows <= box.rows; r += kReadRows)
    for (unsigned c = 0; (c + 1) * kReadRowBytes <= row_bytes; ++c)
      out.reads.push_back(read_of(box, r, c));
  double ways = 0;
  for (const ColumnRead& read : out.reads) {
    out.worst_ways = std::max(out.worst_ways, read.ways);
    ways += read.ways;
  }
  if (!out.reads.empty()) out.mean_ways = ways / static_cast<double>(out.reads.size());
  if (span != 0 && row_bytes > span) {
    out.not_on_a_gpu = "a GPU's cuTensorMapEncodeTiled refuses this box: its rows are " +
                       std::to_string(row_bytes) + " bytes, more than the " + std::to_string(span) +
                       "-byte swizzle span";
  }
  return out;
}

Rgba bank_colour(unsigned bank) { return categorical(bank % kBanks); }

std::string describe_element(const SwizzleLayout& layout, unsigned row, unsigned col) {
  const std::uint32_t before = unswizzled(layout.box, row, col);
  const std::uint32_t after = placed(layout.box, before);
  std::ostringstream s;
  s << "element (" << row << ", " << col << "): shared byte " << after;
  if (layout.box.swizzle_bytes != 0)
    s << " (after the " << layout.box.swizzle_bytes << "-B swizzle; " << before << " before)";
  s << ", bank " << layout.bank(row, col) << ", 16-byte column "
    << col * layout.box.element_bytes / kReadRowBytes;
  return s.str();
}

std::string describe_reads(const SwizzleLayout& layout) {
  std::ostringstream s;
  if (layout.reads.empty()) {
    s << "no 8-row read of 16 bytes fits this box (it needs 8 rows of at least 16 bytes)";
    return s.str();
  }
  s << layout.reads.size() << " reads of 8 rows x 16 bytes (as ldmatrix and wgmma read a tile): ";
  if (layout.worst_ways <= 1) {
    s << "every one hits 8 different bank groups, 1 wavefront: no bank conflict";
  } else {
    s << "up to " << layout.worst_ways << "-way bank conflicts (" << layout.mean_ways
      << " wavefronts per read on average, 1 without conflicts)";
  }
  return s.str();
}

}  // namespace cudalab::viewer
