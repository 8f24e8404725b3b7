//===- RocmRuntime.cpp - tile's ROCm runtime ------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The HIP driver table of GpuRuntime: libamdhip64's module API, resolved at
// run time, behind the calls GpuRuntime.h lists.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/RocmRuntime.h"

#include "../GpuRuntime.h"

#include "HipDriver.h"

#include <dlfcn.h>

using namespace mlir::tile::runtime;
using namespace mlir::tile::runtime::hip;

#define TILE_CALL(function, ...)                                               \
  Call { hip.function(__VA_ARGS__), #function }

namespace {

/// HIP's entry points (HipDriver.h).
struct Hip {
  template <typename T> using Pointer = T;
#define TILE_DECLARE(name, symbol, type) Pointer<type> name = nullptr;
  TILE_HIP_DRIVER_FUNCTIONS(TILE_DECLARE)
#undef TILE_DECLARE
};

struct HipApi {
  using Result = hipError_t;
  using Module = hipModule_t;
  using Function = hipFunction_t;
  using Stream = hipStream_t;
  using Event = hipEvent_t;
  /// HIP's current device is per host thread: its ordinal.
  using Context = int;
  using Call = DriverCall<Result>;
  static constexpr Result kSuccess = hip::kSuccess;
  static constexpr Result kInvalidHandle = kErrorInvalidResourceHandle;
  static constexpr const char *kName = "ROCm";
  static constexpr const char *kShortName = "rocm";
  static constexpr const char *kLaunchName = "hipModuleLaunchKernel";
  static constexpr bool kHasTensorMaps = false;
  static constexpr bool kHasClusters = false;

  bool open(std::string &why) {
    void *library = dlopen("libamdhip64.so", RTLD_NOW | RTLD_GLOBAL);
    if (!library)
      library = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_GLOBAL);
    if (!library) {
      why = "cannot load libamdhip64.so (no ROCm installation?)";
      return false;
    }
#define TILE_RESOLVE(name, symbol, type)                                       \
  hip.name = reinterpret_cast<type>(dlsym(library, symbol));                   \
  if (!hip.name) {                                                             \
    why = std::string("libamdhip64 lacks ") + symbol;                          \
    return false;                                                              \
  }
    TILE_HIP_DRIVER_FUNCTIONS(TILE_RESOLVE)
#undef TILE_RESOLVE
    return true;
  }

  const char *errorName(Result result) {
    return hip.hipGetErrorName ? hip.hipGetErrorName(result) : nullptr;
  }
  const char *errorText(Result result) {
    return hip.hipGetErrorString ? hip.hipGetErrorString(result) : nullptr;
  }

  Call initialize() { return TILE_CALL(hipInit, 0); }
  Call countDevices(int &count) { return TILE_CALL(hipGetDeviceCount, &count); }
  // HIP retains each device's primary context itself.
  Call openDevice(int ordinal, Context &context) {
    context = ordinal;
    return {kSuccess, "hipSetDevice"};
  }
  Call getCurrent(Context &context) {
    return TILE_CALL(hipGetDevice, &context);
  }
  Call setCurrent(Context context) { return TILE_CALL(hipSetDevice, context); }
  Call createStream(Stream &stream) {
    return TILE_CALL(hipStreamCreateWithFlags, &stream, kStreamNonBlocking);
  }

  Call loadModule(Module &module, const void *data) {
    return TILE_CALL(hipModuleLoadData, &module, data);
  }
  Call loadModuleJIT(Module &module, const void *data, int optLevel) {
    hipJitOption options[] = {kJitOptionOptimizationLevel};
    void *values[] = {
        reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
    return TILE_CALL(hipModuleLoadDataEx, &module, data, 1, options, values);
  }
  Call unloadModule(Module module) {
    return TILE_CALL(hipModuleUnload, module);
  }
  Call getFunction(Function &function, Module module, const char *name) {
    return TILE_CALL(hipModuleGetFunction, &function, module, name);
  }
  // AMD GPUs give every kernel all of a block's LDS without opting in.
  Call setDynamicSharedMemory(Function, int32_t) {
    return {kSuccess, "hipFuncSetAttribute"};
  }
  Call launch(Function function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
              intptr_t blockX, intptr_t blockY, intptr_t blockZ,
              int32_t sharedBytes, Stream stream, void **params, void **extra) {
    return TILE_CALL(hipModuleLaunchKernel, function, gridX, gridY, gridZ,
                     blockX, blockY, blockZ, sharedBytes, stream, params,
                     extra);
  }

  Call synchronizeStream(Stream stream) {
    return TILE_CALL(hipStreamSynchronize, stream);
  }
  Call waitEvent(Stream stream, Event event) {
    return TILE_CALL(hipStreamWaitEvent, stream, event, 0);
  }
  Call createEvent(Event &event, bool timing) {
    return TILE_CALL(hipEventCreateWithFlags, &event,
                     timing ? kEventDefault : kEventDisableTiming);
  }
  Call destroyEvent(Event event) { return TILE_CALL(hipEventDestroy, event); }
  Call recordEvent(Event event, Stream stream) {
    return TILE_CALL(hipEventRecord, event, stream);
  }
  Call synchronizeEvent(Event event) {
    return TILE_CALL(hipEventSynchronize, event);
  }
  Call elapsedMilliseconds(float &milliseconds, Event start, Event stop) {
    return TILE_CALL(hipEventElapsedTime, &milliseconds, start, stop);
  }

  Call allocate(void *&pointer, size_t bytes) {
    return TILE_CALL(hipMalloc, &pointer, bytes);
  }
  Call free(void *pointer) { return TILE_CALL(hipFree, pointer); }
  Call copy(void *dst, const void *src, size_t bytes, Stream stream) {
    return TILE_CALL(hipMemcpyAsync, dst, src, bytes, kMemcpyDefault, stream);
  }
  Call set32(void *dst, unsigned value, size_t count, Stream stream) {
    return TILE_CALL(hipMemsetD32Async, static_cast<hipDeviceptr_t>(dst),
                     static_cast<int>(value), count, stream);
  }
  Call set16(void *dst, unsigned short value, size_t count, Stream stream) {
    return TILE_CALL(hipMemsetD16Async, static_cast<hipDeviceptr_t>(dst), value,
                     count, stream);
  }
  Call registerHost(void *pointer, size_t bytes) {
    return TILE_CALL(hipHostRegister, pointer, bytes, 0);
  }
  Call unregisterHost(void *pointer) {
    return TILE_CALL(hipHostUnregister, pointer);
  }

  Call encodeTensorMap(void *, const int64_t *, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, const int64_t *) {
    return Call{kErrorNotSupported, "tensor maps"};
  }

  Call describe(DeviceInfo &info, int ordinal) {
    HipDevicePropertiesStorage storage{};
    HipDeviceProperties &properties = storage.properties;
    Call call = TILE_CALL(hipGetDeviceProperties, &properties, ordinal);
    if (call.result != kSuccess)
      return call;
    info.name = properties.name;
    // "gfx90a:sramecc+:xnack-" -> "gfx90a".
    info.chip = properties.gcnArchName;
    info.chip = info.chip.substr(0, info.chip.find(':'));
    info.multiprocessors = properties.multiProcessorCount;
    info.sharedMemoryPerBlock = properties.sharedMemPerBlock;
    return call;
  }

private:
  Hip hip;
};

} // namespace

Runtime &mlir::tile::runtime::getRocmRuntime() {
  return GpuRuntime<HipApi>::get();
}
