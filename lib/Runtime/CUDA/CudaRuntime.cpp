//===- CudaRuntime.cpp - tile's CUDA runtime ------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The CUDA driver table of GpuRuntime: libcuda's entry points, resolved at
// run time, behind the calls GpuRuntime.h lists.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/CudaRuntime.h"

#include "../GpuRuntime.h"

#include "CudaDriver.h"

#include <dlfcn.h>

using namespace mlir::tile::runtime;
using namespace mlir::tile::runtime::cuda;

// A call and the name it is reported under (the unversioned one, not the
// symbol: cuMemAlloc, not cuMemAlloc_v2).
#define TILE_CALL(function, ...)                                               \
  Call { driver.function(__VA_ARGS__), #function }

namespace {

/// libcuda's entry points (CudaDriver.h).
struct Driver {
  template <typename T> using Pointer = T;
#define TILE_DECLARE(name, symbol, type) Pointer<type> name = nullptr;
  TILE_CUDA_DRIVER_FUNCTIONS(TILE_DECLARE)
#undef TILE_DECLARE
};

CUdeviceptr devicePointer(const void *pointer) {
  return reinterpret_cast<CUdeviceptr>(pointer);
}

struct CudaApi {
  using Result = CUresult;
  using Module = CUmodule;
  using Function = CUfunction;
  using Stream = CUstream;
  using Event = CUevent;
  using Context = CUcontext;
  using Call = DriverCall<Result>;
  static constexpr Result kSuccess = cuda::kSuccess;
  static constexpr Result kInvalidHandle = kErrorInvalidHandle;
  static constexpr const char *kName = "CUDA";
  static constexpr const char *kShortName = "cuda";
  static constexpr const char *kLaunchName = "cuLaunchKernel";
  static constexpr bool kHasTensorMaps = true;
  static constexpr bool kHasClusters = true;

  bool open(std::string &why) {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!library) {
      why = "cannot load libcuda.so.1 (no NVIDIA driver?)";
      return false;
    }
#define TILE_RESOLVE(name, symbol, type)                                       \
  driver.name = reinterpret_cast<type>(dlsym(library, symbol));                \
  if (!driver.name) {                                                          \
    why = std::string("libcuda.so.1 lacks ") + symbol;                         \
    return false;                                                              \
  }
    TILE_CUDA_DRIVER_FUNCTIONS(TILE_RESOLVE)
#undef TILE_RESOLVE
    return true;
  }

  const char *errorName(Result result) {
    const char *name = nullptr;
    if (driver.cuGetErrorName)
      driver.cuGetErrorName(result, &name);
    return name;
  }
  const char *errorText(Result result) {
    const char *text = nullptr;
    if (driver.cuGetErrorString)
      driver.cuGetErrorString(result, &text);
    return text;
  }

  Call initialize() { return TILE_CALL(cuInit, 0); }
  Call countDevices(int &count) { return TILE_CALL(cuDeviceGetCount, &count); }
  Call openDevice(int ordinal, Context &context) {
    CUdevice device = 0;
    Call call = TILE_CALL(cuDeviceGet, &device, ordinal);
    if (call.result == kSuccess)
      call = TILE_CALL(cuDevicePrimaryCtxRetain, &context, device);
    return call;
  }
  Call getCurrent(Context &context) {
    return TILE_CALL(cuCtxGetCurrent, &context);
  }
  Call setCurrent(Context context) {
    return TILE_CALL(cuCtxSetCurrent, context);
  }
  Call createStream(Stream &stream) {
    return TILE_CALL(cuStreamCreate, &stream, kStreamNonBlocking);
  }

  Call loadModule(Module &module, const void *data) {
    return TILE_CALL(cuModuleLoadData, &module, data);
  }
  Call loadModuleJIT(Module &module, const void *data, int optLevel) {
    CUjit_option options[] = {kJitOptimizationLevel};
    void *values[] = {
        reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
    return TILE_CALL(cuModuleLoadDataEx, &module, data, 1, options, values);
  }
  Call unloadModule(Module module) { return TILE_CALL(cuModuleUnload, module); }
  Call getFunction(Function &function, Module module, const char *name) {
    return TILE_CALL(cuModuleGetFunction, &function, module, name);
  }
  Call setDynamicSharedMemory(Function function, int32_t bytes) {
    Call call =
        TILE_CALL(cuFuncSetAttribute, function,
                  kMaxDynamicSharedSizeBytes, bytes);
    call.name = "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)";
    return call;
  }
  Call launch(Function function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
              intptr_t blockX, intptr_t blockY, intptr_t blockZ,
              int32_t sharedBytes, Stream stream, void **params, void **extra) {
    return TILE_CALL(cuLaunchKernel, function, gridX, gridY, gridZ, blockX,
                     blockY, blockZ, sharedBytes, stream, params, extra);
  }
  /// A launch in clusters of `cluster` blocks (sm_90+).
  Call launchClusters(Function function, const intptr_t cluster[3],
                      intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                      int32_t sharedBytes, Stream stream, void **params,
                      void **extra) {
    CUlaunchAttribute attribute{};
    attribute.id = kLaunchAttributeClusterDimension;
    attribute.value.clusterDim.x = static_cast<unsigned>(cluster[0]);
    attribute.value.clusterDim.y = static_cast<unsigned>(cluster[1]);
    attribute.value.clusterDim.z = static_cast<unsigned>(cluster[2]);
    CUlaunchConfig config{};
    config.gridDimX = gridX;
    config.gridDimY = gridY;
    config.gridDimZ = gridZ;
    config.blockDimX = blockX;
    config.blockDimY = blockY;
    config.blockDimZ = blockZ;
    config.sharedMemBytes = sharedBytes;
    config.hStream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    return TILE_CALL(cuLaunchKernelEx, &config, function, params, extra);
  }

  Call synchronizeStream(Stream stream) {
    return TILE_CALL(cuStreamSynchronize, stream);
  }
  Call waitEvent(Stream stream, Event event) {
    return TILE_CALL(cuStreamWaitEvent, stream, event, 0);
  }
  Call createEvent(Event &event, bool timing) {
    return TILE_CALL(cuEventCreate, &event,
                     timing ? kEventDefault : kEventDisableTiming);
  }
  Call destroyEvent(Event event) { return TILE_CALL(cuEventDestroy, event); }
  Call recordEvent(Event event, Stream stream) {
    return TILE_CALL(cuEventRecord, event, stream);
  }
  Call synchronizeEvent(Event event) {
    return TILE_CALL(cuEventSynchronize, event);
  }
  Call elapsedMilliseconds(float &milliseconds, Event start, Event stop) {
    return TILE_CALL(cuEventElapsedTime, &milliseconds, start, stop);
  }

  Call allocate(void *&pointer, size_t bytes) {
    CUdeviceptr address = 0;
    Call call = TILE_CALL(cuMemAlloc, &address, bytes);
    pointer = reinterpret_cast<void *>(address);
    return call;
  }
  Call free(void *pointer) {
    return TILE_CALL(cuMemFree, devicePointer(pointer));
  }
  // Unified addressing: the driver tells host from device pointers.
  Call copy(void *dst, const void *src, size_t bytes, Stream stream) {
    return TILE_CALL(cuMemcpyAsync, devicePointer(dst), devicePointer(src),
                     bytes, stream);
  }
  Call set32(void *dst, unsigned value, size_t count, Stream stream) {
    return TILE_CALL(cuMemsetD32Async, devicePointer(dst), value, count,
                     stream);
  }
  Call set16(void *dst, unsigned short value, size_t count, Stream stream) {
    return TILE_CALL(cuMemsetD16Async, devicePointer(dst), value, count,
                     stream);
  }
  Call registerHost(void *pointer, size_t bytes) {
    return TILE_CALL(cuMemHostRegister, pointer, bytes, 0);
  }
  Call unregisterHost(void *pointer) {
    return TILE_CALL(cuMemHostUnregister, pointer);
  }

  /// Encodes a tiled tensor map of the memref descriptor `fields`
  /// ({allocated, aligned, offset, sizes[rank], strides[rank]}): the driver
  /// wants dims, strides (in bytes, all but the innermost) and box
  /// innermost first.
  Call encodeTensorMap(void *map, const int64_t *fields, int64_t rank,
                       int64_t dataType, int64_t interleave, int64_t swizzle,
                       int64_t l2Promotion, int64_t oobFill,
                       const int64_t *boxDims) {
    static constexpr int64_t kBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
    int64_t bytes = dataType >= 0 && dataType < 13 ? kBytes[dataType] : 1;
    const int64_t *sizes = fields + 3, *strides = fields + 3 + rank;
    char *address = reinterpret_cast<char *>(fields[1]) + fields[2] * bytes;
    cuuint64_t dims[5], byteStrides[5];
    cuuint32_t box[5], elementStrides[5] = {1, 1, 1, 1, 1};
    for (int64_t d = 0; d < rank; ++d) {
      dims[d] = sizes[rank - 1 - d];
      box[d] = boxDims[rank - 1 - d];
      if (d + 1 < rank)
        byteStrides[d] = strides[rank - 2 - d] * bytes;
    }
    return TILE_CALL(cuTensorMapEncodeTiled, static_cast<CUtensorMap *>(map),
                     static_cast<CUtensorMapDataType>(dataType),
                     static_cast<cuuint32_t>(rank), address, dims, byteStrides,
                     box, elementStrides,
                     static_cast<CUtensorMapInterleave>(interleave),
                     static_cast<CUtensorMapSwizzle>(swizzle),
                     static_cast<CUtensorMapL2promotion>(l2Promotion),
                     static_cast<CUtensorMapFloatOOBfill>(oobFill));
  }

  Call describe(DeviceInfo &info, int ordinal) {
    CUdevice device = 0;
    Call call = TILE_CALL(cuDeviceGet, &device, ordinal);
    char name[256] = {0};
    if (call.result == kSuccess)
      call = TILE_CALL(cuDeviceGetName, name, sizeof(name), device);
    info.name = name;
    int major = 0, minor = 0, multiprocessors = 0, shared = 0;
    for (auto [value, attribute] :
         {std::make_pair(&major, kComputeCapabilityMajor),
          std::make_pair(&minor, kComputeCapabilityMinor),
          std::make_pair(&multiprocessors,
                         kMultiprocessorCount),
          std::make_pair(
              &shared,
              kMaxSharedMemoryPerBlockOptin)}) {
      if (call.result == kSuccess)
        call = TILE_CALL(cuDeviceGetAttribute, value, attribute, device);
    }
    info.chip = "sm_" + std::to_string(major * 10 + minor);
    // tile uses 9.0's architecture-specific features (wgmma, setmaxnreg).
    if (major == 9 && minor == 0)
      info.chip += "a";
    info.multiprocessors = multiprocessors;
    info.sharedMemoryPerBlock = shared;
    return call;
  }

private:
  Driver driver;
};

} // namespace

Runtime &mlir::tile::runtime::getCudaRuntime() {
  return GpuRuntime<CudaApi>::get();
}
