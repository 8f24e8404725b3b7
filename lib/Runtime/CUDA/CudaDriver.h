//===- CudaDriver.h - The CUDA driver API as tile calls it ------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The few types, constants and entry points of libcuda that CudaRuntime.cpp
// uses, declared as the driver's ABI defines them (CUDA 12 and 13), so that
// every build has the CUDA runtime without a CUDA toolkit: libcuda is
// opened at run time. Where cuda.h is found at build time,
// unittests/Runtime/DriverAbiTest.cpp checks these declarations against it.
//
// The symbol names are those cuda.h's macros select (cuMemAlloc ->
// cuMemAlloc_v2, ...).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_RUNTIME_CUDA_CUDADRIVER_H
#define TILE_LIB_RUNTIME_CUDA_CUDADRIVER_H

#include <cstddef>
#include <cstdint>

namespace mlir::tile::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using cuuint32_t = uint32_t;
using cuuint64_t = uint64_t;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

// Enumerations travel as int (the C ABI of an enum with small values).
using CUdevice_attribute = int;
using CUfunction_attribute = int;
using CUjit_option = int;
using CUtensorMapDataType = int;
using CUtensorMapInterleave = int;
using CUtensorMapSwizzle = int;
using CUtensorMapL2promotion = int;
using CUtensorMapFloatOOBfill = int;
using CUlaunchAttributeID = int;

inline constexpr CUresult kSuccess = 0;                 // CUDA_SUCCESS
inline constexpr CUresult kErrorInvalidHandle = 400;    // CUDA_ERROR_INVALID_HANDLE
inline constexpr unsigned kStreamNonBlocking = 0x1;     // CU_STREAM_NON_BLOCKING
inline constexpr unsigned kEventDefault = 0x0;          // CU_EVENT_DEFAULT
inline constexpr unsigned kEventDisableTiming = 0x2;    // CU_EVENT_DISABLE_TIMING
inline constexpr CUjit_option kJitOptimizationLevel = 7; // CU_JIT_OPTIMIZATION_LEVEL
inline constexpr CUfunction_attribute kMaxDynamicSharedSizeBytes =
    8; // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
inline constexpr CUlaunchAttributeID kLaunchAttributeClusterDimension =
    4; // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
inline constexpr CUdevice_attribute kMultiprocessorCount = 16;
inline constexpr CUdevice_attribute kComputeCapabilityMajor = 75;
inline constexpr CUdevice_attribute kComputeCapabilityMinor = 76;
inline constexpr CUdevice_attribute kMaxSharedMemoryPerBlockOptin = 97;

/// A tensor map: 128 opaque bytes, 64-byte aligned (CUtensorMap).
struct alignas(64) CUtensorMap {
  cuuint64_t opaque[16];
};

/// A launch attribute's value: a 64-byte union of which tile sets the
/// cluster shape only (CUlaunchAttributeValue).
union CUlaunchAttributeValue {
  char pad[64];
  struct {
    unsigned x, y, z;
  } clusterDim;
};

struct CUlaunchAttribute {
  CUlaunchAttributeID id;
  char pad[8 - sizeof(CUlaunchAttributeID)];
  CUlaunchAttributeValue value;
};

struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};

/// Each entry point: its symbol in libcuda and its type.
#define TILE_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuInit, "cuInit", CUresult (*)(unsigned))                                  \
  X(cuDeviceGet, "cuDeviceGet", CUresult (*)(CUdevice *, int))                 \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult (*)(int *))                 \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute",                              \
    CUresult (*)(int *, CUdevice_attribute, CUdevice))                         \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult (*)(char *, int, CUdevice))   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",                      \
    CUresult (*)(CUcontext *, CUdevice))                                       \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", CUresult (*)(CUcontext *))             \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult (*)(CUcontext))               \
  X(cuGetErrorName, "cuGetErrorName", CUresult (*)(CUresult, const char **))   \
  X(cuGetErrorString, "cuGetErrorString",                                      \
    CUresult (*)(CUresult, const char **))                                     \
  X(cuModuleLoadData, "cuModuleLoadData",                                      \
    CUresult (*)(CUmodule *, const void *))                                    \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                  \
    CUresult (*)(CUmodule *, const void *, unsigned, CUjit_option *,           \
                 void **))                                                     \
  X(cuModuleUnload, "cuModuleUnload", CUresult (*)(CUmodule))                  \
  X(cuModuleGetFunction, "cuModuleGetFunction",                                \
    CUresult (*)(CUfunction *, CUmodule, const char *))                        \
  X(cuFuncSetAttribute, "cuFuncSetAttribute",                                  \
    CUresult (*)(CUfunction, CUfunction_attribute, int))                       \
  X(cuLaunchKernel, "cuLaunchKernel",                                          \
    CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned,           \
                 unsigned, unsigned, unsigned, CUstream, void **, void **))    \
  X(cuLaunchKernelEx, "cuLaunchKernelEx",                                      \
    CUresult (*)(const CUlaunchConfig *, CUfunction, void **, void **))        \
  X(cuStreamCreate, "cuStreamCreate", CUresult (*)(CUstream *, unsigned))      \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult (*)(CUstream))        \
  X(cuStreamWaitEvent, "cuStreamWaitEvent",                                    \
    CUresult (*)(CUstream, CUevent, unsigned))                                 \
  X(cuEventCreate, "cuEventCreate", CUresult (*)(CUevent *, unsigned))         \
  X(cuEventDestroy, "cuEventDestroy_v2", CUresult (*)(CUevent))                \
  X(cuEventRecord, "cuEventRecord", CUresult (*)(CUevent, CUstream))           \
  X(cuEventSynchronize, "cuEventSynchronize", CUresult (*)(CUevent))           \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2",                               \
    CUresult (*)(float *, CUevent, CUevent))                                   \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult (*)(CUdeviceptr *, size_t))          \
  X(cuMemFree, "cuMemFree_v2", CUresult (*)(CUdeviceptr))                      \
  X(cuMemcpyAsync, "cuMemcpyAsync",                                            \
    CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream))                  \
  X(cuMemsetD32Async, "cuMemsetD32Async",                                      \
    CUresult (*)(CUdeviceptr, unsigned, size_t, CUstream))                     \
  X(cuMemsetD16Async, "cuMemsetD16Async",                                      \
    CUresult (*)(CUdeviceptr, unsigned short, size_t, CUstream))               \
  X(cuMemHostRegister, "cuMemHostRegister_v2",                                 \
    CUresult (*)(void *, size_t, unsigned))                                    \
  X(cuMemHostUnregister, "cuMemHostUnregister", CUresult (*)(void *))          \
  X(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled",                          \
    CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,       \
                 const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,   \
                 const cuuint32_t *, CUtensorMapInterleave,                    \
                 CUtensorMapSwizzle, CUtensorMapL2promotion,                   \
                 CUtensorMapFloatOOBfill))

} // namespace mlir::tile::runtime::cuda

#endif // TILE_LIB_RUNTIME_CUDA_CUDADRIVER_H
