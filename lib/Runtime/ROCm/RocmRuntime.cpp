//===- RocmRuntime.cpp - tile's ROCm runtime ------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/RocmRuntime.h"

#include "../KernelTable.h"

#include <hip/hip_runtime_api.h>

#include <dlfcn.h>

#include <mutex>
#include <string>

using namespace mlir::tile::runtime;

namespace {

/// HIP's entry points, resolved from libamdhip64 at run time.
struct Hip {
#define TILE_HIP_FUNCTIONS(X)                                                  \
  X(hipInit)                                                                   \
  X(hipGetDeviceCount)                                                         \
  X(hipSetDevice)                                                              \
  X(hipGetDeviceProperties)                                                    \
  X(hipGetErrorName)                                                           \
  X(hipGetErrorString)                                                         \
  X(hipModuleLoadData)                                                         \
  X(hipModuleGetFunction)                                                      \
  X(hipModuleLaunchKernel)                                                     \
  X(hipStreamCreateWithFlags)                                                  \
  X(hipStreamSynchronize)                                                      \
  X(hipStreamWaitEvent)                                                        \
  X(hipEventCreateWithFlags)                                                   \
  X(hipEventDestroy)                                                           \
  X(hipEventRecord)                                                            \
  X(hipEventSynchronize)                                                       \
  X(hipEventElapsedTime)                                                       \
  X(hipFree)                                                                   \
  X(hipMemcpyAsync)                                                            \
  X(hipMemcpyHtoD)                                                             \
  X(hipMemcpyDtoH)                                                             \
  X(hipMemsetD32Async)                                                         \
  X(hipMemsetD16Async)                                                         \
  X(hipHostRegister)                                                           \
  X(hipHostUnregister)
#define TILE_DECLARE(name) decltype(&::name) name = nullptr;
  TILE_HIP_FUNCTIONS(TILE_DECLARE)
#undef TILE_DECLARE
  // Overloaded in the C++ header (a template for typed pointers).
  hipError_t (*hipMalloc)(void **, size_t) = nullptr;

  bool load(std::string &why) {
    void *library = dlopen("libamdhip64.so", RTLD_NOW | RTLD_GLOBAL);
    if (!library)
      library = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_GLOBAL);
    if (!library) {
      why = "cannot load libamdhip64.so (no ROCm installation?)";
      return false;
    }
#define TILE_RESOLVE(name)                                                     \
  name = reinterpret_cast<decltype(name)>(dlsym(library, #name));              \
  if (!name) {                                                                 \
    why = "libamdhip64 lacks " #name;                                          \
    return false;                                                              \
  }
    TILE_HIP_FUNCTIONS(TILE_RESOLVE)
    TILE_RESOLVE(hipMalloc)
#undef TILE_RESOLVE
    return true;
  }
};

/// The process's HIP state: one device, one stream, loaded modules and
/// functions, and the first failure since the caller last asked.
class State {
public:
  static State &get() {
    static State state;
    return state;
  }

  bool ready(std::string *why = nullptr) {
    std::call_once(once, [&] { started = start(); });
    if (!started && why)
      *why = startError;
    return started;
  }

  /// Records and reports a failed call; returns whether `result` is success.
  bool check(hipError_t result, const char *call, const char *kernel = nullptr) {
    if (result == hipSuccess)
      return true;
    failures.record(call, kernel,
                    hip.hipGetErrorName ? hip.hipGetErrorName(result) : nullptr,
                    hip.hipGetErrorString ? hip.hipGetErrorString(result)
                                          : nullptr);
    return false;
  }

  Hip hip;
  int device = 0;
  hipStream_t stream = nullptr;
  FailureLog failures;
  KernelTable<hipModule_t, hipFunction_t> kernels;

private:
  bool start() {
    if (!hip.load(startError))
      return false;
    auto fail = [&](hipError_t result, const char *call) {
      const char *name = hip.hipGetErrorName(result);
      startError = std::string(call) + " failed: " + (name ? name : "?");
      return false;
    };
    if (hipError_t r = hip.hipInit(0))
      return fail(r, "hipInit");
    int count = 0;
    if (hipError_t r = hip.hipGetDeviceCount(&count))
      return fail(r, "hipGetDeviceCount");
    if (count <= device) {
      startError = "no ROCm device " + std::to_string(device) + " (found " +
                   std::to_string(count) + ")";
      return false;
    }
    if (hipError_t r = hip.hipSetDevice(device))
      return fail(r, "hipSetDevice");
    if (hipError_t r = hip.hipStreamCreateWithFlags(&stream,
                                                    hipStreamNonBlocking))
      return fail(r, "hipStreamCreateWithFlags");
    return true;
  }

