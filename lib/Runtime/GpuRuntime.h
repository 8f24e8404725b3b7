//===- GpuRuntime.h - One GPU runtime over any driver API -------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Runtime (and its unit test): the implementation of the
// mgpu* functions and of the Runtime interface, written once over a driver
// API table that CudaRuntime.cpp and RocmRuntime.cpp provide. Header-only
// and dependency-free, like the runtimes.
//
// A driver table `Api` provides:
//   types      Result, Module, Function, Stream, Event; Call =
//              DriverCall<Result>
//   constants  kSuccess, kInvalidHandle (a Result), kName ("CUDA"),
//              kShortName ("cuda"), kLaunchName (the launch call's name,
//              for messages)
//   bool open(std::string &why)          load the driver library
//   const char *errorName(Result), *errorText(Result)
//   Call initialize(), countDevices(int &), selectDevice(int),
//        enterThread(), createStream(Stream &)
//   Call loadModule(Module &, const void *data),
//        loadModuleJIT(Module &, const void *data, int optLevel),
//        unloadModule(Module), getFunction(Function &, Module, const char *)
//   Call setDynamicSharedMemory(Function, int32_t bytes)
//   Call launch(Function, grid x, y, z, block x, y, z, int32_t sharedBytes,
//               Stream, void **params, void **extra)
//   Call synchronizeStream(Stream), waitEvent(Stream, Event)
//   Call createEvent(Event &, bool timing), destroyEvent(Event),
//        recordEvent(Event, Stream), synchronizeEvent(Event),
//        elapsedMilliseconds(float &, Event start, Event stop)
//   Call allocate(void *&, size_t), free(void *),
//        copy(void *dst, const void *src, size_t, Stream),
//        set32(void *, unsigned, size_t count, Stream),
//        set16(void *, unsigned short, size_t count, Stream),
//        registerHost(void *, size_t), unregisterHost(void *)
//   Call describe(DeviceInfo &)          of the selected device
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_RUNTIME_GPURUNTIME_H
#define TILE_LIB_RUNTIME_GPURUNTIME_H

#include "tile/Runtime/Runtime.h"

#include <algorithm>
#include <iterator>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace mlir::tile::runtime {

/// A driver call's result and the driver function's name, for messages.
template <typename Result> struct DriverCall {
  Result result;
  const char *name;
};

/// Failures of runtime calls: each is printed as it happens ("tile runtime:
/// CALL failed for kernel 'K': NAME (TEXT)"), and the first since the
/// caller last asked is kept for it. The runtimes never abort.
class FailureLog {
public:
  void record(const char *call, const char *kernel, const char *errorName,
              const char *errorText) {
    std::string message = std::string(call) + " failed";
    if (kernel)
      message += std::string(" for kernel '") + kernel + "'";
    message += std::string(": ") + (errorName ? errorName : "error") + " (" +
               (errorText ? errorText : "no description") + ")";
    std::fprintf(stderr, "tile runtime: %s\n", message.c_str());
    std::lock_guard<std::mutex> lock(mutex);
    if (first.empty())
      first = std::move(message);
  }

  /// The first failure since the last call (empty if none), forgotten.
  std::string take() {
    std::lock_guard<std::mutex> lock(mutex);
    std::string result;
    result.swap(first);
    return result;
  }

private:
  std::mutex mutex;
  std::string first;
};

