// cuTensorMapEncodeTiled on the emulator, and the runtime's door to it:
// cudaGetDriverEntryPoint and cudaGetDriverEntryPointByVersion, which CUDA
// code uses to reach driver functions without linking libcuda. The encoder
// refuses what the driver's documentation refuses, naming the argument; the
// description it stores (tensor_map_model.hpp) is what tma_copies.cpp reads.
#include <cuda_runtime_api.h>

#include <cstring>
#include <sstream>
#include <string>

#include "cudalab/emu/runtime.hpp"
#include "cudalab/emu/tma.hpp"
#include "tensor_map_model.hpp"

namespace cudalab::emu {
namespace {

thread_local std::string last_error;

int element_bytes(CUtensorMapDataType type) {
  switch (type) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8:
      return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
      return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32:
    case CU_TENSOR_MAP_DATA_TYPE_INT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
      return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
      return 8;
    default:
      return 0;  // the packed 4- and 6-bit types, or no type at all
  }
}

bool is_floating_point(CUtensorMapDataType type) {
  return type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16 || type == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 ||
         type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 || type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ ||
         type == CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 || type == CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ ||
         type == CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
}

unsigned swizzle_span(CUtensorMapSwizzle swizzle) {
  switch (swizzle) {
    case CU_TENSOR_MAP_SWIZZLE_32B:
      return 32;
    case CU_TENSOR_MAP_SWIZZLE_64B:
      return 64;
    case CU_TENSOR_MAP_SWIZZLE_128B:
      return 128;
    default:
      return 0;
  }
}

CUresult invalid(const std::string& why) {
  last_error = "cuTensorMapEncodeTiled: " + why;
  return CUDA_ERROR_INVALID_VALUE;
}

}  // namespace

const std::string& last_tensor_map_error() { return last_error; }