  std::once_flag once;
  bool started = false;
  std::string startError;
};

State &state() { return State::get(); }

} // namespace

//===----------------------------------------------------------------------===//
// The mgpu* interface of gpu-to-llvm (ROCm flavour)
//===----------------------------------------------------------------------===//

// Not exported: the CUDA runtime defines the same names, and the JIT binds
// these through getRuntimeSymbols(). C++ linkage does not change the calling
// convention of these signatures.
namespace {

void *mgpuModuleLoad(void *data, size_t /*size*/) {
  if (!state().ready())
    return nullptr;
  return state().kernels.getModule(data, [&](hipModule_t &module) {
    return state().check(state().hip.hipModuleLoadData(&module, data),
                         "hipModuleLoadData");
  });
}

void mgpuModuleUnload(void * /*module*/) {
  // Modules stay loaded for the process, as in the CUDA runtime.
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!state().ready() || !module)
    return nullptr;
  auto m = static_cast<hipModule_t>(module);
  return state().kernels.getFunction(m, name, [&](hipFunction_t &function) {
    return state().check(state().hip.hipModuleGetFunction(&function, m, name),
                         "hipModuleGetFunction", name);
  });
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void * /*stream*/,
                      void **params, void **extra, size_t /*paramCount*/) {
  if (!state().ready())
    return;
  auto f = static_cast<hipFunction_t>(function);
  if (!f) {
    state().check(hipErrorInvalidResourceHandle, "hipModuleLaunchKernel");
    return;
  }
  std::string name = state().kernels.getName(f);
  state().check(state().hip.hipModuleLaunchKernel(
                    f, gridX, gridY, gridZ, blockX, blockY, blockZ,
                    sharedBytes, state().stream, params, extra),
                "hipModuleLaunchKernel", name.c_str());
}

void *mgpuStreamCreate() {
  state().ready();
  return state().stream;
}

void mgpuStreamDestroy(void * /*stream*/) {}

void mgpuStreamSynchronize(void * /*stream*/) {
  if (state().ready())
    state().check(state().hip.hipStreamSynchronize(state().stream),
                  "hipStreamSynchronize");
}

void mgpuStreamWaitEvent(void * /*stream*/, void *event) {
  if (state().ready())
    state().check(state().hip.hipStreamWaitEvent(
                      state().stream, static_cast<hipEvent_t>(event), 0),
                  "hipStreamWaitEvent");
}

void *mgpuEventCreate() {
  hipEvent_t event = nullptr;
  if (state().ready())
    state().check(
        state().hip.hipEventCreateWithFlags(&event, hipEventDisableTiming),
        "hipEventCreateWithFlags");
  return event;
}

void mgpuEventDestroy(void *event) {
  if (state().ready())
    state().check(state().hip.hipEventDestroy(static_cast<hipEvent_t>(event)),
                  "hipEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  if (state().ready())
    state().check(
        state().hip.hipEventSynchronize(static_cast<hipEvent_t>(event)),
        "hipEventSynchronize");
}

void mgpuEventRecord(void *event, void * /*stream*/) {
  if (state().ready())
    state().check(state().hip.hipEventRecord(static_cast<hipEvent_t>(event),
                                             state().stream),
                  "hipEventRecord");
}

void *mgpuMemAlloc(uint64_t bytes, void * /*stream*/, bool /*hostShared*/) {
  return rocm::allocate(bytes);
}

void mgpuMemFree(void *pointer, void * /*stream*/) { rocm::release(pointer); }

void mgpuMemcpy(void *dst, void *src, size_t bytes, void * /*stream*/) {
  if (state().ready())
    state().check(state().hip.hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault,
                                             state().stream),
                  "hipMemcpyAsync");
}

void mgpuMemset32(void *dst, int value, size_t count, void * /*stream*/) {
  if (state().ready())
    state().check(state().hip.hipMemsetD32Async(
                      static_cast<hipDeviceptr_t>(dst), value, count,
                      state().stream),
                  "hipMemsetD32Async");
}

void mgpuMemset16(void *dst, int shortValue, size_t count, void * /*stream*/) {
  if (state().ready())
    state().check(state().hip.hipMemsetD16Async(
                      static_cast<hipDeviceptr_t>(dst),
                      static_cast<unsigned short>(shortValue), count,
                      state().stream),
                  "hipMemsetD16Async");
}

void mgpuMemHostRegister(void *pointer, uint64_t bytes) {
  if (state().ready())
    state().check(state().hip.hipHostRegister(pointer, bytes, 0),
                  "hipHostRegister");
}

void mgpuMemHostUnregister(void *pointer) {
  if (state().ready())
    state().check(state().hip.hipHostUnregister(pointer), "hipHostUnregister");
}

void mgpuSetDefaultDevice(int32_t device) { state().device = device; }

} // namespace

//===----------------------------------------------------------------------===//
// The C++ interface
//===----------------------------------------------------------------------===//