/// Loaded modules by the address of their binary (counting the loads that
/// share one), functions by module and name, each loaded or looked up once
/// while in use; per function its name, for messages, and the dynamic
/// shared memory it has opted in to. Thread-safe.
template <typename Module, typename Function> class KernelTable {
public:
  /// The module of `binary`, loaded with `load(Module &) -> bool` the first
  /// time; null when loading fails.
  template <typename Load> Module getModule(const void *binary, Load load) {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = modules.find(binary); it != modules.end()) {
      ++it->second.users;
      return it->second.module;
    }
    Module module{};
    if (!load(module))
      return Module{};
    modules[binary] = {module, 1};
    return module;
  }

  /// Drops one use of `module`; true when it was the last one (the caller
  /// unloads it), its functions forgotten.
  bool releaseModule(Module module) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = std::find_if(modules.begin(), modules.end(), [&](auto &entry) {
      return entry.second.module == module;
    });
    if (it == modules.end() || --it->second.users > 0)
      return false;
    modules.erase(it);
    for (auto f = functionsByAddress.begin(); f != functionsByAddress.end();)
      f = f->first.first == module ? functionsByAddress.erase(f) : std::next(f);
    for (auto f = functionsByName.begin(); f != functionsByName.end();) {
      if (f->first.first == module) {
        functions.erase(f->second);
        f = functionsByName.erase(f);
      } else {
        ++f;
      }
    }
    return true;
  }

  /// Function `name` of `module`, looked up with `lookup(Function &) ->
  /// bool` the first time; null when that fails. Lowered code asks on every
  /// launch with the same name string: its address is tried first.
  template <typename Lookup>
  Function getFunction(Module module, const char *name, Lookup lookup) {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = functionsByAddress.find({module, name});
        it != functionsByAddress.end())
      return it->second;
    auto key = std::make_pair(module, std::string(name));
    auto it = functionsByName.find(key);
    Function function{};
    if (it != functionsByName.end()) {
      function = it->second;
    } else {
      if (!lookup(function))
        return Function{};
      functionsByName[key] = function;
      functions[function] = {name, 0};
    }
    functionsByAddress[{module, name}] = function;
    return function;
  }

  std::string getName(Function function) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = functions.find(function);
    return it == functions.end() ? "?" : it->second.name;
  }

  /// The dynamic shared memory `function` has opted in to.
  int32_t getSharedLimit(Function function) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = functions.find(function);
    return it == functions.end() ? 0 : it->second.sharedLimit;
  }
  void setSharedLimit(Function function, int32_t bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    int32_t &limit = functions[function].sharedLimit;
    limit = std::max(limit, bytes);
  }

private:
  struct LoadedModule {
    Module module;
    int users;
  };
  struct FunctionInfo {
    std::string name;
    int32_t sharedLimit;
  };
  std::mutex mutex;
  std::map<const void *, LoadedModule> modules;
  std::map<std::pair<Module, std::string>, Function> functionsByName;
  std::map<std::pair<Module, const char *>, Function> functionsByAddress;
  std::unordered_map<Function, FunctionInfo> functions;
};

