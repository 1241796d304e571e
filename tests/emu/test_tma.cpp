// TMA: the same kernels on the emulator (Emu/...) and on the GPU (Gpu/...,
// skipped without an sm_90 GPU) give the same bytes. The layout tests
// compare the raw shared box with the one computed on the host by
// cudalab::tma_swizzled_address, the function the emulator places bytes
// with; on the emulator the planted bugs are reported in words.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "both_backends.hpp"
#include "cudalab/cuda_error.hpp"
#include "cudalab/emu/recorder.hpp"
#include "cudalab/tma_swizzle.hpp"
#include "tma.hpp"

namespace tma_tests {
namespace {

using emu_tests::OnBothBackends;
class Tma : public OnBothBackends<Kernels, emulator_kernels, gpu_kernels, gpu_unavailable_reason> {
};
EMU_TESTS_ON_BOTH_BACKENDS(Tma);

// Dense rows, each padded to a multiple of 16 bytes as TMA's strides must be.
Tensor tensor(CUtensorMapDataType type, unsigned element_bytes, std::vector<std::uint64_t> dims,
              std::vector<std::uint32_t> box,
              CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE) {
  Tensor t;
  t.type = type;
  t.element_bytes = element_bytes;
  t.dims = std::move(dims);
  t.box = std::move(box);
  t.swizzle = swizzle;
  std::uint64_t stride = (t.dims[0] * element_bytes + 15) / 16 * 16;
  for (std::size_t i = 1; i < t.dims.size(); ++i) {
    t.strides.push_back(stride);
    stride *= t.dims[i];
  }
  return t;
}

std::size_t element_offset(const Tensor& t, const std::vector<std::uint64_t>& c) {
  std::size_t offset = c[0] * t.element_bytes;
  for (std::size_t i = 1; i < c.size(); ++i) offset += c[i] * t.strides[i - 1];
  return offset;
}

// Calls visit(coordinates) for every element of t, dimension 0 fastest.
template <class Visit>
void for_each_index(const std::vector<std::uint64_t>& extent, Visit visit) {
  std::vector<std::uint64_t> c(extent.size(), 0);
  while (true) {
    visit(c);
    std::size_t i = 0;
    while (i < c.size() && ++c[i] == extent[i]) c[i++] = 0;
    if (i == c.size()) return;
  }
}

// Every element holds its own linear index (as a float for FLOAT32, as raw
// bits otherwise); padding bytes are 0xee.
std::vector<std::uint8_t> numbered(const Tensor& t) {
  std::vector<std::uint8_t> data(t.bytes(), 0xee);
  std::uint32_t index = 0;
  for_each_index(t.dims, [&](const std::vector<std::uint64_t>& c) {
    std::uint8_t* to = data.data() + element_offset(t, c);
    if (t.type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32) {
      const auto value = static_cast<float>(index);
      std::memcpy(to, &value, 4);
    } else {
      std::memcpy(to, &index, t.element_bytes);
    }
    ++index;
  });
  return data;
}

// The box TMA leaves in shared memory (its start 1024-byte aligned, the
// bytes under it 0xab before the copy): each row of the box at
// t.shared_row_bytes() from the last, then swizzled.
std::vector<std::uint8_t> expected_box(const Tensor& t, const std::vector<std::uint8_t>& data,
                                       const Coordinates& at) {
  std::vector<std::uint8_t> box(t.shared_bytes(), 0xab);
  const std::size_t row_bytes = std::size_t{t.box[0]} * t.element_bytes;
  std::size_t offset = 0;
  const std::vector<std::uint64_t> extent(t.box.begin(), t.box.end());
  for_each_index(extent, [&](const std::vector<std::uint64_t>& i) {
    std::vector<std::uint64_t> c(i.size());
    bool inside = true;
    for (std::size_t d = 0; d < i.size(); ++d) {
      const std::int64_t v = at.c[d] + static_cast<std::int64_t>(i[d]);
      inside = inside && v >= 0 && static_cast<std::uint64_t>(v) < t.dims[d];
      c[d] = static_cast<std::uint64_t>(v);
    }
    const std::size_t placed = offset / row_bytes * t.shared_row_bytes() + offset % row_bytes;
    std::uint8_t* to = box.data() + cudalab::tma_swizzled_address(
                                        static_cast<std::uint32_t>(placed), t.swizzle_span());
    if (inside) {
      std::memcpy(to, data.data() + element_offset(t, c), t.element_bytes);
    } else {
      std::memset(to, 0, t.element_bytes);
    }
    offset += t.element_bytes;
  });
  return box;
}

// Which elements of two images of the same bytes differ: their count and the
// first few, by byte offset, with both values in hex (gtest would print only
// the first 32 bytes of each, which usually agree).
std::string differences(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want,
                        unsigned element_bytes) {
  if (got.size() != want.size()) {
    return std::to_string(got.size()) + " bytes, expected " + std::to_string(want.size());
  }
  std::ostringstream out;
  std::size_t count = 0;
  for (std::size_t at = 0; at < got.size(); at += element_bytes) {
    if (std::memcmp(got.data() + at, want.data() + at, element_bytes) == 0) continue;
    if (++count > 8) continue;
    std::uint32_t g = 0, w = 0;
    std::memcpy(&g, got.data() + at, element_bytes);
    std::memcpy(&w, want.data() + at, element_bytes);
    out << "\n  byte " << at << ": 0x" << std::hex << g << ", expected 0x" << w << std::dec;
  }
  return std::to_string(count) + " of " + std::to_string(got.size() / element_bytes) +
         " elements differ" + out.str();
}

std::string describe(const Tensor& t, const Coordinates& at) {
  std::ostringstream out;
  out << "rank " << t.dims.size() << ", dims";
  for (std::uint64_t d : t.dims) out << " " << d;
  out << ", box";
  for (std::uint32_t b : t.box) out << " " << b;
  out << ", swizzle " << static_cast<int>(t.swizzle) << ", at";
  for (std::size_t d = 0; d < t.dims.size(); ++d) out << " " << at.c[d];
  return out.str();
}

// A GPU fault ends the process's CUDA context: the case that caused it is
// named and the test stops there.
void expect_layout(const Kernels& k, const Tensor& t, const Coordinates& at) {
  const std::vector<std::uint8_t> data = numbered(t);
  std::vector<std::uint8_t> got;
  try {
    got = k.dump_box(t, data, at);
  } catch (const std::exception& e) {
    FAIL() << describe(t, at) << ": " << e.what();
  }
  const std::vector<std::uint8_t> want = expected_box(t, data, at);
  EXPECT_TRUE(got == want) << describe(t, at) << ": " << differences(got, want, t.element_bytes);
}

constexpr auto f32 = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
constexpr auto f16 = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;

// 37 x 53 elements (rows padded to 16 bytes); boxes whose rows span the
// whole swizzle span, fp32 and fp16, inside the matrix or over its edges.
// One test per swizzle mode and position, so that a GPU fault (which ends
// the process's context) leaves the other cases their say.
void expect_two_dimensional_boxes(const Kernels& k, CUtensorMapSwizzle swizzle, bool over_edges) {
  const unsigned span = swizzle == CU_TENSOR_MAP_SWIZZLE_32B    ? 32
                        : swizzle == CU_TENSOR_MAP_SWIZZLE_64B  ? 64
                        : swizzle == CU_TENSOR_MAP_SWIZZLE_128B ? 128
                                                                : 48;
  for (const unsigned bytes : {4u, 2u}) {
    const Tensor t = tensor(bytes == 4 ? f32 : f16, bytes, {53, 37}, {span / bytes, 16}, swizzle);
    // Dimension-0 coordinates on 16-byte boundaries, as the GPU requires
    // (AMisalignedStartIsReported).
    const std::vector<Coordinates> positions =
        over_edges ? std::vector<Coordinates>{Coordinates{{40, 30}}, Coordinates{{-8, -5}}}
                   : std::vector<Coordinates>{Coordinates{{0, 0}}, Coordinates{{8, 3}}};
    for (const Coordinates& at : positions) {
      expect_layout(k, t, at);
      if (testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST_P(Tma, TwoDimensionalBoxesUnswizzledInside) {
  expect_two_dimensional_boxes(k(), CU_TENSOR_MAP_SWIZZLE_NONE, false);
}
TEST_P(Tma, TwoDimensionalBoxesUnswizzledOverTheEdges) {
  expect_two_dimensional_boxes(k(), CU_TENSOR_MAP_SWIZZLE_NONE, true);
}
TEST_P(Tma, TwoDimensionalBoxesSwizzled32Inside) {
  expect_two_dimensional_boxes(k(), CU_TENSOR_MAP_SWIZZLE_32B, false);
}
TEST_P(Tma, TwoDimensionalBoxesSwizzled32OverTheEdges) {
  expect_two_dimensional_boxes(k(), CU_TENSOR_MAP_SWIZZLE_32B, true);
}
TEST_P(Tma, TwoDimensionalBoxesSwizzled64Inside) {
  expect_two_dimensional_boxes(k(), CU_TENSOR_MAP_SWIZZLE_64B, false);
}
TEST_P(Tma, TwoDimensionalBoxesSwizzled64OverTheEdges) {
  expect_two_dimensional_boxes(k(), CU_TENSOR_MAP_SWIZZLE_64B, true);
}
TEST_P(Tma, TwoDimensionalBoxesSwizzled128Inside) {
  expect_two_dimensional_boxes(k(), CU_TENSOR_MAP_SWIZZLE_128B, false);
}
TEST_P(Tma, TwoDimensionalBoxesSwizzled128OverTheEdges) {
  expect_two_dimensional_boxes(k(), CU_TENSOR_MAP_SWIZZLE_128B, true);
}

TEST_P(Tma, OneDimensionalBoxes) {
  expect_layout(k(), tensor(f32, 4, {100}, {64}), Coordinates{{-8}});
  expect_layout(k(), tensor(f32, 4, {100}, {64}), Coordinates{{60}});
}

TEST_P(Tma, ThreeDimensionalBoxes) {
  expect_layout(k(), tensor(f32, 4, {20, 7, 5}, {8, 4, 3}, CU_TENSOR_MAP_SWIZZLE_32B),
                Coordinates{{16, 5, 3}});
  expect_layout(k(), tensor(f16, 2, {29, 7, 5}, {32, 4, 3}, CU_TENSOR_MAP_SWIZZLE_64B),
                Coordinates{{0, 1, -1}});
}

TEST_P(Tma, FiveDimensionalBoxes) {
  expect_layout(k(), tensor(f32, 4, {8, 3, 3, 2, 3}, {4, 2, 2, 2, 2}),
                Coordinates{{4, 2, 1, 1, 2}});
  expect_layout(k(),
                tensor(CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, {37, 3, 2, 2, 3}, {32, 2, 2, 1, 2},
                       CU_TENSOR_MAP_SWIZZLE_32B),
                Coordinates{{16, 1, 0, 1, 2}});
}

// Rows narrower than the span: 64-byte rows under the 128-byte swizzle. Each
// row takes the whole span in shared memory, its last 64 bytes left as they
// were (0xab here), then the span's chunks are swizzled: what an H100 did
// (2026-12-07), where the dense layout failed.
TEST_P(Tma, RowsNarrowerThanTheSwizzleSpan) {
  expect_layout(k(), tensor(f32, 4, {53, 37}, {16, 16}, CU_TENSOR_MAP_SWIZZLE_128B),
                Coordinates{{8, 4}});
  expect_layout(k(), tensor(f16, 2, {53, 37}, {8, 8}, CU_TENSOR_MAP_SWIZZLE_64B),
                Coordinates{{16, 30}});
}

TEST_P(Tma, OutOfBoundsElementsFillWithNanOnRequest) {
  Tensor t = tensor(f32, 4, {20, 10}, {16, 8});
  t.fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
  const std::vector<std::uint8_t> data = numbered(t);
  const std::vector<std::uint8_t> box = k().dump_box(t, data, Coordinates{{12, 5}});
  for (std::uint32_t row = 0; row < 8; ++row) {
    for (std::uint32_t col = 0; col < 16; ++col) {
      float value;
      std::memcpy(&value, box.data() + (row * 16 + col) * 4, 4);
      const bool inside = 12 + col < 20 && 5 + row < 10;
      if (inside) {
        EXPECT_EQ(value, static_cast<float>((5 + row) * 20 + 12 + col)) << row << ", " << col;
      } else {
        EXPECT_TRUE(std::isnan(value)) << row << ", " << col << ": " << value;
      }
    }
  }
}

// The stores write every element inside the tensor and, as an H100 does
// (2026-12-07), the elements past the end of a row that share its last 16
// bytes (zeros loaded there, so 1.0f for fp32, 0 for fp16); the rest of the
// row padding keeps its 0xff.
std::vector<std::uint8_t> expected_update(const Tensor& t, const std::vector<std::uint8_t>& in) {
  std::vector<std::uint8_t> out(in.size(), 0xff);
  std::vector<std::uint64_t> stored = t.dims;
  stored[0] = (t.dims[0] * t.element_bytes + 15) / 16 * 16 / t.element_bytes;
  for_each_index(stored, [&](const std::vector<std::uint64_t>& c) {
    if (c[0] >= t.dims[0]) {
      const float one = 1.0f;
      const std::uint16_t zero = 0;
      std::memcpy(out.data() + element_offset(t, c),
                  t.type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 ? static_cast<const void*>(&one)
                                                            : static_cast<const void*>(&zero),
                  t.element_bytes);
      return;
    }
    const std::size_t at = element_offset(t, c);
    if (t.type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32) {
      float v;
      std::memcpy(&v, in.data() + at, 4);
      v = 2.0f * v + 1.0f;
      std::memcpy(out.data() + at, &v, 4);
    } else {
      std::memcpy(out.data() + at, in.data() + at, t.element_bytes);
    }
  });
  return out;
}

TEST_P(Tma, TiledLoadUpdateStoreSkipsOutOfBoundsElements) {
  // Prime shapes: the last tiles hang over the right and bottom edges, and
  // the stores must leave the row padding (0xff) untouched. Narrow rows are
  // stored from the padded layout their loads make (an H100, 2026-12-07).
  for (const Tensor& t : {tensor(f32, 4, {53, 37}, {32, 8}, CU_TENSOR_MAP_SWIZZLE_128B),
                          tensor(f32, 4, {29, 41}, {16, 16}, CU_TENSOR_MAP_SWIZZLE_64B),
                          tensor(f16, 2, {131, 17}, {64, 4}, CU_TENSOR_MAP_SWIZZLE_128B),
                          tensor(f16, 2, {67, 13}, {8, 8}, CU_TENSOR_MAP_SWIZZLE_NONE),
                          // Rows narrower than the swizzle span, padded to it in
                          // shared memory: the store reads them back from there.
                          tensor(f32, 4, {53, 37}, {16, 8}, CU_TENSOR_MAP_SWIZZLE_128B),
                          tensor(f16, 2, {29, 11}, {8, 4}, CU_TENSOR_MAP_SWIZZLE_64B)}) {
    const std::vector<std::uint8_t> in = numbered(t);
    const std::vector<std::uint8_t> want = expected_update(t, in);
    std::vector<std::uint8_t> got;
    try {
      got = k().tiled_update(t, in);
    } catch (const std::exception& e) {
      FAIL() << describe(t, {}) << ": " << e.what();
    }
    EXPECT_TRUE(got == want) << describe(t, {}) << ": " << differences(got, want, t.element_bytes);
  }
}

TEST(TmaEmu, TheLoadIsTracedAsTheIssuingThreadsGlobalReads) {
  const PlantedReport r = emulator_report(Planted::none);
  EXPECT_EQ(r.reports, "");
  // 8 rows of 128 bytes: 4 sectors each, in 16-byte pieces.
  EXPECT_EQ(r.load_sectors, 64u);
  EXPECT_EQ(r.load_requests, 64u);
}

// A Recording keeps each bulk tensor copy's box, swizzle and sectors (what
// the viewer's swizzle view draws), loads and stores, by block: the tiled
// update of a 29 x 41 fp32 tensor in 16 x 16 boxes is 2 x 3 blocks of one
// load and one store each.
TEST(TmaEmu, TheRecordingKeepsEachCopysBoxSwizzleAndSectors) {
  const Tensor t = tensor(f32, 4, {29, 41}, {16, 16}, CU_TENSOR_MAP_SWIZZLE_64B);
  cudalab::emu::Recording rec;
  emulator_kernels().tiled_update(t, numbered(t));
  const auto& copies = rec.launches().front().tma_copies;
  ASSERT_EQ(copies.size(), 12u);
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const cudalab::emu::TmaCopyRecord& c = copies[i];
    EXPECT_EQ(c.block, i / 2);
    EXPECT_EQ(c.is_store, i % 2 == 1);
    EXPECT_EQ(c.rank, 2u);
    EXPECT_EQ(c.box[0], 16u);
    EXPECT_EQ(c.box[1], 16u);
    EXPECT_EQ(c.element_bytes, 4u);
    EXPECT_EQ(c.swizzle_bytes, 64u);
    EXPECT_EQ(c.shared_offset % 1024, 0u);
    EXPECT_TRUE(std::is_sorted(c.global_sectors.begin(), c.global_sectors.end()));
  }
  // Block 0's box lies inside the tensor: 16 rows of 64 bytes, 2 sectors
  // each where a row starts on a sector (the padded stride is 128 bytes).
  EXPECT_EQ(copies[0].coordinates[0], 0);
  EXPECT_EQ(copies[0].global_sectors.size(), 32u);
  // Block 1 (x = 16) holds 13 columns of 52 bytes: only the sectors inside.
  EXPECT_EQ(copies[2].coordinates[0], 16);
  EXPECT_EQ(copies[2].global_sectors.size(), 32u);
  const nlohmann::json doc = cudalab::emu::to_json(rec.launches().front());
  ASSERT_TRUE(doc.contains("tma_copies"));
  EXPECT_EQ(doc["tma_copies"][0]["box"], nlohmann::json::array({16, 16}));
  EXPECT_EQ(doc["tma_copies"][1]["direction"], "store");
}

TEST(TmaEmu, AReadBeforeTheWaitIsARaceWithTheCopy) {
  const PlantedReport r = emulator_report(Planted::read_before_wait);
  EXPECT_NE(r.reports.find("intra_block_race: Read of 1 bytes of shared memory"), std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("bytes an async copy has not completed"), std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("tma.cuh:"), std::string::npos) << r.reports;
}

TEST(TmaEmu, ExpectTxBytesThatNeverComeAreAHangReportedInWords) {
  const PlantedReport r = emulator_report(Planted::wrong_expect_tx);
  EXPECT_TRUE(r.failed_launch);
  EXPECT_NE(r.reports.find("expect_tx announced 1040 transaction bytes of which 1024 completed "
                           "(16 never come)"),
            std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("would hang"), std::string::npos) << r.reports;
}

TEST(TmaEmu, AMisalignedSharedBoxIsReported) {
  const PlantedReport r = emulator_report(Planted::misaligned_box);
  EXPECT_TRUE(r.failed_launch);
  EXPECT_NE(r.reports.find("misaligned_address: cp.async.bulk.tensor (load) with its shared-memory "
                           "box at"),
            std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("not 128-byte aligned"), std::string::npos) << r.reports;
}

TEST(TmaEmu, AMisalignedStartIsReported) {
  const PlantedReport r = emulator_report(Planted::misaligned_start);
  EXPECT_TRUE(r.failed_launch);
  EXPECT_NE(r.reports.find("misaligned_address: cp.async.bulk.tensor (load) at dimension-0 "
                           "coordinate 33: 33 x 4 bytes is not a multiple of 16"),
            std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("start boxes at multiples of 4 elements"), std::string::npos)
      << r.reports;
}

TEST(TmaEmu, AMapTheEncoderDidNotMakeIsReported) {
  const PlantedReport r = emulator_report(Planted::garbage_map);
  EXPECT_TRUE(r.failed_launch);
  EXPECT_NE(r.reports.find("tensor_map: cp.async.bulk.tensor (load) with the CUtensorMap at"),
            std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("which cuTensorMapEncodeTiled did not make"), std::string::npos)
      << r.reports;
}

TEST(TmaEmu, ALoadOfAnotherRankThanTheMapIsReported) {
  const PlantedReport r = emulator_report(Planted::wrong_rank);
  EXPECT_TRUE(r.failed_launch);
  EXPECT_NE(r.reports.find("of a 3-D box with a tensor map of rank 2"), std::string::npos)
      << r.reports;
}

TEST(TmaEmu, TheDriverEntryPointsGiveTheEncoderAsCudaCodeAsksForIt) {
  const EntryPoints e = emulator_entry_points();
  EXPECT_TRUE(e.encode_found);
  EXPECT_EQ(e.encode_result, CUDA_SUCCESS);
  EXPECT_TRUE(e.other_is_null_and_not_found);
  EXPECT_TRUE(e.old_version_not_sufficient);
}

// The encoder's checks, each naming the argument (through make_tensor_map,
// whose CudaError carries the emulator's reason).
std::string encode_error(const Tensor& t, const void* base) {
  try {
    (void)emulator_encode(t, base);
  } catch (const cudalab::CudaError& e) {
    return e.what();
  }
  return "";
}

TEST(TmaEmu, BadTensorMapArgumentsAreRefusedNamingTheArgument) {
  alignas(16) static std::uint8_t memory[4096];
  Tensor t = tensor(f32, 4, {53, 8}, {32, 8}, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(encode_error(t, memory), "");
  Tensor unpadded = t;
  unpadded.strides = {53 * 4};
  EXPECT_NE(
      encode_error(unpadded, memory).find("globalStrides[0] = 212 bytes is not a multiple of 16"),
      std::string::npos)
      << encode_error(unpadded, memory);
  Tensor wide = t;
  wide.box = {64, 8};
  EXPECT_NE(encode_error(wide, memory).find("256 bytes, more than the 128-byte swizzle span"),
            std::string::npos)
      << encode_error(wide, memory);
  Tensor tall = t;
  tall.box = {32, 300};
  EXPECT_NE(encode_error(tall, memory).find("boxDim[1] = 300 is not 1 to 256"), std::string::npos)
      << encode_error(tall, memory);
  Tensor narrow = tensor(f16, 2, {53, 8}, {4, 8});
  EXPECT_NE(encode_error(narrow, memory).find("8 bytes, not a multiple of 16"), std::string::npos)
      << encode_error(narrow, memory);
  EXPECT_NE(encode_error(t, memory + 8).find("is not 16-byte aligned"), std::string::npos)
      << encode_error(t, memory + 8);
  Tensor int_nan = tensor(CU_TENSOR_MAP_DATA_TYPE_INT32, 4, {53, 8}, {32, 8});
  int_nan.fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
  EXPECT_NE(encode_error(int_nan, memory).find("needs a floating-point tensorDataType"),
            std::string::npos)
      << encode_error(int_nan, memory);
}

}  // namespace
}  // namespace tma_tests
