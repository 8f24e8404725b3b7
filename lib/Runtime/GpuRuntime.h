//===- GpuRuntime.h - One GPU runtime over any driver API -------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Runtime (and its unit test): the implementation of the
// Runtime interface and of the mgpu* functions (MgpuFunctions.h), written
// once over a driver API table that CudaRuntime.cpp and RocmRuntime.cpp
// provide. Header-only and dependency-free, like the runtimes.
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

#include "FailureLog.h"
#include "KernelTable.h"
#include "MgpuFunctions.h"

#include "tile/Runtime/Runtime.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tile::runtime {

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
    return MgpuFunctions<Api>::getSymbols();
  }

private:
  friend class MgpuFunctions<Api>;

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

  /// The tensor map of MgpuFunctions::tensorMapEncodeTiledMemref, in device
  /// memory. Each distinct tensor and box is encoded and copied to the
  /// device once; later calls return the same copy, so launches re-encode
  /// nothing.
  void *getTensorMap(int64_t rank, void *descriptor, int64_t dataType,
                     int64_t interleave, int64_t swizzle, int64_t l2Promotion,
                     int64_t oobFill, int64_t *boxDims) {
    if (!enter() || rank < 1 || rank > 5)
      return nullptr;
    // {allocated, aligned, offset, sizes[rank], strides[rank]}
    auto *fields = static_cast<int64_t *>(descriptor);
    TensorMapKey key;
    key.values.assign(fields + 1, fields + 3 + 2 * rank);
    key.values.insert(key.values.end(),
                      {rank, dataType, interleave, swizzle, l2Promotion,
                       oobFill});
    key.values.insert(key.values.end(), boxDims, boxDims + rank);
    std::lock_guard<std::mutex> lock(tensorMapMutex);
    if (auto it = tensorMaps.find(key); it != tensorMaps.end())
      return it->second.device;
    // A bounded cache: past its size, wait for the work that may read the
    // maps, then start over.
    if (tensorMaps.size() >= kMaxTensorMaps) {
      check(api.synchronizeStream(getCurrentStream()));
      for (auto &[unused, entry] : tensorMaps)
        check(api.free(entry.device));
      tensorMaps.clear();
    }
    TensorMapEntry entry;
    if (!check(api.encodeTensorMap(entry.host.data(), fields, rank, dataType,
                                   interleave, swizzle, l2Promotion, oobFill,
                                   boxDims)) ||
        !check(api.allocate(entry.device, sizeof(entry.host))))
      return nullptr;
    auto inserted = tensorMaps.emplace(std::move(key), std::move(entry));
    TensorMapEntry &stored = inserted.first->second;
    // In stream order: the kernels that read the map launch after the copy.
    if (!check(api.copy(stored.device, stored.host.data(), sizeof(stored.host),
                        getCurrentStream())))
      return nullptr;
    return stored.device;
  }

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