/// The runtime over driver table `Api`; one per process (get()), which the
/// mgpu* functions use.
template <typename Api> class GpuRuntime final : public Runtime {
public:
  using Result = typename Api::Result;
  using Module = typename Api::Module;
  using Function = typename Api::Function;
  using Stream = typename Api::Stream;
  using Event = typename Api::Event;
  using Call = DriverCall<Result>;

  static GpuRuntime &get() {
    static GpuRuntime runtime;
    return runtime;
  }

  /// The driver table (tests configure fakes through it).
  Api &getApi() { return api; }

  //===--------------------------------------------------------------------===//
  // Runtime
  //===--------------------------------------------------------------------===//

  const char *getName() const override { return Api::kShortName; }

  bool initialize(std::string *why) override {
    std::call_once(once, [&] { ready = start(); });
    if (!ready && why)
      *why = startError;
    return ready;
  }

  DeviceInfo getDeviceInfo() override {
    DeviceInfo info;
    if (enter())
      check(api.describe(info));
    return info;
  }

  void *allocate(size_t bytes) override {
    void *pointer = nullptr;
    if (!enter() || !check(api.allocate(pointer, bytes ? bytes : 1)))
      return nullptr;
    return pointer;
  }

  void release(void *pointer) override {
    if (!pointer || !enter())
      return;
    check(api.free(pointer));
    releaseTensorMaps(pointer);
  }

  bool copyToDevice(void *device, const void *host, size_t bytes) override {
    return copyAndWait(device, host, bytes);
  }
  bool copyToHost(void *host, const void *device, size_t bytes) override {
    return copyAndWait(host, device, bytes);
  }

  bool synchronize(std::string *error) override {
    if (!enter()) {
      if (error)
        *error = std::string("no ") + Api::kName + " device: " + startError;
      return false;
    }
    check(api.synchronizeStream(getCurrentStream()));
    return takeInto(error);
  }

  std::string takeError() override { return failures.take(); }

  void setStream(void *newStream) override {
    stream.store(static_cast<Stream>(newStream));
    callerStream.store(newStream != nullptr);
  }
  void setCallerStream(void *newStream) override {
    stream.store(static_cast<Stream>(newStream));
    callerStream.store(true);
  }
  void *getStream() override {
    enter();
    return getCurrentStream();
  }
  void setSynchronous(bool value) override { synchronous.store(value); }
  bool isSynchronous() override { return synchronous.load(); }

  bool timeCalls(const std::function<void()> &run, unsigned warmup,
                 unsigned calls, std::vector<double> &seconds,
                 std::string *error) override {
    if (!synchronize(error))
      return false;
    Event start{}, stop{};
    if (!check(api.createEvent(start, /*timing=*/true)) ||
        !check(api.createEvent(stop, /*timing=*/true))) {
      if (start)
        check(api.destroyEvent(start));
      return synchronize(error);
    }
    for (unsigned i = 0; i < warmup; ++i)
      run();
    for (unsigned i = 0; i < calls; ++i) {
      Stream current = getCurrentStream();
      bool recorded = check(api.recordEvent(start, current));
      run();
      recorded = check(api.recordEvent(stop, current)) && recorded;
      float milliseconds = 0;
      if (!recorded || !check(api.synchronizeEvent(stop)) ||
          !check(api.elapsedMilliseconds(milliseconds, start, stop)))
        break;
      seconds.push_back(milliseconds * 1e-3);
    }
    check(api.destroyEvent(start));
    check(api.destroyEvent(stop));
    return synchronize(error);
  }

  bool timeHostOverhead(const std::function<void()> &run, unsigned warmup,
                        unsigned calls, double &secondsPerCall,
                        std::string *error) override {
    for (unsigned i = 0; i < warmup; ++i)
      run();
    if (!synchronize(error))
      return false;
    bool wasSynchronous = synchronous.exchange(false);
    auto begin = std::chrono::steady_clock::now();
    for (unsigned i = 0; i < calls; ++i)
      run();
    auto end = std::chrono::steady_clock::now();
    synchronous.store(wasSynchronous);
    secondsPerCall = std::chrono::duration<double>(end - begin).count() /
                     std::max(1u, calls);
    return synchronize(error);
  }

  SymbolList getSymbols() const override {
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
        {"tileGpuMultiprocessorCount",
         reinterpret_cast<void *>(&multiprocessorCount)},
    };
    if constexpr (Api::kHasTensorMaps)
      symbols.push_back({"mgpuTensorMapEncodeTiledMemref",
                         reinterpret_cast<void *>(&tensorMapEncodeTiledMemref)});
    if constexpr (Api::kHasClusters)
      symbols.push_back({"mgpuLaunchClusterKernel",
                         reinterpret_cast<void *>(&launchClusterKernel)});
    return symbols;
  }

  //===--------------------------------------------------------------------===//
  // The mgpu* interface of gpu-to-llvm. Streams and events the lowered code
  // passes in are ignored: everything runs on the runtime's stream.
  //===--------------------------------------------------------------------===//

  static void *moduleLoad(void *data, size_t /*size*/) {
    GpuRuntime &rt = get();
    // Without a device, nothing is loaded (and nothing is recorded: the
    // caller learns why from initialize or synchronize).
    if (!rt.enter())
      return nullptr;
    return rt.kernels.getModule(data, [&](Module &module) {
      return rt.check(rt.api.loadModule(module, data));
    });
  }

  static void *moduleLoadJIT(void *data, int optLevel) {
    GpuRuntime &rt = get();
    if (!rt.enter())
      return nullptr;
    return rt.kernels.getModule(data, [&](Module &module) {
      return rt.check(rt.api.loadModuleJIT(module, data, optLevel));
    });
  }

  static void moduleUnload(void *module) {
    GpuRuntime &rt = get();
    auto m = static_cast<Module>(module);
    if (!m || !rt.enter() || !rt.kernels.releaseModule(m))
      return;
    // Kernels of the module may still be running (asynchronous calls).
    rt.check(rt.api.synchronizeStream(rt.getCurrentStream()));
    rt.check(rt.api.unloadModule(m));
  }

  static void *moduleGetFunction(void *module, const char *name) {
    GpuRuntime &rt = get();
    if (!module || !rt.enter())
      return nullptr;
    auto m = static_cast<Module>(module);
    return rt.kernels.getFunction(m, name, [&](Function &function) {
      return rt.check(rt.api.getFunction(function, m, name), name);
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

  /// Launches `function` on the runtime's stream, in clusters of
  /// `cluster` blocks unless it is null.
  static void launch(void *function, const intptr_t *cluster, intptr_t gridX,
                     intptr_t gridY, intptr_t gridZ, intptr_t blockX,
                     intptr_t blockY, intptr_t blockZ, int32_t sharedBytes,
                     void **params, void **extra) {
    GpuRuntime &rt = get();
    if (!rt.enter())
      return;
    auto f = static_cast<Function>(function);
    if (!f) {
      rt.check(Call{Api::kInvalidHandle, Api::kLaunchName});
      return;
    }
    // Opt in to the dynamic shared memory the launch asks for, once per
    // kernel and size: static shared memory counts against the 48 KB a
    // kernel gets without it, so even 48 KB of dynamic memory needs it.
    if (sharedBytes > rt.kernels.getSharedLimit(f)) {
      Call optIn = rt.api.setDynamicSharedMemory(f, sharedBytes);
      if (!rt.check(optIn, rt.kernels.getName(f).c_str()))
        return;
      rt.kernels.setSharedLimit(f, sharedBytes);
    }
    Call launch = [&] {
      if constexpr (Api::kHasClusters)
        if (cluster)
          return rt.api.launchClusters(f, cluster, gridX, gridY, gridZ,
                                       blockX, blockY, blockZ, sharedBytes,
                                       rt.getCurrentStream(), params, extra);
      return rt.api.launch(f, gridX, gridY, gridZ, blockX, blockY, blockZ,
                           sharedBytes, rt.getCurrentStream(), params, extra);
    }();
    if (launch.result != Api::kSuccess)
      rt.check(launch, rt.kernels.getName(f).c_str());
  }

  static void *streamCreate() {
    GpuRuntime &rt = get();
    rt.enter();
    return rt.getCurrentStream();
  }

  static void streamDestroy(void * /*stream*/) {}

  static void streamSynchronize(void * /*stream*/) {
    GpuRuntime &rt = get();
    if (rt.enter() && rt.synchronous.load(std::memory_order_relaxed))
      rt.check(rt.api.synchronizeStream(rt.getCurrentStream()));
  }

  static void streamWaitEvent(void * /*stream*/, void *event) {
    GpuRuntime &rt = get();
    if (rt.enter())
      rt.check(
          rt.api.waitEvent(rt.getCurrentStream(), static_cast<Event>(event)));
  }

  static void *eventCreate() {
    GpuRuntime &rt = get();
    Event event{};
    if (rt.enter())
      rt.check(rt.api.createEvent(event, /*timing=*/false));
    return event;
  }

  static void eventDestroy(void *event) {
    GpuRuntime &rt = get();
    if (rt.enter())
      rt.check(rt.api.destroyEvent(static_cast<Event>(event)));
  }

  static void eventSynchronize(void *event) {
    GpuRuntime &rt = get();
    if (rt.enter())
      rt.check(rt.api.synchronizeEvent(static_cast<Event>(event)));
  }

  static void eventRecord(void *event, void * /*stream*/) {
    GpuRuntime &rt = get();
    if (rt.enter())
      rt.check(
          rt.api.recordEvent(static_cast<Event>(event), rt.getCurrentStream()));
  }

  static void *memAlloc(uint64_t bytes, void * /*stream*/,
                        bool /*hostShared*/) {
    return get().allocate(bytes);
  }

  static void memFree(void *pointer, void * /*stream*/) {
    get().release(pointer);
  }

  static void memCopy(void *dst, void *src, size_t bytes, void * /*stream*/) {
    GpuRuntime &rt = get();
    if (rt.enter())
      rt.check(rt.api.copy(dst, src, bytes, rt.getCurrentStream()));
  }

  static void memset32(void *dst, unsigned value, size_t count,
                       void * /*stream*/) {
    GpuRuntime &rt = get();
    if (rt.enter())
      rt.check(rt.api.set32(dst, value, count, rt.getCurrentStream()));
  }

  static void memset16(void *dst, unsigned short value, size_t count,
                       void * /*stream*/) {
    GpuRuntime &rt = get();
    if (rt.enter())
      rt.check(rt.api.set16(dst, value, count, rt.getCurrentStream()));
  }

  static void memHostRegister(void *pointer, uint64_t bytes) {
    GpuRuntime &rt = get();
    if (rt.enter())
      rt.check(rt.api.registerHost(pointer, bytes));
  }

  static void memHostUnregister(void *pointer) {
    GpuRuntime &rt = get();
    if (rt.enter())
      rt.check(rt.api.unregisterHost(pointer));
  }

  /// Takes effect before the runtime starts (the first call of any other
  /// function), as in MLIR's wrappers.
  static void setDefaultDevice(int32_t device) { get().defaultDevice = device; }

  /// The multiprocessors of the device (NVIDIA SMs, AMD CUs), at least 1:
  /// persistent kernels launch as many blocks (asked once).
  static int32_t multiprocessorCount() {
    GpuRuntime &rt = get();
    int32_t count = rt.multiprocessors.load();
    if (count == 0) {
      count = std::max(1, rt.getDeviceInfo().multiprocessors);
      rt.multiprocessors.store(count);
    }
    return count;
  }

  /// A tensor map (TMA descriptor) of the strided memref `descriptor`
  /// (rank `rank`, MLIR's descriptor layout) with box `boxDims` (outermost
  /// first), in device memory, as nvgpu's tma.create.descriptor asks for
  /// it. Each distinct tensor and box is encoded and copied to the device
  /// once; later calls return the same copy, so launches re-encode nothing.
  static void *tensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                          int64_t dataType,
                                          int64_t interleave, int64_t swizzle,
                                          int64_t l2Promotion, int64_t oobFill,
                                          int64_t *boxDims) {
    GpuRuntime &rt = get();
    if (!rt.enter() || rank < 1 || rank > 5)
      return nullptr;
    // {allocated, aligned, offset, sizes[rank], strides[rank]}
    auto *fields = static_cast<int64_t *>(descriptor);
    TensorMapKey key;
    key.values.assign(fields + 1, fields + 3 + 2 * rank);
    key.values.insert(key.values.end(),
                      {rank, dataType, interleave, swizzle, l2Promotion,
                       oobFill});
    key.values.insert(key.values.end(), boxDims, boxDims + rank);
    std::lock_guard<std::mutex> lock(rt.tensorMapMutex);
    if (auto it = rt.tensorMaps.find(key); it != rt.tensorMaps.end())
      return it->second.device;
    // A bounded cache: past its size, wait for the work that may read the
    // maps, then start over.
    if (rt.tensorMaps.size() >= kMaxTensorMaps) {
      rt.check(rt.api.synchronizeStream(rt.getCurrentStream()));
      for (auto &[unused, entry] : rt.tensorMaps)
        rt.check(rt.api.free(entry.device));
      rt.tensorMaps.clear();
    }
    TensorMapEntry entry;
    if (!rt.check(rt.api.encodeTensorMap(entry.host.data(), fields, rank,
                                         dataType, interleave, swizzle,
                                         l2Promotion, oobFill, boxDims)) ||
        !rt.check(rt.api.allocate(entry.device, sizeof(entry.host))))
      return nullptr;
    auto inserted = rt.tensorMaps.emplace(std::move(key), std::move(entry));
    TensorMapEntry &stored = inserted.first->second;
    // In stream order: the kernels that read the map launch after the copy.
    if (!rt.check(rt.api.copy(stored.device, stored.host.data(),
                              sizeof(stored.host), rt.getCurrentStream())))
      return nullptr;
    return stored.device;
  }

private:
  GpuRuntime() = default;

  /// Frees the tensor maps of tensors whose aligned pointer is `pointer`,
  /// an allocation just freed (cuMemFree waits for the work that may read
  /// them): a later tensor at the same address gets maps of its own.
  void releaseTensorMaps(void *pointer) {
    std::lock_guard<std::mutex> lock(tensorMapMutex);
    auto address = reinterpret_cast<int64_t>(pointer);
    for (auto it = tensorMaps.begin(); it != tensorMaps.end();) {
      if (it->first.values.front() != address) {
        ++it;
        continue;
      }
      check(api.free(it->second.device));
      it = tensorMaps.erase(it);
    }
  }

  /// Tensor maps by everything that encodes them.
  struct TensorMapKey {
    std::vector<int64_t> values;
    bool operator<(const TensorMapKey &other) const {
      return values < other.values;
    }
  };
  struct TensorMapEntry {
    /// The encoded map (CUtensorMap: 128 bytes).
    alignas(64) std::array<uint64_t, 16> host{};
    static_assert(sizeof(host) == 128, "a CUtensorMap is 128 bytes");
    void *device = nullptr;
  };
  static constexpr size_t kMaxTensorMaps = 1024;
  std::mutex tensorMapMutex;
  std::map<TensorMapKey, TensorMapEntry> tensorMaps;

  /// Makes the device current on this thread; false without a device.
  bool enter() {
    if (!initialize(nullptr))
      return false;
    thread_local bool entered = false;
    if (!entered) {
      check(api.enterThread());
      entered = true;
    }
    return true;
  }

  Stream getCurrentStream() {
    return callerStream.load(std::memory_order_relaxed)
               ? stream.load(std::memory_order_relaxed)
               : ownStream;
  }

  /// Records and reports a failed call; returns whether it succeeded.
  bool check(Call call, const char *kernel = nullptr) {
    if (call.result == Api::kSuccess)
      return true;
    failures.record(call.name, kernel, api.errorName(call.result),
                    api.errorText(call.result));
    return false;
  }

  bool takeInto(std::string *error) {
    std::string first = failures.take();
    if (first.empty())
      return true;
    if (error)
      *error = std::move(first);
    return false;
  }

  bool copyAndWait(void *dst, const void *src, size_t bytes) {
    if (!enter())
      return false;
    Stream current = getCurrentStream();
    return check(api.copy(dst, src, bytes, current)) &&
           check(api.synchronizeStream(current));
  }

  bool start() {
    if (!api.open(startError))
      return false;
    auto fails = [&](Call call) {
      if (call.result == Api::kSuccess)
        return false;
      const char *name = api.errorName(call.result);
      startError = std::string(call.name) + " failed: " + (name ? name : "?");
      return true;
    };
    int count = 0;
    if (fails(api.initialize()) || fails(api.countDevices(count)))
      return false;
    if (count <= defaultDevice) {
      startError = std::string("no ") + Api::kName + " device " +
                   std::to_string(defaultDevice) + " (found " +
                   std::to_string(count) + ")";
      return false;
    }
    return !fails(api.selectDevice(defaultDevice)) &&
           !fails(api.createStream(ownStream));
  }

  Api api;
  std::once_flag once;
  bool ready = false;
  std::string startError;
  int defaultDevice = 0;
  Stream ownStream{};
  std::atomic<Stream> stream{};
  /// Whether `stream` is the caller's (even null: the default stream).
  std::atomic<bool> callerStream{false};
  std::atomic<bool> synchronous{true};
  std::atomic<int32_t> multiprocessors{0};
  FailureLog failures;
  KernelTable<Module, Function> kernels;
};

} // namespace mlir::tile::runtime

#endif // TILE_LIB_RUNTIME_GPURUNTIME_H
