//===- DriverAbiTest.cpp - tile's driver declarations vs the vendors' -----===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// lib/Runtime declares the CUDA driver API and HIP's module API itself, so
// that no build needs a toolkit. Where cuda.h or hip_runtime_api.h is found
// at build time this test compares the declarations with them: every
// constant's value, the layout of every struct tile fills, and for every
// entry point the symbol the header's macros select and the shape of its
// parameters (count, sizes, pointer or not).
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"

#include <cstddef>
#include <type_traits>
#include <vector>

namespace {

#define TILE_STRINGIFY_(x) #x
#define TILE_STRINGIFY(x) TILE_STRINGIFY_(x)

/// A parameter's shape: its size, and whether it is a pointer.
struct ParameterShape {
  size_t size;
  bool pointer;
  bool operator==(const ParameterShape &other) const {
    return size == other.size && pointer == other.pointer;
  }
};

template <typename T> ParameterShape shapeOf() {
  return {sizeof(T), std::is_pointer_v<T>};
}

/// The shapes of a function type's result and parameters.
template <typename R, typename... A>
std::vector<ParameterShape> signatureOf(R (*)(A...)) {
  return {shapeOf<R>(), shapeOf<A>()...};
}

} // namespace

#ifdef TILE_CHECK_CUDA_ABI
#include "../../lib/Runtime/CUDA/CudaDriver.h"

#include <cuda.h>

namespace tc = mlir::tile::runtime::cuda;

static_assert(tc::kSuccess == CUDA_SUCCESS);
static_assert(tc::kErrorInvalidHandle == CUDA_ERROR_INVALID_HANDLE);
static_assert(tc::kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(tc::kEventDefault == CU_EVENT_DEFAULT);
static_assert(tc::kEventDisableTiming == CU_EVENT_DISABLE_TIMING);
static_assert(tc::kJitOptimizationLevel == CU_JIT_OPTIMIZATION_LEVEL);
static_assert(tc::kMaxDynamicSharedSizeBytes ==
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(tc::kLaunchAttributeClusterDimension ==
              CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
static_assert(tc::kMultiprocessorCount ==
              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(tc::kComputeCapabilityMajor ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(tc::kComputeCapabilityMinor ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(tc::kMaxSharedMemoryPerBlockOptin ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(sizeof(tc::CUdeviceptr) == sizeof(CUdeviceptr));
static_assert(sizeof(tc::CUdevice) == sizeof(CUdevice));
static_assert(sizeof(tc::CUresult) == sizeof(CUresult));
static_assert(sizeof(tc::CUtensorMap) == sizeof(CUtensorMap));
static_assert(alignof(tc::CUtensorMap) <= alignof(CUtensorMap));
static_assert(sizeof(tc::CUlaunchAttribute) == sizeof(CUlaunchAttribute));
static_assert(offsetof(tc::CUlaunchAttribute, value) ==
              offsetof(CUlaunchAttribute, value));
static_assert(offsetof(tc::CUlaunchAttribute, value.clusterDim) ==
              offsetof(CUlaunchAttribute, value.clusterDim));
static_assert(sizeof(tc::CUlaunchConfig) == sizeof(CUlaunchConfig));
static_assert(offsetof(tc::CUlaunchConfig, sharedMemBytes) ==
              offsetof(CUlaunchConfig, sharedMemBytes));
static_assert(offsetof(tc::CUlaunchConfig, hStream) ==
              offsetof(CUlaunchConfig, hStream));
static_assert(offsetof(tc::CUlaunchConfig, attrs) ==
              offsetof(CUlaunchConfig, attrs));
static_assert(offsetof(tc::CUlaunchConfig, numAttrs) ==
              offsetof(CUlaunchConfig, numAttrs));

// Inside tile's namespace, unqualified names are tile's declarations (the
// macro's types); the vendor's functions are the global ones.
namespace mlir::tile::runtime::cuda {
static void checkEntryPoints() {
#define TILE_CHECK(name, symbol, type)                                         \
  EXPECT_STREQ(symbol, TILE_STRINGIFY(name)) << #name;                         \
  EXPECT_EQ(signatureOf(static_cast<type>(nullptr)), signatureOf(&::name))     \
      << #name;
  TILE_CUDA_DRIVER_FUNCTIONS(TILE_CHECK)
#undef TILE_CHECK
}
} // namespace mlir::tile::runtime::cuda

TEST(DriverAbi, CudaEntryPointsMatchCudaH) { tc::checkEntryPoints(); }
#endif

#ifdef TILE_CHECK_HIP_ABI
#include "../../lib/Runtime/ROCm/HipDriver.h"

#include <hip/hip_runtime_api.h>

namespace th = mlir::tile::runtime::hip;

static_assert(th::kSuccess == hipSuccess);
static_assert(th::kErrorInvalidResourceHandle ==
              hipErrorInvalidResourceHandle);
static_assert(th::kErrorNotSupported == hipErrorNotSupported);
static_assert(th::kStreamNonBlocking == hipStreamNonBlocking);
static_assert(th::kEventDefault == hipEventDefault);
static_assert(th::kEventDisableTiming == hipEventDisableTiming);
static_assert(th::kJitOptionOptimizationLevel ==
              hipJitOptionOptimizationLevel);
static_assert(th::kMemcpyDefault == hipMemcpyDefault);
static_assert(sizeof(th::HipDevicePropertiesStorage) >=
              sizeof(hipDeviceProp_t));
static_assert(offsetof(th::HipDeviceProperties, multiProcessorCount) ==
              offsetof(hipDeviceProp_t, multiProcessorCount));
static_assert(offsetof(th::HipDeviceProperties, sharedMemPerBlock) ==
              offsetof(hipDeviceProp_t, sharedMemPerBlock));
static_assert(offsetof(th::HipDeviceProperties, gcnArchName) ==
              offsetof(hipDeviceProp_t, gcnArchName));

namespace mlir::tile::runtime::hip {
static void checkEntryPoints() {
#define TILE_CHECK(name, symbol, type)                                         \
  EXPECT_STREQ(symbol, #name);                                                 \
  EXPECT_EQ(signatureOf(static_cast<type>(nullptr)), signatureOf(&::name))     \
      << #name;
  TILE_HIP_DRIVER_UNOVERLOADED_FUNCTIONS(TILE_CHECK)
#undef TILE_CHECK
  // hipMalloc is overloaded in C++ (a template for typed pointers): the C
  // one.
  ::hipError_t (*hipMallocC)(void **, size_t) = &::hipMalloc;
  EXPECT_EQ(signatureOf(static_cast<hipError_t (*)(void **, size_t)>(nullptr)),
            signatureOf(hipMallocC));
}
} // namespace mlir::tile::runtime::hip

TEST(DriverAbi, HipEntryPointsMatchHipRuntimeApiH) { th::checkEntryPoints(); }
#endif
