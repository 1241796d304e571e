// Reduced-precision numerics, bit-exact, on the host and on the device.
//
//   cudalab/numerics/bits.hpp       float <-> bit pattern, CUDALAB_HOST_DEVICE
//   cudalab/numerics/formats.hpp    fp32 <-> fp16 and bf16 (round to nearest even)
//   cudalab/numerics/tf32.hpp       fp32 -> TF32 toward zero, ties away, nearest even
//   cudalab/numerics/block_fma.hpp  one tensor-core K-block (mma_block_fma), as the H200 does it
//   cudalab/numerics/fp8.hpp        e4m3, e5m2 -> fp32, their K-block (fp8_block_fma)
//   cudalab/numerics/mma_layout.hpp which lane holds which element of an mma.sync fragment
//
// docs/numerics.md explains the formats and the tensor-core model with
// worked examples; tests/numerics checks every function against the GPU.
#pragma once

#include "cudalab/numerics/bits.hpp"
#include "cudalab/numerics/block_fma.hpp"
#include "cudalab/numerics/formats.hpp"
#include "cudalab/numerics/fp8.hpp"
#include "cudalab/numerics/mma_layout.hpp"
#include "cudalab/numerics/tf32.hpp"
