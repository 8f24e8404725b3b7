//===- RuntimeTest.cpp - The GPU runtimes, on a fake driver and a real one ===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The CUDA and ROCm runtimes are one implementation (lib/Runtime/
// GpuRuntime.h) over two driver tables. Its behaviour is tested here over a
// fake driver that counts calls and fails on request: modules loaded once
// per binary, functions looked up once, the dynamic shared-memory opt-in
// once per function and size, the first failure kept for the caller, event
// timing that checks every call, no calls without a device; several
// devices: modules loaded on each where it first runs, launches on the
// scope's device and stream, contexts restored. Then each real runtime: its
// mgpu* table, and either how it fails without its GPU or, on a machine
// with one, memory, copies, synchronization and launch errors.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Runtime/GpuRuntime.h"

#include "tile/Runtime/CudaRuntime.h"
#include "tile/Runtime/RocmRuntime.h"

#include "gtest/gtest.h"

#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

using namespace mlir::tile::runtime;

namespace {

using LaunchFn = void (*)(void *, intptr_t, intptr_t, intptr_t, intptr_t,
                          intptr_t, intptr_t, int32_t, void *, void **, void **,
                          size_t);
using LoadFn = void *(*)(void *, size_t);
using UnloadFn = void (*)(void *);
using GetFunctionFn = void *(*)(void *, const char *);
using StreamFn = void (*)(void *);

void *lookup(const SymbolList &symbols, const char *name) {
  for (auto &[symbol, address] : symbols)
    if (symbol == name)
      return address;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// A fake driver
//===----------------------------------------------------------------------===//

struct FakeObject {
  std::string name;
};

/// What a launch saw.
struct FakeLaunch {
  std::string function;
  FakeObject *stream;
  /// The thread's current context.
  FakeObject *context;
};

/// Counts calls by name; a call listed in `failNext` fails once with that
/// result. Device memory is host memory; time advances 1 ms per launch.
/// Each device has a context ("context N"; current per thread) and its
/// stream (device 0's is `ownStream`); a module loaded on device N > 0 is
/// named "DATA@N".
struct FakeDriver {
  using Result = int;
  using Module = FakeObject *;
  using Function = FakeObject *;
  using Stream = FakeObject *;
  using Event = FakeObject *;
  using Context = FakeObject *;
  using Call = DriverCall<Result>;
  static constexpr Result kSuccess = 0;
  static constexpr Result kInvalidHandle = 400;
  static constexpr const char *kName = "FAKE";
  static constexpr const char *kShortName = "fake";
  static constexpr const char *kLaunchName = "fakeLaunch";
  static constexpr bool kHasTensorMaps = true;
  static constexpr bool kHasClusters = true;

  // Configuration.
  bool hasDriver = true;
  int devices = 1;
  std::map<std::string, Result> failNext;

  // Observations.
  std::map<std::string, int> calls;
  std::vector<std::pair<std::string, int32_t>> optIns;
  std::vector<Stream> launchStreams;
  std::vector<FakeLaunch> launches;
  /// The cluster shape of each cluster launch.
  std::vector<std::array<intptr_t, 3>> clusters;
  std::vector<Stream> synchronizedStreams;
  double milliseconds = 0;

  FakeObject ownStream{"own stream"};
  std::vector<std::unique_ptr<FakeObject>> objects;
  std::map<Event, double> recorded;

  /// Guards everything above: threads share the driver.
  std::recursive_mutex mutex;

  Call call(const char *name) {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    ++calls[name];
    auto it = failNext.find(name);
    if (it == failNext.end())
      return {kSuccess, name};
    Result result = it->second;
    failNext.erase(it);
    return {result, name};
  }
  FakeObject *make(std::string name) {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    objects.push_back(std::make_unique<FakeObject>(FakeObject{name}));
    return objects.back().get();
  }

  bool open(std::string &why) {
    if (!hasDriver)
      why = "no fake driver";
    return hasDriver;
  }
  const char *errorName(Result result) {
    return result == kInvalidHandle ? "FAKE_INVALID_HANDLE" : "FAKE_ERROR";
  }
  const char *errorText(Result) { return "it failed"; }

  Call initialize() { return call("fakeInit"); }
  Call countDevices(int &count) {
    count = devices;
    return call("fakeCount");
  }
  std::map<int, Context> contexts;
  std::map<std::thread::id, Context> current;
  Call openDevice(int ordinal, Context &context) {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    Context &known = contexts[ordinal];
    if (!known)
      known = make("context " + std::to_string(ordinal));
    context = known;
    return call("fakeOpen");
  }
  Call getCurrent(Context &context) {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    context = current[std::this_thread::get_id()];
    return call("fakeGetCurrent");
  }
  Call setCurrent(Context context) {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    Call result = call("fakeSetCurrent");
    if (result.result == kSuccess)
      current[std::this_thread::get_id()] = context;
    return result;
  }
  Context getCurrentHere() {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    return current[std::this_thread::get_id()];
  }
  /// The device of the thread's current context; -1 for none.
  int currentDevice() {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    Context here = current[std::this_thread::get_id()];
    for (auto &[ordinal, context] : contexts)
      if (context == here)
        return ordinal;
    return -1;
  }
  Call createStream(Stream &stream) {
    int device = currentDevice();
    stream = device == 0 ? &ownStream
                         : make("stream of device " + std::to_string(device));
    return call("fakeStreamCreate");
  }

  /// DATA, or DATA@N on device N > 0.
  std::string nameOnDevice(const void *data) {
    std::string name = static_cast<const char *>(data);
    int device = currentDevice();
    return device == 0 ? name : name + "@" + std::to_string(device);
  }
  // A module unloaded and loaded again gets its old handle back, as a
  // driver may reuse the address.
  std::map<std::string, Module> moduleHandles;
  Call loadModule(Module &module, const void *data) {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    std::string name = nameOnDevice(data);
    Module &handle = moduleHandles[name];
    if (!handle)
      handle = make(name);
    module = handle;
    return call("fakeLoad");
  }
  Call loadModuleJIT(Module &module, const void *data, int) {
    module = make(nameOnDevice(data));
    return call("fakeLoadJIT");
  }
  Call unloadModule(Module) { return call("fakeUnload"); }
  Call getFunction(Function &function, Module module, const char *name) {
    function = make(module->name + "." + name);
    return call("fakeGetFunction");
  }
  Call setDynamicSharedMemory(Function function, int32_t bytes) {
    Call result = call("fakeOptIn");
    if (result.result == kSuccess)
      optIns.emplace_back(function->name, bytes);
    return result;
  }
  Call launch(Function function, intptr_t, intptr_t, intptr_t, intptr_t,
              intptr_t, intptr_t, int32_t, Stream stream, void **, void **) {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    Call result = call("fakeLaunch");
    if (result.result == kSuccess) {
      launchStreams.push_back(stream);
      launches.push_back({function->name, stream, getCurrentHere()});
      milliseconds += 1;
    }
    return result;
  }
  Call launchClusters(Function function, const intptr_t cluster[3],
                      intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                      int32_t sharedBytes, Stream stream, void **params,
                      void **extra) {
    clusters.push_back({cluster[0], cluster[1], cluster[2]});
    return launch(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                  sharedBytes, stream, params, extra);
  }

  Call synchronizeStream(Stream stream) {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    synchronizedStreams.push_back(stream);
    return call("fakeStreamSynchronize");
  }
  Call waitEvent(Stream, Event) { return call("fakeWaitEvent"); }
  Call createEvent(Event &event, bool timing) {
    event = make(timing ? "timing event" : "event");
    return call("fakeEventCreate");
  }
  Call destroyEvent(Event) { return call("fakeEventDestroy"); }
  Call recordEvent(Event event, Stream) {
    recorded[event] = milliseconds;
    return call("fakeEventRecord");
  }
  Call synchronizeEvent(Event) { return call("fakeEventSynchronize"); }
  Call elapsedMilliseconds(float &result, Event start, Event stop) {
    result = float(recorded[stop] - recorded[start]);
    return call("fakeEventElapsed");
  }

  Call allocate(void *&pointer, size_t bytes) {
    Call result = call("fakeAlloc");
    pointer = result.result == kSuccess ? std::malloc(bytes) : nullptr;
    return result;
  }
  Call free(void *pointer) {
    std::free(pointer);
    return call("fakeFree");
  }
  Call copy(void *dst, const void *src, size_t bytes, Stream) {
    std::memcpy(dst, src, bytes);
    return call("fakeCopy");
  }
  Call set32(void *, unsigned, size_t, Stream) { return call("fakeSet32"); }
  Call set16(void *, unsigned short, size_t, Stream) {
    return call("fakeSet16");
  }
  Call registerHost(void *, size_t) { return call("fakeRegister"); }
  Call unregisterHost(void *) { return call("fakeUnregister"); }

  /// Fills all 16 words of the map (a CUtensorMap is 128 bytes): the
  /// tensor's address, the first box dim, then words counting from 2.
  Call encodeTensorMap(void *map, const int64_t *fields, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t,
                       const int64_t *boxDims) {
    auto *words = static_cast<int64_t *>(map);
    words[0] = fields[1];
    words[1] = boxDims[0];
    for (int i = 2; i < 16; ++i)
      words[i] = i;
    return call("fakeEncodeTensorMap");
  }

  Call describe(DeviceInfo &info, int ordinal) {
    info.name = "fake device " + std::to_string(ordinal);
    info.chip = "fake_1";
    info.multiprocessors = 7 + ordinal;
    return call("fakeDescribe");
  }
};

/// A runtime of its own for each test (the runtime is a process singleton).
template <int Tag> struct Fake : FakeDriver {};

template <typename Api> struct Harness {
  GpuRuntime<Api> &runtime = GpuRuntime<Api>::get();
  Api &driver = runtime.getApi();
  SymbolList symbols = runtime.getSymbols();

  template <typename Fn> Fn get(const char *name) {
    void *address = lookup(symbols, name);
    EXPECT_NE(address, nullptr) << name;
    return reinterpret_cast<Fn>(address);
  }
  void *load(const char *binary) {
    return get<LoadFn>("mgpuModuleLoad")(const_cast<char *>(binary), 0);
  }
  void *function(void *module, const char *name) {
    return get<GetFunctionFn>("mgpuModuleGetFunction")(module, name);
  }
  void launch(void *function, int32_t sharedBytes = 0) {
    get<LaunchFn>("mgpuLaunchKernel")(function, 1, 1, 1, 32, 1, 1, sharedBytes,
                                      nullptr, nullptr, nullptr, 0);
  }
  std::string synchronize() {
    std::string error;
    if (runtime.synchronize(&error))
      return "";
    return error.empty() ? "(failed without a message)" : error;
  }
};

void expectEveryMgpuFunctionOnce(const SymbolList &symbols) {
  std::set<std::string> names;
  for (auto &[name, address] : symbols) {
    EXPECT_NE(address, nullptr) << name;
    EXPECT_TRUE(names.insert(name).second) << name << " listed twice";
  }
  // Every function MLIR 22's gpu-to-llvm and launch_func translation call.
  for (const char *required : {"mgpuModuleLoad",      "mgpuModuleLoadJIT",
                               "mgpuModuleUnload",    "mgpuModuleGetFunction",
                               "mgpuLaunchKernel",    "mgpuStreamCreate",
                               "mgpuStreamDestroy",   "mgpuStreamSynchronize",
                               "mgpuStreamWaitEvent", "mgpuEventCreate",
                               "mgpuEventDestroy",    "mgpuEventSynchronize",
                               "mgpuEventRecord",     "mgpuMemAlloc",
                               "mgpuMemFree",         "mgpuMemcpy",
                               "mgpuMemset32",        "mgpuMemset16",
                               "mgpuMemHostRegister", "mgpuMemHostUnregister",
                               "mgpuSetDefaultDevice"})
    EXPECT_TRUE(names.count(required)) << required;
}

//===----------------------------------------------------------------------===//
// The shared implementation, on the fake driver
//===----------------------------------------------------------------------===//

TEST(GpuRuntime, EachSymbolCallsItsDriverFunction) {
  Harness<Fake<1>> h;
  expectEveryMgpuFunctionOnce(h.symbols);
  void *module = h.load("binary");
  void *kernel = h.function(module, "k");
  h.launch(kernel);
  void *stream = h.get<void *(*)()>("mgpuStreamCreate")();
  EXPECT_EQ(stream, &h.driver.ownStream);
  h.get<StreamFn>("mgpuStreamSynchronize")(stream);
  void *event = h.get<void *(*)()>("mgpuEventCreate")();
  h.get<void (*)(void *, void *)>("mgpuEventRecord")(event, stream);
  h.get<void (*)(void *, void *)>("mgpuStreamWaitEvent")(stream, event);
  h.get<void (*)(void *)>("mgpuEventSynchronize")(event);
  h.get<void (*)(void *)>("mgpuEventDestroy")(event);
  void *memory =
      h.get<void *(*)(uint64_t, void *, bool)>("mgpuMemAlloc")(64, stream, 0);
  ASSERT_NE(memory, nullptr);
  int source[4] = {1, 2, 3, 4};
  h.get<void (*)(void *, void *, size_t, void *)>("mgpuMemcpy")(
      memory, source, sizeof(source), stream);
  EXPECT_EQ(std::memcmp(memory, source, sizeof(source)), 0);
  h.get<void (*)(void *, unsigned, size_t, void *)>("mgpuMemset32")(memory, 7,
                                                                    4, stream);
  h.get<void (*)(void *, unsigned short, size_t, void *)>("mgpuMemset16")(
      memory, 7, 4, stream);
  h.get<void (*)(void *, void *)>("mgpuMemFree")(memory, stream);
  h.get<void (*)(void *, uint64_t)>("mgpuMemHostRegister")(source, 16);
  h.get<void (*)(void *)>("mgpuMemHostUnregister")(source);
  h.get<void *(*)(void *, int)>("mgpuModuleLoadJIT")(const_cast<char *>("ptx"),
                                                     2);
  h.get<UnloadFn>("mgpuModuleUnload")(module);
  h.get<StreamFn>("mgpuStreamDestroy")(stream);
  for (const char *call :
       {"fakeLoad", "fakeGetFunction", "fakeLaunch", "fakeStreamSynchronize",
        "fakeEventCreate", "fakeEventRecord", "fakeWaitEvent",
        "fakeEventSynchronize", "fakeEventDestroy", "fakeAlloc", "fakeCopy",
        "fakeSet32", "fakeSet16", "fakeFree", "fakeRegister", "fakeUnregister",
        "fakeLoadJIT", "fakeUnload"})
    EXPECT_GE(h.driver.calls[call], 1) << call;
  EXPECT_EQ(h.synchronize(), "");
}

TEST(GpuRuntime, LoadsEachModuleOnceWhileInUse) {
  Harness<Fake<2>> h;
  void *first = h.load("a");
  EXPECT_EQ(h.load("a"), first);
  EXPECT_NE(h.load("b"), first);
  EXPECT_EQ(h.driver.calls["fakeLoad"], 2);
  auto unload = h.get<UnloadFn>("mgpuModuleUnload");
  unload(first);
  EXPECT_EQ(h.driver.calls["fakeUnload"], 0) << "a has a second user";
  unload(first);
  EXPECT_EQ(h.driver.calls["fakeUnload"], 1);
  // The last unload waits for the stream first: kernels may still run.
  EXPECT_EQ(h.driver.synchronizedStreams.size(), 1u);
  // Reloaded (the same handle here), its functions are looked up again.
  void *again = h.load("a");
  EXPECT_EQ(h.driver.calls["fakeLoad"], 3);
  h.function(again, "k");
  unload(again);
  again = h.load("a");
  h.function(again, "k");
  EXPECT_EQ(h.driver.calls["fakeGetFunction"], 2);
  EXPECT_EQ(h.synchronize(), "");
}

TEST(GpuRuntime, LooksUpFunctionsAndOptsInToSharedMemoryOnce) {
  Harness<Fake<3>> h;
  void *module = h.load("m");
  void *kernel = h.function(module, "k");
  EXPECT_EQ(h.function(module, "k"), kernel);
  // Another string with the same name finds the same function.
  std::string sameName = "k";
  EXPECT_EQ(h.function(module, sameName.c_str()), kernel);
  EXPECT_EQ(h.driver.calls["fakeGetFunction"], 1);
  void *other = h.function(module, "other");
  for (int32_t bytes : {0, 65536, 65536, 32768, 102400})
    h.launch(kernel, bytes);
  h.launch(other, 65536);
  using OptIns = std::vector<std::pair<std::string, int32_t>>;
  EXPECT_EQ(h.driver.optIns,
            (OptIns{{"m.k", 65536}, {"m.k", 102400}, {"m.other", 65536}}));
  EXPECT_EQ(h.driver.calls["fakeLaunch"], 6);
  EXPECT_EQ(h.synchronize(), "");
}

TEST(GpuRuntime, ClusterLaunchesPassTheirClusterShape) {
  Harness<Fake<20>> h;
  void *kernel = h.function(h.load("m"), "k");
  using ClusterLaunchFn =
      void (*)(void *, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
               intptr_t, intptr_t, intptr_t, intptr_t, int32_t, void *,
               void **, void **, size_t);
  auto launchClusters = h.get<ClusterLaunchFn>("mgpuLaunchClusterKernel");
  launchClusters(kernel, 2, 1, 1, 32, 16, 1, 384, 1, 1, 102400, nullptr,
                 nullptr, nullptr, 0);
  h.launch(kernel);
  using Shapes = std::vector<std::array<intptr_t, 3>>;
  EXPECT_EQ(h.driver.clusters, (Shapes{{2, 1, 1}}));
  EXPECT_EQ(h.driver.calls["fakeLaunch"], 2);
  // The dynamic shared memory opt-in holds for cluster launches too.
  using OptIns = std::vector<std::pair<std::string, int32_t>>;
  EXPECT_EQ(h.driver.optIns, (OptIns{{"m.k", 102400}}));
  EXPECT_EQ(h.synchronize(), "");
}

TEST(GpuRuntime, AFailedOptInSkipsTheLaunchAndIsRetried) {
  Harness<Fake<4>> h;
  void *kernel = h.function(h.load("m"), "k");
  h.driver.failNext["fakeOptIn"] = 7;
  h.launch(kernel, 65536);
  EXPECT_EQ(h.driver.calls["fakeLaunch"], 0);
  EXPECT_EQ(h.synchronize(),
            "fakeOptIn failed for kernel 'k': FAKE_ERROR (it failed)");
  h.launch(kernel, 65536);
  EXPECT_EQ(h.driver.calls["fakeOptIn"], 2);
  EXPECT_EQ(h.driver.calls["fakeLaunch"], 1);
  EXPECT_EQ(h.synchronize(), "");
}

TEST(GpuRuntime, KeepsTheFirstFailureForTheCaller) {
  Harness<Fake<5>> h;
  void *kernel = h.function(h.load("m"), "k");
  h.driver.failNext["fakeLaunch"] = 7;
  h.launch(kernel);
  h.driver.failNext["fakeCopy"] = 7;
  int value = 0, copy = 0;
  EXPECT_FALSE(h.runtime.copyToHost(&copy, &value, sizeof(value)));
  EXPECT_EQ(h.synchronize(),
            "fakeLaunch failed for kernel 'k': FAKE_ERROR (it failed)");
  EXPECT_EQ(h.synchronize(), "") << "a failure is reported once";
  // A null function (a failed lookup) fails the launch, named.
  h.launch(nullptr);
  EXPECT_EQ(h.synchronize(),
            "fakeLaunch failed: FAKE_INVALID_HANDLE (it failed)");
  EXPECT_EQ(h.driver.calls["fakeLaunch"], 1);
  // takeError collects without waiting for the stream.
  size_t waits = h.driver.synchronizedStreams.size();
  h.driver.failNext["fakeLaunch"] = 7;
  h.launch(kernel);
  EXPECT_NE(h.runtime.takeError(), "");
  EXPECT_EQ(h.driver.synchronizedStreams.size(), waits);
}

TEST(GpuRuntime, TimesEachCallWithEvents) {
  Harness<Fake<6>> h;
  void *kernel = h.function(h.load("m"), "k");
  std::vector<double> seconds;
  std::string error;
  // Two launches per call: 2 ms each; the warm-up calls are not timed.
  ASSERT_TRUE(h.runtime.timeCalls(
      [&] {
        h.launch(kernel);
        h.launch(kernel);
      },
      /*warmup=*/3, /*calls=*/4, seconds, &error))
      << error;
  EXPECT_EQ(seconds, std::vector<double>(4, 2e-3));
  EXPECT_EQ(h.driver.calls["fakeLaunch"], 14);
  EXPECT_EQ(h.driver.calls["fakeEventCreate"], 2);
  EXPECT_EQ(h.driver.calls["fakeEventDestroy"], 2);
}

TEST(GpuRuntime, EventFailuresFailTheTiming) {
  Harness<Fake<7>> h;
  std::vector<double> seconds;
  std::string error;
  h.driver.failNext["fakeEventElapsed"] = 7;
  EXPECT_FALSE(h.runtime.timeCalls([] {}, 0, 3, seconds, &error));
  EXPECT_EQ(error, "fakeEventElapsed failed: FAKE_ERROR (it failed)");
  EXPECT_TRUE(seconds.empty());
  EXPECT_EQ(h.driver.calls["fakeEventDestroy"], 2);
  h.driver.failNext["fakeEventCreate"] = 7;
  EXPECT_FALSE(h.runtime.timeCalls([] {}, 0, 3, seconds, &error));
  EXPECT_EQ(error, "fakeEventCreate failed: FAKE_ERROR (it failed)");
}

TEST(GpuRuntime, LaunchOverheadDefersTheLoweredSynchronizations) {
  Harness<Fake<8>> h;
  auto streamSynchronize = h.get<StreamFn>("mgpuStreamSynchronize");
  void *kernel = h.function(h.load("m"), "k");
  auto call = [&] {
    h.launch(kernel);
    streamSynchronize(nullptr);
  };
  double perCall = -1;
  std::string error;
  ASSERT_TRUE(h.runtime.timeHostOverhead(call, /*warmup=*/2, /*calls=*/10,
                                         perCall, &error))
      << error;
  EXPECT_GE(perCall, 0);
  EXPECT_EQ(h.driver.calls["fakeLaunch"], 12);
  // Two warm-up calls wait, then one wait before and one after the timed
  // calls.
  EXPECT_EQ(h.driver.calls["fakeStreamSynchronize"], 4);
  EXPECT_TRUE(h.runtime.isSynchronous());
}

TEST(GpuRuntime, AsynchronousCallsAndCallerStreams) {
  Harness<Fake<9>> h;
  auto streamSynchronize = h.get<StreamFn>("mgpuStreamSynchronize");
  void *kernel = h.function(h.load("m"), "k");
  h.runtime.setSynchronous(false);
  streamSynchronize(nullptr);
  EXPECT_EQ(h.driver.calls["fakeStreamSynchronize"], 0);
  h.runtime.setSynchronous(true);
  streamSynchronize(nullptr);
  EXPECT_EQ(h.driver.calls["fakeStreamSynchronize"], 1);

  FakeObject callerStream{"caller's stream"};
  h.runtime.setStream(0, &callerStream);
  EXPECT_EQ(h.get<void *(*)()>("mgpuStreamCreate")(), &callerStream);
  h.launch(kernel);
  int value = 3, copy = 0;
  ASSERT_TRUE(h.runtime.copyToDevice(&copy, &value, sizeof(value)));
  EXPECT_EQ(copy, 3);
  EXPECT_EQ(h.driver.synchronizedStreams.back(), &callerStream)
      << "a copy waits for the stream it went to";
  h.runtime.setStream(0, nullptr);
  h.launch(kernel);
  // The caller's default stream (null, as torch's current stream is by
  // default) is a stream of the caller's too, not "none".
  h.runtime.setCallerStream(0, nullptr);
  h.launch(kernel);
  h.runtime.setStream(0, nullptr);
  h.launch(kernel);
  EXPECT_EQ(h.driver.launchStreams,
            (std::vector<FakeObject *>{&callerStream, &h.driver.ownStream,
                                       nullptr, &h.driver.ownStream}));
}

TEST(GpuRuntime, WithoutADeviceNothingReachesTheDriver) {
  using Api = Fake<10>;
  Api &driver = GpuRuntime<Api>::get().getApi();
  driver.devices = 0;
  Harness<Api> h;
  std::string why;
  EXPECT_FALSE(h.runtime.initialize(&why));
  EXPECT_EQ(why, "no FAKE device 0 (found 0)");
  EXPECT_EQ(h.load("m"), nullptr);
  h.launch(reinterpret_cast<void *>(&driver));
  EXPECT_EQ(h.runtime.allocate(16), nullptr);
  EXPECT_EQ(h.synchronize(), "no FAKE device: no FAKE device 0 (found 0)");
  for (const char *call :
       {"fakeLoad", "fakeLaunch", "fakeAlloc", "fakeOpen", "fakeStreamCreate"})
    EXPECT_EQ(driver.calls[call], 0) << call;
}

TEST(GpuRuntime, TensorMapsAreEncodedOncePerTensorAndBox) {
  using Api = Fake<13>;
  Harness<Api> h;
  auto encode = reinterpret_cast<void *(*)(int64_t, void *, int64_t, int64_t,
                                           int64_t, int64_t, int64_t,
                                           int64_t *)>(
      lookup(h.symbols, "mgpuTensorMapEncodeTiledMemref"));
  ASSERT_NE(encode, nullptr);
  // A 2-d memref descriptor: allocated, aligned, offset, sizes, strides.
  void *data = h.runtime.allocate(64);
  ASSERT_NE(data, nullptr);
  int64_t descriptor[7] = {0, reinterpret_cast<int64_t>(data), 0, 8, 8, 8, 1};
  int64_t box[2] = {4, 8}, otherBox[2] = {2, 8};
  void *map = encode(2, descriptor, 6, 0, 3, 0, 0, box);
  ASSERT_NE(map, nullptr);
  // The device copy holds all 128 bytes the driver encoded (a copy of 16
  // bytes once left the kernels a map without dims or box).
  EXPECT_EQ(static_cast<int64_t *>(map)[0], descriptor[1]);
  EXPECT_EQ(static_cast<int64_t *>(map)[1], 4);
  for (int i = 2; i < 16; ++i)
    EXPECT_EQ(static_cast<int64_t *>(map)[i], i) << "word " << i;
  EXPECT_EQ(encode(2, descriptor, 6, 0, 3, 0, 0, box), map);
  EXPECT_EQ(h.driver.calls["fakeEncodeTensorMap"], 1);
  void *other = encode(2, descriptor, 6, 0, 3, 0, 0, otherBox);
  EXPECT_NE(other, map);
  EXPECT_EQ(static_cast<int64_t *>(other)[1], 2);
  EXPECT_EQ(h.driver.calls["fakeEncodeTensorMap"], 2);
  // Freeing the tensor frees its two maps; a tensor at its address later
  // gets maps of its own.
  h.runtime.release(data);
  EXPECT_EQ(h.driver.calls["fakeFree"], 3);
  ASSERT_NE(encode(2, descriptor, 6, 0, 3, 0, 0, box), nullptr);
  EXPECT_EQ(h.driver.calls["fakeEncodeTensorMap"], 3);
  // A failed encode is reported, and nothing is returned.
  h.driver.failNext["fakeEncodeTensorMap"] = 1;
  descriptor[3] = 9;
  EXPECT_EQ(encode(2, descriptor, 6, 0, 3, 0, 0, box), nullptr);
  EXPECT_EQ(h.synchronize().rfind("fakeEncodeTensorMap failed", 0), 0u);
}

TEST(GpuRuntime, MultiprocessorCountIsAskedOnce) {
  using Api = Fake<14>;
  Harness<Api> h;
  auto count = h.get<int32_t (*)()>("tileGpuMultiprocessorCount");
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count(), 7);
  EXPECT_EQ(count(), 7);
  EXPECT_EQ(h.driver.calls["fakeDescribe"], 1);
}

TEST(GpuRuntime, WithoutADriverInitializeSaysWhy) {
  using Api = Fake<11>;
  GpuRuntime<Api>::get().getApi().hasDriver = false;
  std::string why;
  EXPECT_FALSE(GpuRuntime<Api>::get().initialize(&why));
  EXPECT_EQ(why, "no fake driver");
}

TEST(GpuRuntime, AFailingStartNamesTheCall) {
  using Api = Fake<12>;
  GpuRuntime<Api>::get().getApi().failNext["fakeStreamCreate"] = 7;
  std::string why;
  EXPECT_FALSE(GpuRuntime<Api>::get().initialize(&why));
  EXPECT_EQ(why, "fakeStreamCreate failed: FAKE_ERROR");
}

//===----------------------------------------------------------------------===//
// Several devices
//===----------------------------------------------------------------------===//

/// A runtime over a fake driver with `devices` GPUs.
template <typename Api> Harness<Api> withDevices(int devices) {
  GpuRuntime<Api>::get().getApi().devices = devices;
  return Harness<Api>();
}

TEST(GpuRuntime, KernelsRunOnTheDeviceOfTheirScope) {
  using Api = Fake<30>;
  Harness<Api> h = withDevices<Api>(2);
  EXPECT_EQ(h.runtime.getDeviceCount(), 2);
  // Loaded where the binary is loaded (the default device), nowhere else
  // until it runs there.
  void *module = h.load("m");
  void *onZero = h.function(module, "k");
  h.launch(onZero);
  EXPECT_EQ(h.driver.calls["fakeLoad"], 1);
  FakeObject *zero = h.driver.contexts[0];
  EXPECT_EQ(h.driver.getCurrentHere(), zero);

  ASSERT_TRUE(h.runtime.enterDevice(1, nullptr));
  FakeObject *one = h.driver.contexts[1];
  EXPECT_EQ(h.driver.getCurrentHere(), one);
  void *onOne = h.function(module, "k");
  EXPECT_NE(onOne, onZero);
  EXPECT_EQ(h.function(module, "k"), onOne);
  h.launch(onOne);
  h.launch(onOne, 65536);
  EXPECT_EQ(h.driver.calls["fakeLoad"], 2) << "loaded on device 1 once";
  EXPECT_EQ(h.driver.calls["fakeGetFunction"], 2);
  // Each device's function opts in to its shared memory.
  using OptIns = std::vector<std::pair<std::string, int32_t>>;
  EXPECT_EQ(h.driver.optIns, (OptIns{{"m@1.k", 65536}}));
  h.runtime.leaveDevice();
  EXPECT_EQ(h.driver.getCurrentHere(), zero) << "the context found restored";

  h.launch(h.function(module, "k"));
  EXPECT_EQ(h.driver.calls["fakeLoad"], 2);
  ASSERT_EQ(h.driver.launches.size(), 4u);
  FakeObject *streamOfOne = h.driver.launches[1].stream;
  EXPECT_NE(streamOfOne, &h.driver.ownStream);
  std::vector<std::tuple<std::string, FakeObject *, FakeObject *>> seen;
  for (const FakeLaunch &launch : h.driver.launches)
    seen.emplace_back(launch.function, launch.stream, launch.context);
  EXPECT_EQ(seen, (decltype(seen){{"m.k", &h.driver.ownStream, zero},
                                  {"m@1.k", streamOfOne, one},
                                  {"m@1.k", streamOfOne, one},
                                  {"m.k", &h.driver.ownStream, zero}}));

  // The last unload unloads it from both devices, each after its stream.
  h.driver.synchronizedStreams.clear();
  h.get<UnloadFn>("mgpuModuleUnload")(module);
  EXPECT_EQ(h.driver.calls["fakeUnload"], 2);
  EXPECT_EQ(h.driver.synchronizedStreams,
            (std::vector<FakeObject *>{&h.driver.ownStream, streamOfOne}));
  EXPECT_EQ(h.driver.getCurrentHere(), zero);
  EXPECT_EQ(h.synchronize(), "");
}

TEST(GpuRuntime, ScopesRestoreTheContextTheyFound) {
  using Api = Fake<31>;
  Harness<Api> h = withDevices<Api>(3);
  ASSERT_TRUE(h.runtime.initialize(nullptr));
  // Another library (torch) made device 2's context current.
  FakeObject *two = nullptr;
  ASSERT_TRUE(h.runtime.enterDevice(2, nullptr));
  two = h.driver.getCurrentHere();
  h.runtime.leaveDevice();
  FakeObject foreign{"torch's context"};
  h.driver.setCurrent(&foreign);

  ASSERT_TRUE(h.runtime.enterDevice(0, nullptr));
  FakeObject *zero = h.driver.getCurrentHere();
  EXPECT_EQ(zero, h.driver.contexts[0]);
  // Nested in a scope of the same device: no driver call.
  int calls =
      h.driver.calls["fakeGetCurrent"] + h.driver.calls["fakeSetCurrent"];
  ASSERT_TRUE(h.runtime.enterDevice(0, nullptr));
  h.runtime.leaveDevice();
  EXPECT_EQ(h.driver.calls["fakeGetCurrent"] + h.driver.calls["fakeSetCurrent"],
            calls);
  // Another device inside: switched to, then back.
  ASSERT_TRUE(h.runtime.enterDevice(2, nullptr));
  EXPECT_EQ(h.driver.getCurrentHere(), two);
  EXPECT_EQ(h.runtime.getDeviceInfo().name, "fake device 2");
  h.runtime.leaveDevice();
  EXPECT_EQ(h.driver.getCurrentHere(), zero);
  EXPECT_EQ(h.runtime.getDeviceInfo().name, "fake device 0");
  h.runtime.leaveDevice();
  EXPECT_EQ(h.driver.getCurrentHere(), &foreign);

  // A scope of the device already current switches nothing.
  h.driver.setCurrent(two);
  int sets = h.driver.calls["fakeSetCurrent"];
  ASSERT_TRUE(h.runtime.enterDevice(2, nullptr));
  h.runtime.leaveDevice();
  EXPECT_EQ(h.driver.calls["fakeSetCurrent"], sets);
  EXPECT_EQ(h.driver.getCurrentHere(), two);
}

TEST(GpuRuntime, AScopeOfAMissingDeviceSaysWhy) {
  using Api = Fake<32>;
  Harness<Api> h = withDevices<Api>(2);
  std::string why;
  EXPECT_FALSE(h.runtime.enterDevice(2, &why));
  EXPECT_EQ(why, "no FAKE device 2 (found 2)");
  EXPECT_FALSE(h.runtime.enterDevice(-1, &why));
  EXPECT_EQ(why, "no FAKE device -1 (found 2)");
  // A device that fails to start says why each time it is asked for.
  h.driver.failNext["fakeStreamCreate"] = 7;
  EXPECT_FALSE(h.runtime.enterDevice(1, &why));
  EXPECT_EQ(why, "fakeStreamCreate failed: FAKE_ERROR");
  EXPECT_FALSE(h.runtime.enterDevice(1, &why));
  EXPECT_EQ(why, "fakeStreamCreate failed: FAKE_ERROR");
  // The default device is unaffected.
  EXPECT_EQ(h.synchronize(), "");
}

TEST(GpuRuntime, EachDeviceHasItsStreamsAndMultiprocessors) {
  using Api = Fake<33>;
  Harness<Api> h = withDevices<Api>(2);
  auto count = h.get<int32_t (*)()>("tileGpuMultiprocessorCount");
  auto streamCreate = h.get<void *(*)()>("mgpuStreamCreate");
  FakeObject callerStream{"caller's stream on 1"};
  h.runtime.setCallerStream(1, &callerStream);
  ASSERT_TRUE(h.runtime.enterDevice(1, nullptr));
  EXPECT_EQ(streamCreate(), &callerStream);
  EXPECT_EQ(count(), 8);
  h.runtime.leaveDevice();
  EXPECT_EQ(streamCreate(), &h.driver.ownStream);
  EXPECT_EQ(count(), 7);
  EXPECT_EQ(count(), 7);
  EXPECT_EQ(h.driver.calls["fakeDescribe"], 2);
}

TEST(GpuRuntime, ThreadsLaunchOnTheirOwnDevices) {
  using Api = Fake<34>;
  Harness<Api> h = withDevices<Api>(2);
  void *module = h.load("m");
  auto work = [&](int device) {
    ASSERT_TRUE(h.runtime.enterDevice(device, nullptr));
    for (int i = 0; i < 200; ++i)
      h.launch(h.function(module, "k"));
    h.runtime.leaveDevice();
  };
  std::thread first(work, 0), second(work, 1);
  first.join();
  second.join();
  std::map<std::string, int> byFunction;
  for (const FakeLaunch &launch : h.driver.launches) {
    ++byFunction[launch.function];
    bool onOne = launch.function == "m@1.k";
    EXPECT_EQ(launch.context, h.driver.contexts[onOne ? 1 : 0]);
    EXPECT_EQ(launch.stream == &h.driver.ownStream, !onOne);
  }
  EXPECT_EQ(byFunction,
            (std::map<std::string, int>{{"m.k", 200}, {"m@1.k", 200}}));
  EXPECT_EQ(h.driver.calls["fakeLoad"], 2);
  EXPECT_EQ(h.synchronize(), "");
}

TEST(GpuRuntime, EachDeviceKeepsItsOwnFailures) {
  using Api = Fake<35>;
  Harness<Api> h = withDevices<Api>(2);
  void *module = h.load("m");
  ASSERT_TRUE(h.runtime.enterDevice(1, nullptr));
  h.driver.failNext["fakeLaunch"] = 9;
  h.launch(h.function(module, "k"));
  h.runtime.leaveDevice();
  // A thread timing on device 0 sees nothing of device 1's failure...
  std::string onZero = "(not run)", takenOnZero = "(not run)";
  std::thread other([&] {
    h.launch(h.function(module, "k"));
    onZero = h.synchronize();
    takenOnZero = h.runtime.takeError();
  });
  other.join();
  EXPECT_EQ(onZero, "");
  EXPECT_EQ(takenOnZero, "");
  EXPECT_EQ(h.synchronize(), "");
  // ... which device 1's caller gets, once.
  ASSERT_TRUE(h.runtime.enterDevice(1, nullptr));
  EXPECT_EQ(h.runtime.takeError(),
            "fakeLaunch failed for kernel 'k': FAKE_ERROR (it failed)");
  EXPECT_EQ(h.synchronize(), "");
  h.runtime.leaveDevice();
}

//===----------------------------------------------------------------------===//
// The real runtimes
//===----------------------------------------------------------------------===//

/// Without its GPU a runtime fails with a reason and the lowered code's
/// calls are harmless; with one, memory round-trips and launch failures are
/// reported by name.
void checkRealRuntime(Runtime &runtime, const char *launchCall,
                      const char *loadCall) {
  SymbolList symbols = runtime.getSymbols();
  expectEveryMgpuFunctionOnce(symbols);
  auto launch = reinterpret_cast<LaunchFn>(lookup(symbols, "mgpuLaunchKernel"));
  auto load = reinterpret_cast<LoadFn>(lookup(symbols, "mgpuModuleLoad"));
  ASSERT_NE(launch, nullptr);
  ASSERT_NE(load, nullptr);
  char image[16] = "not a module";
  std::string why, error;
  if (!runtime.initialize(&why)) {
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(runtime.allocate(16), nullptr);
    EXPECT_EQ(load(image, sizeof(image)), nullptr);
    launch(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
    EXPECT_FALSE(runtime.synchronize(&error));
    EXPECT_NE(error.find(why), std::string::npos) << error;
    EXPECT_EQ(runtime.getDeviceInfo().name, "");
    return;
  }
  DeviceInfo info = runtime.getDeviceInfo();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(info.multiprocessors, 0);
  std::vector<int> input(1000), output(1000, -1);
  for (int i = 0; i < 1000; ++i)
    input[i] = i * 7 - 3;
  void *device = runtime.allocate(input.size() * sizeof(int));
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(runtime.copyToDevice(device, input.data(), 4000));
  ASSERT_TRUE(runtime.copyToHost(output.data(), device, 4000));
  EXPECT_EQ(output, input);
  runtime.release(device);
  EXPECT_TRUE(runtime.synchronize(&error)) << error;

  launch(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_FALSE(runtime.synchronize(&error));
  EXPECT_EQ(error.rfind(std::string(launchCall) + " failed", 0), 0u) << error;
  EXPECT_EQ(load(image, sizeof(image)), nullptr);
  EXPECT_FALSE(runtime.synchronize(&error));
  EXPECT_EQ(error.rfind(std::string(loadCall) + " failed", 0), 0u) << error;
  EXPECT_TRUE(runtime.synchronize(&error)) << error;
}

TEST(CudaRuntime, FailsWithAReasonOrRunsOnItsDevice) {
  Runtime &runtime = getCudaRuntime();
  EXPECT_STREQ(runtime.getName(), "cuda");
  checkRealRuntime(runtime, "cuLaunchKernel", "cuModuleLoadData");
  if (runtime.initialize())
    EXPECT_EQ(runtime.getDeviceInfo().chip.rfind("sm_", 0), 0u);
}

TEST(RocmRuntime, FailsWithAReasonOrRunsOnItsDevice) {
  Runtime &runtime = getRocmRuntime();
  EXPECT_STREQ(runtime.getName(), "rocm");
  checkRealRuntime(runtime, "hipModuleLaunchKernel", "hipModuleLoadData");
  if (runtime.initialize())
    EXPECT_EQ(runtime.getDeviceInfo().chip.rfind("gfx", 0), 0u);
}

} // namespace
