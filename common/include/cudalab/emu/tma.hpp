// The emulator's Tensor Memory Accelerator (common/emu/tensor_map.cpp,
// common/emu/tma_copies.cpp). Host code reaches the encoder as CUDA code
// does, through cudaGetDriverEntryPoint("cuTensorMapEncodeTiled"); kernels
// reach the copies through cudalab/tma.hpp, never directly.
//
// A CUtensorMap is 128 opaque bytes on the GPU; here it holds the emulator's
// own description of the tensor and box behind a magic number, so that a
// map the encoder did not make (uninitialised, overwritten) is reported at
// the copy instead of read as garbage.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <source_location>
#include <string>

namespace cudalab::emu {

// cuTensorMapEncodeTiled, checking every argument as the driver's
// documentation states (CUDA_ERROR_INVALID_VALUE otherwise, and
// last_tensor_map_error() says which argument and why).
CUresult CUDAAPI tensor_map_encode_tiled(
    CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
    void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
    const cuuint32_t* boxDim, const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill);

// Why this host thread's last tensor_map_encode_tiled failed ("" if it did not).
const std::string& last_tensor_map_error();

// cp.async.bulk.tensor.<rank>d.shared::cluster.global.mbarrier::complete_tx::bytes:
// the box at `coordinates` (rank of them, dimension 0 first) of `map`'s
// tensor to `destination` in shared memory, completing the box's bytes on
// `barrier` and landing late as cp.async.bulk does (cudalab/emu/mbarrier.hpp).
// Accesses are checked and traced as the issuing thread's at `pc`.
void tensor_load(void* destination, const CUtensorMap* map, int rank, const int* coordinates,
                 std::uint64_t* barrier, const void* pc, const std::source_location& site);

// The same with .multicast::cluster: the box lands at `destination`'s
// shared offset in every block of the cluster whose rank has its bit set in
// `cta_mask`, completing its bytes on the mbarrier at `barrier`'s offset in
// that block.
void tensor_load_multicast(void* destination, const CUtensorMap* map, int rank,
                           const int* coordinates, std::uint64_t* barrier, std::uint16_t cta_mask,
                           const void* pc, const std::source_location& site);

// cp.async.bulk.tensor.<rank>d.global.shared::cta.bulk_group: the box in
// shared memory at `source` to the tensor at `coordinates`, its
// out-of-bounds elements skipped. Done when issued (see docs/emulator.md).
void tensor_store(const CUtensorMap* map, int rank, const int* coordinates, const void* source,
                  const void* pc, const std::source_location& site);

}  // namespace cudalab::emu