bool rocm::initialize(std::string *why) { return state().ready(why); }

rocm::DeviceInfo rocm::getDeviceInfo() {
  DeviceInfo info;
  if (!state().ready())
    return info;
  hipDeviceProp_t properties{};
  if (!state().check(
          state().hip.hipGetDeviceProperties(&properties, state().device),
          "hipGetDeviceProperties"))
    return info;
  info.name = properties.name;
  info.chip = properties.gcnArchName;
  // "gfx90a:sramecc+:xnack-" -> "gfx90a".
  info.chip = info.chip.substr(0, info.chip.find(':'));
  info.multiprocessors = properties.multiProcessorCount;
  return info;
}

void *rocm::allocate(size_t bytes) {
  void *pointer = nullptr;
  if (!state().ready() ||
      !state().check(state().hip.hipMalloc(&pointer, bytes ? bytes : 1),
                     "hipMalloc"))
    return nullptr;
  return pointer;
}

void rocm::release(void *pointer) {
  if (pointer && state().ready())
    state().check(state().hip.hipFree(pointer), "hipFree");
}

bool rocm::copyToDevice(void *device, const void *host, size_t bytes) {
  return state().ready() &&
         state().check(state().hip.hipMemcpyHtoD(
                           static_cast<hipDeviceptr_t>(device),
                           const_cast<void *>(host), bytes),
                       "hipMemcpyHtoD");
}

bool rocm::copyToHost(void *host, const void *device, size_t bytes) {
  return state().ready() &&
         state().check(state().hip.hipMemcpyDtoH(
                           host, const_cast<hipDeviceptr_t>(device), bytes),
                       "hipMemcpyDtoH");
}

bool rocm::synchronize(std::string *error) {
  if (!state().ready(error))
    return false;
  state().check(state().hip.hipStreamSynchronize(state().stream),
                "hipStreamSynchronize");
  std::string first = state().failures.take();
  if (first.empty())
    return true;
  if (error)
    *error = first;
  return false;
}

bool rocm::timeCalls(const std::function<void()> &run, unsigned calls,
                     std::vector<double> &seconds, std::string *error) {
  if (!state().ready(error))
    return false;
  Hip &hip = state().hip;
  hipEvent_t start = nullptr, stop = nullptr;
  if (!state().check(hip.hipEventCreateWithFlags(&start, 0),
                     "hipEventCreateWithFlags") ||
      !state().check(hip.hipEventCreateWithFlags(&stop, 0),
                     "hipEventCreateWithFlags"))
    return synchronize(error);
  for (int i = 0; i < 3; ++i)
    run();
  for (unsigned i = 0; i < calls; ++i) {
    state().check(hip.hipEventRecord(start, state().stream), "hipEventRecord");
    run();
    state().check(hip.hipEventRecord(stop, state().stream), "hipEventRecord");
    state().check(hip.hipEventSynchronize(stop), "hipEventSynchronize");
    float ms = 0;
    state().check(hip.hipEventElapsedTime(&ms, start, stop),
                  "hipEventElapsedTime");
    seconds.push_back(ms * 1e-3);
  }
  state().check(hip.hipEventDestroy(start), "hipEventDestroy");
  state().check(hip.hipEventDestroy(stop), "hipEventDestroy");
  return synchronize(error);
}

std::vector<std::pair<std::string, void *>> rocm::getRuntimeSymbols() {
  std::vector<std::pair<std::string, void *>> symbols;
#define TILE_SYMBOL(name) symbols.emplace_back(#name, reinterpret_cast<void *>(&name));
  TILE_SYMBOL(mgpuModuleLoad)
  TILE_SYMBOL(mgpuModuleUnload)
  TILE_SYMBOL(mgpuModuleGetFunction)
  TILE_SYMBOL(mgpuLaunchKernel)
  TILE_SYMBOL(mgpuStreamCreate)
  TILE_SYMBOL(mgpuStreamDestroy)
  TILE_SYMBOL(mgpuStreamSynchronize)
  TILE_SYMBOL(mgpuStreamWaitEvent)
  TILE_SYMBOL(mgpuEventCreate)
  TILE_SYMBOL(mgpuEventDestroy)
  TILE_SYMBOL(mgpuEventSynchronize)
  TILE_SYMBOL(mgpuEventRecord)
  TILE_SYMBOL(mgpuMemAlloc)
  TILE_SYMBOL(mgpuMemFree)
  TILE_SYMBOL(mgpuMemcpy)
  TILE_SYMBOL(mgpuMemset32)
  TILE_SYMBOL(mgpuMemset16)
  TILE_SYMBOL(mgpuMemHostRegister)
  TILE_SYMBOL(mgpuMemHostUnregister)
  TILE_SYMBOL(mgpuSetDefaultDevice)
#undef TILE_SYMBOL
  return symbols;
}
