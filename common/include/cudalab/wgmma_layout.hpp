// Where wgmma finds its operands and puts its accumulator, on both backends
// (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate":
// "Matrix Descriptor Format", "Shared Memory Matrix Layout", "Register
// Fragments"). Host and device: kernels place their tiles with it, the
// emulator reads them with it, tests compare with it.
//
// The matrix descriptor, one 64-bit value per operand tile in shared memory:
//   bits  0-13  start address >> 4 (a shared-window address, 16-byte aligned)
//   bits 16-29  leading dimension byte offset (LBO) >> 4
//   bits 32-45  stride dimension byte offset (SBO) >> 4
//   bits 49-51  base offset (0 here: tiles aligned to their swizzle repeat)
//   bits 62-63  swizzle: 0 none, 1 128-byte, 2 64-byte, 3 32-byte
//
// Operands here are K-major (A row-major M x K, B stored as its transpose,
// N x K): one instruction reads 32 bytes of K per row (k16 of fp16/bf16, k8
// of TF32). Rows come in groups of 8, "core matrices":
//   no swizzle: a core matrix is 8 rows of 16 bytes, 128 contiguous bytes;
//               LBO steps to the next 16 bytes of K, SBO to the next 8 rows.
//   swizzled:   rows lie `width` bytes apart (128, 64 or 32) and SBO steps to
//               the next 8 rows (8 * width for a dense tile); LBO is unused;
//               the 16-byte chunk bits 4.. of each address are XORed with
//               bits 7.. (3, 2 or 1 bits), the bank-conflict-free pattern
//               TMA writes. A tile must start at a multiple of 8 * width.
#pragma once

#include <cstdint>

#include "cudalab/numerics/bits.hpp"
#include "cudalab/numerics/mma_layout.hpp"

namespace cudalab {

enum class WgmmaSwizzle : std::uint8_t { none = 0, bytes128 = 1, bytes64 = 2, bytes32 = 3 };

// The row pitch of a swizzled tile (0 for none).
CUDALAB_HOST_DEVICE constexpr std::uint32_t swizzle_width(WgmmaSwizzle swizzle) {
  return swizzle == WgmmaSwizzle::bytes128  ? 128u
         : swizzle == WgmmaSwizzle::bytes64 ? 64u
         : swizzle == WgmmaSwizzle::bytes32 ? 32u
                                            : 0u;
}

struct WgmmaDescriptorFields {
  std::uint32_t start_address = 0;  // bytes, in the shared window
  std::uint32_t leading_byte_offset = 0;
  std::uint32_t stride_byte_offset = 0;
  std::uint32_t base_offset = 0;
  WgmmaSwizzle swizzle = WgmmaSwizzle::none;
};

// The descriptor of a tile at `shared_address` (__cvta_generic_to_shared of
// its first byte). Offsets and the address are multiples of 16; the fields
// keep bits 4-17 of each (the shared window is 256 KiB).
CUDALAB_HOST_DEVICE constexpr std::uint64_t wgmma_descriptor(std::uint32_t shared_address,
                                                             std::uint32_t leading_byte_offset,
                                                             std::uint32_t stride_byte_offset,
                                                             WgmmaSwizzle swizzle) {
  const auto field = [](std::uint32_t bytes) -> std::uint64_t { return (bytes >> 4) & 0x3fffu; };
  return field(shared_address) | field(leading_byte_offset) << 16 |
         field(stride_byte_offset) << 32 | static_cast<std::uint64_t>(swizzle) << 62;
}

CUDALAB_HOST_DEVICE constexpr WgmmaDescriptorFields wgmma_descriptor_fields(std::uint64_t d) {
  WgmmaDescriptorFields f;
  f.start_address = static_cast<std::uint32_t>(d & 0x3fffu) << 4;
  f.leading_byte_offset = static_cast<std::uint32_t>((d >> 16) & 0x3fffu) << 4;
  f.stride_byte_offset = static_cast<std::uint32_t>((d >> 32) & 0x3fffu) << 4;
  f.base_offset = static_cast<std::uint32_t>((d >> 49) & 7u);
  f.swizzle = static_cast<WgmmaSwizzle>(d >> 62);
  return f;
}

// The shared-window address of byte `byte` (0-31: K) of row `row` of a
// K-major operand tile that descriptor `f` describes.
CUDALAB_HOST_DEVICE constexpr std::uint32_t wgmma_k_major_address(const WgmmaDescriptorFields& f,
                                                                  int row, int byte) {
  const auto r = static_cast<std::uint32_t>(row), b = static_cast<std::uint32_t>(byte);
  const std::uint32_t width = swizzle_width(f.swizzle);
  if (width == 0) {
    return f.start_address + (r / 8) * f.stride_byte_offset + (b / 16) * f.leading_byte_offset +
           (r % 8) * 16 + b % 16;
  }
  const std::uint32_t address =
      f.start_address + (r / 8) * f.stride_byte_offset + (r % 8) * width + b;
  const std::uint32_t chunk_mask = width / 16 - 1;  // 7, 3 or 1
  return address ^ (((address >> 7) & chunk_mask) << 4);
}

// Which (row, column) of the 64 x N accumulator element i (0 to N/2 - 1) of
// thread `t` (0-127, its rank in the warpgroup) holds: warp t / 32 holds
// rows 16 (t / 32) to 16 (t / 32) + 15, as an mma.sync m16n8 C fragment
// for each 8 columns (PTX ISA, "Matrix fragments for wgmma .m64nNk16").
CUDALAB_HOST_DEVICE constexpr numerics::MatrixCoord wgmma_accumulator_element(int t, int i) {
  const int lane = t % 32;
  return {16 * (t / 32) + lane / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (lane % 4) + i % 2};
}

}  // namespace cudalab
