//===- MgpuFunctions.h - The mgpu* functions over GpuRuntime ----*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Runtime, included by GpuRuntime.h: the functions that host
// code lowered by gpu-to-llvm calls (mgpuModuleLoad, mgpuLaunchKernel, ...,
// and tile's own, RuntimeSymbols.h), each over the process's GpuRuntime of
// its driver table, and the list of them by name that the JIT binds.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_RUNTIME_MGPUFUNCTIONS_H
#define TILE_LIB_RUNTIME_MGPUFUNCTIONS_H

#include "FailureLog.h"
#include "KernelTable.h"

#include "tile/Runtime/Runtime.h"
#include "tile/Runtime/RuntimeSymbols.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace mlir::tile::runtime {

template <typename Api> class GpuRuntime;

/// The mgpu* interface of gpu-to-llvm over GpuRuntime<Api>::get(). Streams
/// and events the lowered code passes in are ignored: everything runs on
/// the stream of the calling thread's device. A "module" is a binary,
/// loaded on each device it runs on; a "function" is one device's.
template <typename Api> class MgpuFunctions {
public:
  using Module = typename Api::Module;
  using Function = typename Api::Function;
  using Event = typename Api::Event;
  using Call = DriverCall<typename Api::Result>;
  using Binary = typename KernelTable<Module, Function>::Binary;
  using Kernel = typename KernelTable<Module, Function>::Kernel;

  /// Every function, by name.
  static SymbolList getSymbols() {
    SymbolList symbols = {
        {"mgpuModuleLoad", reinterpret_cast<void *>(&moduleLoad)},
        {"mgpuModuleLoadJIT", reinterpret_cast<void *>(&moduleLoadJIT)},
        {"mgpuModuleUnload", reinterpret_cast<void *>(&moduleUnload)},
        {"mgpuModuleGetFunction", reinterpret_cast<void *>(&moduleGetFunction)},
        {"mgpuLaunchKernel", reinterpret_cast<void *>(&launchKernel)},
        {"mgpuStreamCreate", reinterpret_cast<void *>(&streamCreate)},
        {"mgpuStreamDestroy", reinterpret_cast<void *>(&streamDestroy)},
        {"mgpuStreamSynchronize", reinterpret_cast<void *>(&streamSynchronize)},
        {"mgpuStreamWaitEvent", reinterpret_cast<void *>(&streamWaitEvent)},
        {"mgpuEventCreate", reinterpret_cast<void *>(&eventCreate)},
        {"mgpuEventDestroy", reinterpret_cast<void *>(&eventDestroy)},
        {"mgpuEventSynchronize", reinterpret_cast<void *>(&eventSynchronize)},
        {"mgpuEventRecord", reinterpret_cast<void *>(&eventRecord)},
        {"mgpuMemAlloc", reinterpret_cast<void *>(&memAlloc)},
        {"mgpuMemFree", reinterpret_cast<void *>(&memFree)},
        {"mgpuMemcpy", reinterpret_cast<void *>(&memCopy)},
        {"mgpuMemset32", reinterpret_cast<void *>(&memset32)},
        {"mgpuMemset16", reinterpret_cast<void *>(&memset16)},
        {"mgpuMemHostRegister", reinterpret_cast<void *>(&memHostRegister)},
        {"mgpuMemHostUnregister", reinterpret_cast<void *>(&memHostUnregister)},
        {"mgpuSetDefaultDevice", reinterpret_cast<void *>(&setDefaultDevice)},
        {kGpuMultiprocessorCountSymbol,
         reinterpret_cast<void *>(&multiprocessorCount)},
    };
    if constexpr (Api::kHasTensorMaps)
      symbols.push_back(
          {"mgpuTensorMapEncodeTiledMemref",
           reinterpret_cast<void *>(&tensorMapEncodeTiledMemref)});
    if constexpr (Api::kHasClusters)
      symbols.push_back({"mgpuLaunchClusterKernel",
                         reinterpret_cast<void *>(&launchClusterKernel)});
    return symbols;
  }

  /// Loads the binary on the thread's device (its other devices load it
  /// on their first launch).
  static void *moduleLoad(void *data, size_t /*size*/) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    // Without a device, nothing is loaded (and nothing is recorded: the
    // caller learns why from initialize or synchronize).
    int device = rt.enter();
    if (device < 0)
      return nullptr;
    return rt.kernels.getBinary(
        data, /*optLevel=*/-1, device, [&](Module &module) {
          return rt.check(rt.api.loadModule(module, data));
        });
  }

  static void *moduleLoadJIT(void *data, int optLevel) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    int device = rt.enter();
    if (device < 0)
      return nullptr;
    return rt.kernels.getBinary(data, optLevel, device, [&](Module &module) {
      return rt.check(rt.api.loadModuleJIT(module, data, optLevel));
    });
  }

  /// Drops one use of the binary; the last unloads it from every device
  /// (in that device's context, after its stream: kernels of the module may
  /// still be running, calls being asynchronous).
  static void moduleUnload(void *module) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    auto *binary = static_cast<Binary *>(module);
    if (!binary)
      return;
    for (auto [device, loaded] : rt.kernels.releaseBinary(*binary)) {
      if (!rt.enterDevice(device, nullptr))
        continue;
      rt.check(rt.api.synchronizeStream(rt.getCurrentStream(device)));
      rt.check(rt.api.unloadModule(loaded));
      rt.leaveDevice();
    }
  }

  /// The binary's function `name` on the thread's device, the binary
  /// loaded there first if it is not yet.
  static void *moduleGetFunction(void *module, const char *name) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    int device = rt.enter();
    if (!module || device < 0)
      return nullptr;
    return rt.kernels.getFunction(
        *static_cast<Binary *>(module), device, name,
        [&](Module &loaded, const void *data, int optLevel) {
          return rt.check(optLevel < 0
                              ? rt.api.loadModule(loaded, data)
                              : rt.api.loadModuleJIT(loaded, data, optLevel),
                          name);
        },
        [&](Function &function, Module loaded) {
          return rt.check(rt.api.getFunction(function, loaded, name), name);
        });
  }

  static void launchKernel(void *function, intptr_t gridX, intptr_t gridY,
                           intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                           intptr_t blockZ, int32_t sharedBytes,
                           void * /*stream*/, void **params, void **extra,
                           size_t /*paramCount*/) {
    launch(function, /*cluster=*/nullptr, gridX, gridY, gridZ, blockX, blockY,
           blockZ, sharedBytes, params, extra);
  }

  static void launchClusterKernel(void *function, intptr_t clusterX,
                                  intptr_t clusterY, intptr_t clusterZ,
                                  intptr_t gridX, intptr_t gridY,
                                  intptr_t gridZ, intptr_t blockX,
                                  intptr_t blockY, intptr_t blockZ,
                                  int32_t sharedBytes, void * /*stream*/,
                                  void **params, void **extra,
                                  size_t /*paramCount*/) {
    const intptr_t cluster[3] = {clusterX, clusterY, clusterZ};
    launch(function, cluster, gridX, gridY, gridZ, blockX, blockY, blockZ,
           sharedBytes, params, extra);
  }

  static void *streamCreate() {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    int device = rt.enter();
    return device < 0 ? nullptr : rt.getCurrentStream(device);
  }

  static void streamDestroy(void * /*stream*/) {}

  static void streamSynchronize(void * /*stream*/) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    int device = rt.enter();
    if (device >= 0 && rt.synchronous.load(std::memory_order_relaxed))
      rt.check(rt.api.synchronizeStream(rt.getCurrentStream(device)));
  }

  static void streamWaitEvent(void * /*stream*/, void *event) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    int device = rt.enter();
    if (device >= 0)
      rt.check(rt.api.waitEvent(rt.getCurrentStream(device),
                                static_cast<Event>(event)));
  }

  static void *eventCreate() {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    Event event{};
    if (rt.enter() >= 0)
      rt.check(rt.api.createEvent(event, /*timing=*/false));
    return event;
  }

  static void eventDestroy(void *event) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    if (rt.enter() >= 0)
      rt.check(rt.api.destroyEvent(static_cast<Event>(event)));
  }

  static void eventSynchronize(void *event) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    if (rt.enter() >= 0)
      rt.check(rt.api.synchronizeEvent(static_cast<Event>(event)));
  }

  static void eventRecord(void *event, void * /*stream*/) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    int device = rt.enter();
    if (device >= 0)
      rt.check(rt.api.recordEvent(static_cast<Event>(event),
                                  rt.getCurrentStream(device)));
  }

  static void *memAlloc(uint64_t bytes, void * /*stream*/,
                        bool /*hostShared*/) {
    return GpuRuntime<Api>::get().allocate(bytes);
  }

  static void memFree(void *pointer, void * /*stream*/) {
    GpuRuntime<Api>::get().release(pointer);
  }

  static void memCopy(void *dst, void *src, size_t bytes, void * /*stream*/) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    int device = rt.enter();
    if (device >= 0)
      rt.check(rt.api.copy(dst, src, bytes, rt.getCurrentStream(device)));
  }

  static void memset32(void *dst, unsigned value, size_t count,
                       void * /*stream*/) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    int device = rt.enter();
    if (device >= 0)
      rt.check(rt.api.set32(dst, value, count, rt.getCurrentStream(device)));
  }

  static void memset16(void *dst, unsigned short value, size_t count,
                       void * /*stream*/) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    int device = rt.enter();
    if (device >= 0)
      rt.check(rt.api.set16(dst, value, count, rt.getCurrentStream(device)));
  }

  static void memHostRegister(void *pointer, uint64_t bytes) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    if (rt.enter() >= 0)
      rt.check(rt.api.registerHost(pointer, bytes));
  }

  static void memHostUnregister(void *pointer) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    if (rt.enter() >= 0)
      rt.check(rt.api.unregisterHost(pointer));
  }

  /// Takes effect before the runtime starts (the first call of any other
  /// function), as in MLIR's wrappers.
  static void setDefaultDevice(int32_t device) {
    GpuRuntime<Api>::get().defaultDevice = device;
  }

  /// The multiprocessors of the thread's device (NVIDIA SMs, AMD CUs), at
  /// least 1: persistent kernels launch as many blocks (asked once per
  /// device).
  static int32_t multiprocessorCount() {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    int device = rt.enter();
    if (device < 0)
      return 1;
    std::atomic<int32_t> &known = rt.devices[device].multiprocessors;
    int32_t count = known.load(std::memory_order_relaxed);
    if (count == 0) {
      DeviceInfo info;
      rt.check(rt.api.describe(info, device));
      count = std::max(1, info.multiprocessors);
      known.store(count, std::memory_order_relaxed);
    }
    return count;
  }
  /// A tensor map (TMA descriptor) of the strided memref `descriptor`
  /// (rank `rank`, MLIR's descriptor layout) with box `boxDims` (outermost
  /// first), in device memory, as nvgpu's tma.create.descriptor asks for
  /// it (GpuRuntime::getTensorMap).
  static void *tensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                          int64_t dataType,
                                          int64_t interleave, int64_t swizzle,
                                          int64_t l2Promotion, int64_t oobFill,
                                          int64_t *boxDims) {
    return GpuRuntime<Api>::get().getTensorMap(rank, descriptor, dataType,
                                               interleave, swizzle,
                                               l2Promotion, oobFill, boxDims);
  }