CUresult CUDAAPI tensor_map_encode_tiled(
    CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
    void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
    const cuuint32_t* boxDim, const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill) {
  last_error.clear();
  std::ostringstream why;
  if (!tensorMap || reinterpret_cast<std::uintptr_t>(tensorMap) % 64 != 0) {
    return invalid("tensorMap must point to a 64-byte aligned CUtensorMap");
  }
  const int bytes = element_bytes(tensorDataType);
  if (bytes == 0) {
    why << "tensorDataType " << static_cast<int>(tensorDataType)
        << " is not one of the 1- to 8-byte types (the packed 4- and 6-bit types are not "
           "modelled by the cudalab emulator)";
    return invalid(why.str());
  }
  if (tensorRank < 1 || tensorRank > detail::kMaxTensorRank) {
    why << "tensorRank " << tensorRank << " is not 1 to 5";
    return invalid(why.str());
  }
  if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE) {
    return invalid("interleave: only CU_TENSOR_MAP_INTERLEAVE_NONE is modelled by the emulator");
  }
  const unsigned span = swizzle_span(swizzle);
  if (swizzle != CU_TENSOR_MAP_SWIZZLE_NONE && span == 0) {
    why << "swizzle " << static_cast<int>(swizzle)
        << " is not NONE, 32B, 64B or 128B (the 128B_ATOM modes of newer GPUs are not modelled "
           "by the cudalab emulator)";
    return invalid(why.str());
  }
  if (static_cast<unsigned>(l2Promotion) > CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
    why << "l2Promotion " << static_cast<int>(l2Promotion) << " is not a CUtensorMapL2promotion";
    return invalid(why.str());
  }
  if (oobFill != CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE &&
      oobFill != CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) {
    why << "oobFill " << static_cast<int>(oobFill) << " is not a CUtensorMapFloatOOBfill";
    return invalid(why.str());
  }
  if (oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA &&
      !is_floating_point(tensorDataType)) {
    return invalid("oobFill NAN_REQUEST_ZERO_FMA needs a floating-point tensorDataType");
  }
  if (reinterpret_cast<std::uintptr_t>(globalAddress) % 16 != 0) {
    why << "globalAddress " << globalAddress << " is not 16-byte aligned";
    return invalid(why.str());
  }
  if (!globalDim || !boxDim || !elementStrides || (tensorRank > 1 && !globalStrides)) {
    return invalid(
        "globalDim, boxDim and elementStrides (and globalStrides for a rank above 1) "
        "must not be null");
  }
  detail::TensorMapDescription d{};
  d.magic = detail::kTensorMapMagic;
  d.rank = static_cast<std::uint8_t>(tensorRank);
  d.element_bytes = static_cast<std::uint8_t>(bytes);
  d.swizzle_span = static_cast<std::uint8_t>(span);
  d.fill_nan = oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
  d.data_type = static_cast<std::uint32_t>(tensorDataType);
  d.global_address = reinterpret_cast<std::uintptr_t>(globalAddress);
  d.strides[0] = static_cast<std::uint64_t>(bytes);
  for (cuuint32_t i = 0; i < tensorRank; ++i) {
    if (globalDim[i] == 0 || globalDim[i] > (std::uint64_t{1} << 32)) {
      why << "globalDim[" << i << "] = " << globalDim[i] << " is not 1 to 2^32";
      return invalid(why.str());
    }
    if (boxDim[i] == 0 || boxDim[i] > 256) {
      why << "boxDim[" << i << "] = " << boxDim[i] << " is not 1 to 256";
      return invalid(why.str());
    }
    if (elementStrides[i] == 0 || elementStrides[i] > 8) {
      why << "elementStrides[" << i << "] = " << elementStrides[i] << " is not 1 to 8";
      return invalid(why.str());
    }
    if (i > 0) {
      const cuuint64_t stride = globalStrides[i - 1];
      if (stride % 16 != 0 || stride >= (std::uint64_t{1} << 40)) {
        why << "globalStrides[" << i - 1 << "] = " << stride
            << " bytes is not a multiple of 16 below 2^40";
        return invalid(why.str());
      }
      d.strides[i] = stride;
    }
    d.dims[i] = globalDim[i];
    d.box[i] = static_cast<std::uint16_t>(boxDim[i]);
    // TMA has no stride along dimension 0: the documentation says it is ignored.
    d.element_strides[i] = static_cast<std::uint8_t>(i == 0 ? 1 : elementStrides[i]);
  }
  const std::uint64_t inner_bytes = std::uint64_t{boxDim[0]} * bytes;
  if (inner_bytes % 16 != 0) {
    why << "boxDim[0] = " << boxDim[0] << " elements of " << bytes << " bytes make " << inner_bytes
        << " bytes, not a multiple of 16";
    return invalid(why.str());
  }
  if (span != 0 && inner_bytes > span) {
    why << "boxDim[0] = " << boxDim[0] << " elements of " << bytes << " bytes make " << inner_bytes
        << " bytes, more than the " << span << "-byte swizzle span";
    return invalid(why.str());
  }
  std::memset(tensorMap, 0, sizeof *tensorMap);
  std::memcpy(tensorMap, &d, sizeof d);
  return CUDA_SUCCESS;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr,
                                             unsigned int cudaVersion, unsigned long long flags,
                                             cudaDriverEntryPointQueryResult* driverStatus) {
  if (!symbol || !funcPtr) return cudaErrorInvalidValue;
  if (flags > cudaEnablePerThreadDefaultStream) return cudaErrorInvalidValue;
  *funcPtr = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  // The only driver function the emulator has: cuTensorMapEncodeTiled, since CUDA 12.0.
  if (std::strcmp(symbol, "cuTensorMapEncodeTiled") == 0) {
    if (cudaVersion >= 12000) {
      *funcPtr = reinterpret_cast<void*>(&tensor_map_encode_tiled);
      status = cudaDriverEntryPointSuccess;
    } else {
      status = cudaDriverEntryPointVersionNotSufficent;
    }
  }
  if (driverStatus) *driverStatus = status;
  return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** funcPtr, unsigned long long flags,
                                    cudaDriverEntryPointQueryResult* driverStatus) {
  return emu::cudaGetDriverEntryPointByVersion(symbol, funcPtr, CUDART_VERSION, flags,
                                               driverStatus);
}

}  // namespace cudalab::emu
