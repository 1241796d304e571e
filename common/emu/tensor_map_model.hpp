// Internal: what the emulator keeps inside a CUtensorMap (tensor_map.cpp
// writes it, tma_copies.cpp reads it).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <type_traits>

namespace cudalab::emu::detail {

constexpr std::uint32_t kTensorMapMagic = 0x544d4150;  // "TMAP"
constexpr int kMaxTensorRank = 5;

// Trivial, so that it is copied in and out of a CUtensorMap with memcpy.
struct TensorMapDescription {
  std::uint32_t magic;
  std::uint8_t rank;
  std::uint8_t element_bytes;
  std::uint8_t swizzle_span;  // bytes: 0, 32, 64 or 128
  bool fill_nan;              // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
  std::uint32_t data_type;    // CUtensorMapDataType
  std::uint64_t global_address;
  std::uint64_t dims[kMaxTensorRank];
  std::uint64_t strides[kMaxTensorRank];  // bytes; strides[0] is the element's size
  std::uint16_t box[kMaxTensorRank];
  std::uint8_t element_strides[kMaxTensorRank];  // [0] is always 1 (TMA ignores it)
};
static_assert(std::is_trivial_v<TensorMapDescription>);
static_assert(sizeof(TensorMapDescription) <= sizeof(CUtensorMap));
static_assert(alignof(TensorMapDescription) <= alignof(CUtensorMap));

}  // namespace cudalab::emu::detail
