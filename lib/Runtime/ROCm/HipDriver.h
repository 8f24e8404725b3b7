//===- HipDriver.h - HIP's module API as tile calls it ----------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The few types, constants and entry points of libamdhip64 that
// RocmRuntime.cpp uses, declared as HIP's ABI defines them (ROCm 5, as
// Debian 12 packages it), so that every build has the ROCm runtime without
// HIP's headers: libamdhip64 is opened at run time. Where
// hip/hip_runtime_api.h is found at build time,
// unittests/Runtime/DriverAbiTest.cpp checks these declarations against it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_RUNTIME_ROCM_HIPDRIVER_H
#define TILE_LIB_RUNTIME_ROCM_HIPDRIVER_H

#include <cstddef>

namespace mlir::tile::runtime::hip {

using hipError_t = int;
using hipDeviceptr_t = void *;
using hipModule_t = struct ihipModule_t *;
using hipFunction_t = struct ihipModuleSymbol_t *;
using hipStream_t = struct ihipStream_t *;
using hipEvent_t = struct ihipEvent_t *;
// Enumerations travel as int (the C ABI of an enum with small values).
using hipJitOption = int;
using hipMemcpyKind = int;

inline constexpr hipError_t kSuccess = 0;                  // hipSuccess
inline constexpr hipError_t kErrorInvalidResourceHandle = 400;
inline constexpr hipError_t kErrorNotSupported = 801;     // hipErrorNotSupported
inline constexpr unsigned kStreamNonBlocking = 0x1;       // hipStreamNonBlocking
inline constexpr unsigned kEventDefault = 0x0;            // hipEventDefault
inline constexpr unsigned kEventDisableTiming = 0x2;      // hipEventDisableTiming
inline constexpr hipJitOption kJitOptionOptimizationLevel = 7;
inline constexpr hipMemcpyKind kMemcpyDefault = 4;        // hipMemcpyDefault

/// The leading fields of hipDeviceProp_t, up to the ones tile reads, in
/// storage as large as any ROCm's whole struct (hipGetDeviceProperties
/// writes all of it).
struct HipDeviceProperties {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  int memoryClockRate;
  int memoryBusWidth;
  size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  int computeMode;
  int clockInstructionRate;
  unsigned arch; // hipDeviceArch_t: bit fields in 32 bits
  int concurrentKernels;
  int pciDomainID;
  int pciBusID;
  int pciDeviceID;
  size_t maxSharedMemoryPerMultiProcessor;
  int isMultiGpuBoard;
  int canMapHostMemory;
  int gcnArch;
  char gcnArchName[256];
};
union HipDevicePropertiesStorage {
  HipDeviceProperties properties;
  char bytes[4096];
};

/// Each entry point: its symbol in libamdhip64 and its type.
#define TILE_HIP_DRIVER_FUNCTIONS(X)                                           \
  TILE_HIP_DRIVER_UNOVERLOADED_FUNCTIONS(X)                                    \
  /* Overloaded in HIP's C++ header (a template for typed pointers). */        \
  X(hipMalloc, "hipMalloc", hipError_t (*)(void **, size_t))
#define TILE_HIP_DRIVER_UNOVERLOADED_FUNCTIONS(X)                              \
  X(hipInit, "hipInit", hipError_t (*)(unsigned))                              \
  X(hipGetDeviceCount, "hipGetDeviceCount", hipError_t (*)(int *))             \
  X(hipSetDevice, "hipSetDevice", hipError_t (*)(int))                         \
  X(hipGetDevice, "hipGetDevice", hipError_t (*)(int *))                       \
  X(hipGetDeviceProperties, "hipGetDeviceProperties",                          \
    hipError_t (*)(HipDeviceProperties *, int))                                \
  X(hipGetErrorName, "hipGetErrorName", const char *(*)(hipError_t))           \
  X(hipGetErrorString, "hipGetErrorString", const char *(*)(hipError_t))       \
  X(hipModuleLoadData, "hipModuleLoadData",                                    \
    hipError_t (*)(hipModule_t *, const void *))                               \
  X(hipModuleLoadDataEx, "hipModuleLoadDataEx",                                \
    hipError_t (*)(hipModule_t *, const void *, unsigned, hipJitOption *,      \
                   void **))                                                   \
  X(hipModuleUnload, "hipModuleUnload", hipError_t (*)(hipModule_t))           \
  X(hipModuleGetFunction, "hipModuleGetFunction",                              \
    hipError_t (*)(hipFunction_t *, hipModule_t, const char *))                \
  X(hipModuleLaunchKernel, "hipModuleLaunchKernel",                            \
    hipError_t (*)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,      \
                   unsigned, unsigned, unsigned, hipStream_t, void **,         \
                   void **))                                                   \
  X(hipStreamCreateWithFlags, "hipStreamCreateWithFlags",                      \
    hipError_t (*)(hipStream_t *, unsigned))                                   \
  X(hipStreamSynchronize, "hipStreamSynchronize",                              \
    hipError_t (*)(hipStream_t))                                               \
  X(hipStreamWaitEvent, "hipStreamWaitEvent",                                  \
    hipError_t (*)(hipStream_t, hipEvent_t, unsigned))                         \
  X(hipEventCreateWithFlags, "hipEventCreateWithFlags",                        \
    hipError_t (*)(hipEvent_t *, unsigned))                                    \
  X(hipEventDestroy, "hipEventDestroy", hipError_t (*)(hipEvent_t))            \
  X(hipEventRecord, "hipEventRecord", hipError_t (*)(hipEvent_t, hipStream_t)) \
  X(hipEventSynchronize, "hipEventSynchronize", hipError_t (*)(hipEvent_t))    \
  X(hipEventElapsedTime, "hipEventElapsedTime",                                \
    hipError_t (*)(float *, hipEvent_t, hipEvent_t))                           \
  X(hipFree, "hipFree", hipError_t (*)(void *))                                \
  X(hipMemcpyAsync, "hipMemcpyAsync",                                          \
    hipError_t (*)(void *, const void *, size_t, hipMemcpyKind, hipStream_t))  \
  X(hipMemsetD32Async, "hipMemsetD32Async",                                    \
    hipError_t (*)(hipDeviceptr_t, int, size_t, hipStream_t))                  \
  X(hipMemsetD16Async, "hipMemsetD16Async",                                    \
    hipError_t (*)(hipDeviceptr_t, unsigned short, size_t, hipStream_t))       \
  X(hipHostRegister, "hipHostRegister",                                        \
    hipError_t (*)(void *, size_t, unsigned))                                  \
  X(hipHostUnregister, "hipHostUnregister", hipError_t (*)(void *))

} // namespace mlir::tile::runtime::hip

#endif // TILE_LIB_RUNTIME_ROCM_HIPDRIVER_H
