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
//   types      Result, Module, Function, Stream, Event; Context (what makes
//              a device current on a thread: a CUcontext, a HIP ordinal);
//              Call = DriverCall<Result>
//   constants  kSuccess, kInvalidHandle (a Result), kName ("CUDA"),
//              kShortName ("cuda"), kLaunchName (the launch call's name,
//              for messages)
//   bool open(std::string &why)          load the driver library
//   const char *errorName(Result), *errorText(Result)
//   Call initialize(), countDevices(int &),
//        openDevice(int ordinal, Context &)  its primary context, retained
//        getCurrent(Context &), setCurrent(Context)  the calling thread's
//        createStream(Stream &)              in the current context
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
//   Call describe(DeviceInfo &, int ordinal)
//
// Devices: each GPU is started on first use (its primary context retained,
// a stream of tile's own created) and has its own streams, modules, tensor
// maps and log of failed calls. A thread's calls go to its device: the
// default one (0), or the one of the innermost enterDevice scope, which
// also makes the device's context current on the thread and restores the
// one it found (torch's current device) when it ends.
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
  using Context = typename Api::Context;
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

  int getDeviceCount() override {
    return initialize(nullptr) ? deviceCount : 0;
  }

  bool enterDevice(int ordinal, std::string *why) override {
    ThreadState &thread = getThreadState();
    // Nested in a scope of the same device: its context is current.
    if (thread.depth > 0 && thread.device == ordinal) {
      ++thread.depth;
      return true;
    }
    if (!startDevice(ordinal, why))
      return false;
    if (thread.scopes == kMaxScopes) {
      if (why)
        *why = "device scopes nested too deeply";
      return false;
    }
    Saved saved{thread.device, thread.entered, thread.depth, Context{}, false};
    Context context = devices[ordinal].context;
    Context current{};
    bool known = api.getCurrent(current).result == Api::kSuccess;
    if (!known || current != context) {
      Call set = api.setCurrent(context);
      if (set.result != Api::kSuccess) {
        if (why)
          *why =
              FailureLog::describe(set.name, nullptr, api.errorName(set.result),
                                   api.errorText(set.result));
        return false;
      }
      saved.context = current;
      saved.switched = known;
    }
    thread.saved[thread.scopes++] = saved;
    thread.device = ordinal;
    thread.entered = ordinal;
    thread.depth = 1;
    return true;
  }

  void leaveDevice() override {
    ThreadState &thread = getThreadState();
    if (thread.depth == 0 || --thread.depth > 0)
      return;
    Saved saved = thread.saved[--thread.scopes];
    int left = thread.device;
    thread.device = saved.device;
    thread.depth = saved.depth;
    if (!saved.switched) {
      // The context current before the scope is still current.
      thread.entered = left;
      return;
    }
    check(api.setCurrent(saved.context));
    // Restored, an enclosing scope's context is its device's; outside any
    // scope it is the caller's (unknown: the next call sets its own).
    thread.entered = saved.depth > 0 ? saved.entered : -1;
  }

  DeviceInfo getDeviceInfo() override {
    DeviceInfo info;
    int device = enter();
    if (device >= 0)
      check(api.describe(info, device));
    return info;
  }

  void *allocate(size_t bytes) override {
    void *pointer = nullptr;
    if (enter() < 0 || !check(api.allocate(pointer, bytes ? bytes : 1)))
      return nullptr;
    return pointer;
  }

  void release(void *pointer) override {
    int device = enter();
    if (!pointer || device < 0)
      return;
    check(api.free(pointer));
    releaseTensorMaps(devices[device], pointer);
  }

  bool copyToDevice(void *device, const void *host, size_t bytes) override {
    return copyAndWait(device, host, bytes);
  }
  bool copyToHost(void *host, const void *device, size_t bytes) override {
    return copyAndWait(host, device, bytes);
  }

  bool synchronize(std::string *error) override {
    int device = enter();
    if (device < 0) {
      if (error)
        *error = std::string("no ") + Api::kName +
                 " device: " + whyNot(getOrdinal());
      return false;
    }
    check(api.synchronizeStream(getCurrentStream(device)));
    return takeInto(error);
  }

  std::string takeError() override {
    std::string error;
    takeInto(&error);
    return error;
  }

  void setStream(int ordinal, void *newStream) override {
    if (ordinal < 0 || ordinal >= kMaxDevices)
      return;
    devices[ordinal].stream.store(static_cast<Stream>(newStream));
    devices[ordinal].callerStream.store(newStream != nullptr);
  }
  void setCallerStream(int ordinal, void *newStream) override {
    if (ordinal < 0 || ordinal >= kMaxDevices)
      return;
    devices[ordinal].stream.store(static_cast<Stream>(newStream));
    devices[ordinal].callerStream.store(true);
  }
  void *getStream() override {
    int device = enter();
    return device < 0 ? nullptr : getCurrentStream(device);
  }
  void setSynchronous(bool value) override { synchronous.store(value); }
  bool isSynchronous() override { return synchronous.load(); }

  bool timeCalls(const std::function<void()> &run, unsigned warmup,
                 unsigned calls, std::vector<double> &seconds,
                 std::string *error) override {
    if (!synchronize(error))
      return false;
    int device = enter();
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
      Stream current = getCurrentStream(device);
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

  //===--------------------------------------------------------------------===//
  // Tensor maps
  //===--------------------------------------------------------------------===//

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

  //===--------------------------------------------------------------------===//
  // Devices and threads
  //===--------------------------------------------------------------------===//

  /// A GPU, started on first use.
  struct DeviceState {
    std::once_flag once;
    std::atomic<bool> ready{false};
    /// Why it did not start.
    std::string error;
    Context context{};
    Stream ownStream{};
    /// The caller's stream when `callerStream` (even null: the default
    /// stream), else tile's own is used.
    std::atomic<Stream> stream{};
    std::atomic<bool> callerStream{false};
    std::atomic<int32_t> multiprocessors{0};
    /// Failed calls of threads whose device it is: a thread timing on one
    /// GPU never sees another's failures.
    FailureLog failures;
    /// Its tensor maps (in its memory).
    std::mutex tensorMapMutex;
    std::map<TensorMapKey, TensorMapEntry> tensorMaps;
  };

  /// What an enterDevice scope restores when it ends.
  struct Saved {
    int device, entered, depth;
    Context context;
    /// Whether the scope made its context current (then `context` was).
    bool switched;
  };
  static constexpr int kMaxScopes = 16;

  /// A thread's device and scopes (trivially destructible: the lowered
  /// code's destructors may run late in the thread's exit).
  struct ThreadState {
    /// The device the thread's calls go to; -1: the default one.
    int device = -1;
    /// The device whose context tile last made current on the thread; -1:
    /// none known.
    int entered = -1;
    /// Scopes of `device` the thread is in (0: none).
    int depth = 0;
    int scopes = 0;
    std::array<Saved, kMaxScopes> saved;
  };
  static ThreadState &getThreadState() {
    static thread_local ThreadState state;
    return state;
  }

  /// The calling thread's device ordinal (started or not).
  int getOrdinal() {
    ThreadState &thread = getThreadState();
    return thread.device >= 0 ? thread.device : defaultDevice;
  }

  /// Makes the calling thread's device current on it (starting it on first
  /// use) and returns its ordinal; -1 without it. Within an enterDevice
  /// scope, or once a thread outside scopes has entered, this is a compare.
  int enter() {
    ThreadState &thread = getThreadState();
    int ordinal = thread.device >= 0 ? thread.device : defaultDevice;
    if (thread.entered == ordinal)
      return ordinal;
    if (!startDevice(ordinal, nullptr) ||
        !check(api.setCurrent(devices[ordinal].context)))
      return -1;
    thread.entered = ordinal;
    return ordinal;
  }

  /// Starts device `ordinal` (once); false, with the reason, without it.
  bool startDevice(int ordinal, std::string *why) {
    if (ordinal >= 0 && ordinal < kMaxDevices &&
        devices[ordinal].ready.load(std::memory_order_acquire))
      return true;
    if (!initialize(why))
      return false;
    if (ordinal < 0 || ordinal >= deviceCount) {
      if (why)
        *why = whyNot(ordinal);
      return false;
    }
    bool started = openOnce(ordinal);
    if (!started && why)
      *why = devices[ordinal].error;
    return started;
  }

  /// Opens device `ordinal` (a valid ordinal) the first time it is asked
  /// for; whether it is open.
  bool openOnce(int ordinal) {
    DeviceState &device = devices[ordinal];
    std::call_once(device.once, [&] {
      device.ready.store(openDevice(ordinal, device.error),
                         std::memory_order_release);
    });
    return device.ready.load(std::memory_order_acquire);
  }

  /// Why device `ordinal` cannot be used.
  std::string whyNot(int ordinal) {
    if (!ready)
      return startError;
    if (ordinal < 0 || ordinal >= deviceCount)
      return noDevice(ordinal);
    return devices[ordinal].error;
  }

  std::string noDevice(int ordinal) const {
    return std::string("no ") + Api::kName + " device " +
           std::to_string(ordinal) + " (found " + std::to_string(foundDevices) +
           ")";
  }

  /// Whether `call` failed; then `why` says which call and how.
  bool failed(Call call, std::string &why) {
    if (call.result == Api::kSuccess)
      return false;
    const char *name = api.errorName(call.result);
    why = std::string(call.name) + " failed: " + (name ? name : "?");
    return true;
  }

  /// Retains the device's context and creates its stream there, leaving
  /// the thread's current context as it found it; false with `why`.
  bool openDevice(int ordinal, std::string &why) {
    auto fails = [&](Call call) { return failed(call, why); };
    DeviceState &device = devices[ordinal];
    if (fails(api.openDevice(ordinal, device.context)))
      return false;
    Context previous{};
    bool restore = api.getCurrent(previous).result == Api::kSuccess;
    bool opened = !fails(api.setCurrent(device.context)) &&
                  !fails(api.createStream(device.ownStream));
    if (restore)
      restore = api.setCurrent(previous).result == Api::kSuccess;
    if (!restore)
      getThreadState().entered = -1;
    return opened;
  }

  bool start() {
    if (!api.open(startError))
      return false;
    auto fails = [&](Call call) { return failed(call, startError); };
    if (fails(api.initialize()) || fails(api.countDevices(foundDevices)))
      return false;
    deviceCount = std::min(foundDevices, kMaxDevices);
    if (defaultDevice < 0 || defaultDevice >= deviceCount) {
      startError = noDevice(defaultDevice);
      return false;
    }
    // The default device starts with the runtime: without it, tools have
    // nothing to run on.
    if (!openOnce(defaultDevice)) {
      startError = devices[defaultDevice].error;
      return false;
    }
    return true;
  }

  Stream getCurrentStream(int ordinal) {
    DeviceState &device = devices[ordinal];
    return device.callerStream.load(std::memory_order_relaxed)
               ? device.stream.load(std::memory_order_relaxed)
               : device.ownStream;
  }

  //===--------------------------------------------------------------------===//
  // Tensor maps
  //===--------------------------------------------------------------------===//

  /// Frees the tensor maps of tensors whose aligned pointer is `pointer`,
  /// an allocation of `device` just freed (cuMemFree waits for the work
  /// that may read them): a later tensor at the same address gets maps of
  /// its own.
  void releaseTensorMaps(DeviceState &device, void *pointer) {
    std::lock_guard<std::mutex> lock(device.tensorMapMutex);
    auto address = reinterpret_cast<int64_t>(pointer);
    for (auto it = device.tensorMaps.begin(); it != device.tensorMaps.end();) {
      if (it->first.values.front() != address) {
        ++it;
        continue;
      }
      check(api.free(it->second.device));
      it = device.tensorMaps.erase(it);
    }
  }

  /// The tensor map of MgpuFunctions::tensorMapEncodeTiledMemref, in the
  /// memory of the thread's device. Each distinct tensor and box is encoded
  /// and copied to the device once; later calls return the same copy, so
  /// launches re-encode nothing.
  void *getTensorMap(int64_t rank, void *descriptor, int64_t dataType,
                     int64_t interleave, int64_t swizzle, int64_t l2Promotion,
                     int64_t oobFill, int64_t *boxDims) {
    int ordinal = enter();
    if (ordinal < 0 || rank < 1 || rank > 5)
      return nullptr;
    DeviceState &device = devices[ordinal];
    // {allocated, aligned, offset, sizes[rank], strides[rank]}
    auto *fields = static_cast<int64_t *>(descriptor);
    TensorMapKey key;
    key.values.assign(fields + 1, fields + 3 + 2 * rank);
    key.values.insert(key.values.end(),
                      {rank, dataType, interleave, swizzle, l2Promotion,
                       oobFill});
    key.values.insert(key.values.end(), boxDims, boxDims + rank);
    std::lock_guard<std::mutex> lock(device.tensorMapMutex);
    if (auto it = device.tensorMaps.find(key); it != device.tensorMaps.end())
      return it->second.device;
    // A bounded cache: past its size, wait for the work that may read the
    // maps, then start over.
    if (device.tensorMaps.size() >= kMaxTensorMaps) {
      check(api.synchronizeStream(getCurrentStream(ordinal)));
      for (auto &[unused, entry] : device.tensorMaps)
        check(api.free(entry.device));
      device.tensorMaps.clear();
    }
    TensorMapEntry entry;
    if (!check(api.encodeTensorMap(entry.host.data(), fields, rank, dataType,
                                   interleave, swizzle, l2Promotion, oobFill,
                                   boxDims)) ||
        !check(api.allocate(entry.device, sizeof(entry.host))))
      return nullptr;
    auto inserted = device.tensorMaps.emplace(std::move(key), std::move(entry));
    TensorMapEntry &stored = inserted.first->second;
    // In stream order: the kernels that read the map launch after the copy.
    if (!check(api.copy(stored.device, stored.host.data(), sizeof(stored.host),
                        getCurrentStream(ordinal))))
      return nullptr;
    return stored.device;
  }

  //===--------------------------------------------------------------------===//
  // Failures
  //===--------------------------------------------------------------------===//

  /// The failures of the calling thread's device.
  FailureLog &getFailures() {
    int ordinal = getOrdinal();
    return ordinal >= 0 && ordinal < kMaxDevices ? devices[ordinal].failures
                                                 : failures;
  }

  /// Records (for the thread's device) and reports a failed call; returns
  /// whether it succeeded.
  bool check(Call call, const char *kernel = nullptr) {
    if (call.result == Api::kSuccess)
      return true;
    getFailures().record(call.name, kernel, api.errorName(call.result),
                         api.errorText(call.result));
    return false;
  }

  /// The thread's device's first failure since the last check, into
  /// `error`; false if there was one.
  bool takeInto(std::string *error) {
    std::string first = getFailures().take();
    if (first.empty())
      first = failures.take();
    if (first.empty())
      return true;
    if (error)
      *error = std::move(first);
    return false;
  }

  bool copyAndWait(void *dst, const void *src, size_t bytes) {
    int device = enter();
    if (device < 0)
      return false;
    Stream current = getCurrentStream(device);
    return check(api.copy(dst, src, bytes, current)) &&
           check(api.synchronizeStream(current));
  }

  Api api;
  std::once_flag once;
  bool ready = false;
  std::string startError;
  /// Set before the start (mgpuSetDefaultDevice).
  int defaultDevice = 0;
  int foundDevices = 0;
  /// The devices tile drives: the first kMaxDevices found.
  int deviceCount = 0;
  std::array<DeviceState, kMaxDevices> devices;
  std::atomic<bool> synchronous{true};
  /// Failures of a thread whose device is no device (not expected).
  FailureLog failures;
  KernelTable<Module, Function> kernels;
};

} // namespace mlir::tile::runtime

#endif // TILE_LIB_RUNTIME_GPURUNTIME_H