private:
  /// Launches `function` (a Kernel of the thread's device) on the
  /// device's stream, in clusters of `cluster` blocks unless it is null.
  static void launch(void *function, const intptr_t *cluster, intptr_t gridX,
                     intptr_t gridY, intptr_t gridZ, intptr_t blockX,
                     intptr_t blockY, intptr_t blockZ, int32_t sharedBytes,
                     void **params, void **extra) {
    GpuRuntime<Api> &rt = GpuRuntime<Api>::get();
    int device = rt.enter();
    if (device < 0)
      return;
    auto *kernel = static_cast<Kernel *>(function);
    if (!kernel) {
      rt.check(Call{Api::kInvalidHandle, Api::kLaunchName});
      return;
    }
    Function f = kernel->function;
    // Opt in to the dynamic shared memory the launch asks for, once per
    // kernel and size: static shared memory counts against the 48 KB a
    // kernel gets without it, so even 48 KB of dynamic memory needs it.
    std::atomic<int32_t> &limit = kernel->sharedLimit;
    int32_t known = limit.load(std::memory_order_relaxed);
    if (sharedBytes > known) {
      Call optIn = rt.api.setDynamicSharedMemory(f, sharedBytes);
      if (!rt.check(optIn, kernel->name.c_str()))
        return;
      while (known < sharedBytes &&
             !limit.compare_exchange_weak(known, sharedBytes))
        ;
    }
    auto stream = rt.getCurrentStream(device);
    Call launch = [&] {
      if constexpr (Api::kHasClusters)
        if (cluster)
          return rt.api.launchClusters(f, cluster, gridX, gridY, gridZ, blockX,
                                       blockY, blockZ, sharedBytes, stream,
                                       params, extra);
      return rt.api.launch(f, gridX, gridY, gridZ, blockX, blockY, blockZ,
                           sharedBytes, stream, params, extra);
    }();
    if (launch.result != Api::kSuccess)
      rt.check(launch, kernel->name.c_str());
  }
};

} // namespace mlir::tile::runtime

#endif // TILE_LIB_RUNTIME_MGPUFUNCTIONS_H
