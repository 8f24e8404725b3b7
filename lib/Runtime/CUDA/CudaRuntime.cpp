//===- CudaRuntime.cpp - tile's CUDA runtime ------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/CudaRuntime.h"

#include "../KernelTable.h"

#include <cuda.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

using namespace mlir::tile::runtime;

#define TILE_STRINGIFY_(x) #x
#define TILE_STRINGIFY(x) TILE_STRINGIFY_(x)

namespace {

/// The driver entry points, resolved from libcuda at run time. The
/// versioned names (cuMemAlloc -> cuMemAlloc_v2) come from cuda.h's macros.
struct Driver {
#define TILE_CUDA_FUNCTIONS(X)                                                 \
  X(cuInit)                                                                    \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceGetName)                                                           \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyAsync)                                                             \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD16Async)                                                          \
  X(cuMemHostRegister)                                                         \
  X(cuMemHostUnregister)
#define TILE_DECLARE(name) decltype(&::name) name = nullptr;
  TILE_CUDA_FUNCTIONS(TILE_DECLARE)
#undef TILE_DECLARE

  bool load(std::string &why) {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!library) {
      why = "cannot load libcuda.so.1 (no NVIDIA driver?)";
      return false;
    }
#define TILE_RESOLVE(name)                                                     \
  name = reinterpret_cast<decltype(name)>(                                     \
      dlsym(library, TILE_STRINGIFY(name)));                                   \
  if (!name) {                                                                 \
    why = std::string("libcuda.so.1 lacks ") + TILE_STRINGIFY(name);           \
    return false;                                                              \
  }
    TILE_CUDA_FUNCTIONS(TILE_RESOLVE)
#undef TILE_RESOLVE
    return true;
  }
};

class Runtime {
public:
  static Runtime &get() {
    static Runtime runtime;
    return runtime;
  }

  bool initialize(std::string *why) {
    std::call_once(once, [&] { ready = start(); });
    if (!ready && why)
      *why = startError;
    return ready;
  }

  /// Makes the context current on this thread; false without a GPU.
  bool enter() {
    if (!initialize(nullptr))
      return false;
    thread_local bool current = false;
    if (!current) {
      check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
      current = true;
    }
    return true;
  }

  /// Records and reports a failed call; returns whether `result` is success.
  bool check(CUresult result, const char *call, const char *kernel = nullptr) {
    if (result == CUDA_SUCCESS)
      return true;
    const char *name = nullptr, *text = nullptr;
    if (driver.cuGetErrorName)
      driver.cuGetErrorName(result, &name);
    if (driver.cuGetErrorString)
      driver.cuGetErrorString(result, &text);
    failures.record(call, kernel, name, text);
    return false;
  }

  std::string takeError() { return failures.take(); }

  Driver driver;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  int defaultDevice = 0;
  bool deferSynchronize = false;
  FailureLog failures;
  KernelTable<CUmodule, CUfunction> kernels;
  /// The dynamic shared memory each kernel has opted in to.
  std::mutex sharedLimitsMutex;
  std::unordered_map<CUfunction, int32_t> sharedLimits;

private:
  bool start() {
    if (!driver.load(startError))
      return false;
    auto fail = [&](CUresult result, const char *call) {
      const char *name = nullptr;
      driver.cuGetErrorName(result, &name);
      startError = std::string(call) + " failed: " + (name ? name : "?");
      return false;
    };
    if (CUresult r = driver.cuInit(0))
      return fail(r, "cuInit");
    int count = 0;
    if (CUresult r = driver.cuDeviceGetCount(&count))
      return fail(r, "cuDeviceGetCount");
    if (count <= defaultDevice) {
      startError = "no CUDA device " + std::to_string(defaultDevice) +
                   " (found " + std::to_string(count) + ")";
      return false;
    }
    if (CUresult r = driver.cuDeviceGet(&device, defaultDevice))
      return fail(r, "cuDeviceGet");
    if (CUresult r = driver.cuDevicePrimaryCtxRetain(&context, device))
      return fail(r, "cuDevicePrimaryCtxRetain");
    if (CUresult r = driver.cuCtxSetCurrent(context))
      return fail(r, "cuCtxSetCurrent");
    if (CUresult r = driver.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING))
      return fail(r, "cuStreamCreate");
    return true;
  }

  std::once_flag once;
  bool ready = false;
  std::string startError;
};

Runtime &rt() { return Runtime::get(); }

CUmodule loadModule(const void *data, bool jit, int optLevel) {
  return rt().kernels.getModule(data, [&](CUmodule &module) {
    if (!jit)
      return rt().check(rt().driver.cuModuleLoadData(&module, data),
                        "cuModuleLoadData");
    CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
    void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
    return rt().check(
        rt().driver.cuModuleLoadDataEx(&module, data, 1, options, values),
        "cuModuleLoadDataEx");
  });
}

} // namespace

//===----------------------------------------------------------------------===//
// The mgpu* interface of gpu-to-llvm
//===----------------------------------------------------------------------===//

extern "C" {

void *mgpuModuleLoad(void *data, size_t /*size*/) {
  if (!rt().enter())
    return nullptr;
  return loadModule(data, /*jit=*/false, 0);
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  if (!rt().enter())
    return nullptr;
  return loadModule(data, /*jit=*/true, optLevel);
}

void mgpuModuleUnload(void *module) {
  // Modules stay loaded for the process: the cache keys on the binary's
  // address, which a reload of the same executable reuses.
  (void)module;
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!rt().enter() || !module)
    return nullptr;
  auto m = static_cast<CUmodule>(module);
  return rt().kernels.getFunction(m, name, [&](CUfunction &function) {
    return rt().check(rt().driver.cuModuleGetFunction(&function, m, name),
                      "cuModuleGetFunction", name);
  });
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void * /*stream*/,
                      void **params, void **extra, size_t /*paramCount*/) {
  if (!rt().enter())
    return;
  auto f = static_cast<CUfunction>(function);
  if (!f) {
    rt().check(CUDA_ERROR_INVALID_HANDLE, "cuLaunchKernel");
    return;
  }
  std::string kernel = rt().kernels.getName(f);
  const char *name = kernel.c_str();
  bool optIn = false;
  {
    std::lock_guard<std::mutex> lock(rt().sharedLimitsMutex);
    // Opt in to the dynamic shared memory the launch asks for, once per
    // kernel and size: static shared memory counts against the 48 KB a
    // kernel gets without it, so even 48 KB of dynamic memory needs it.
    int32_t &limit = rt().sharedLimits[f];
    optIn = sharedBytes > limit;
    if (optIn)
      limit = sharedBytes;
  }
  if (optIn &&
      !rt().check(rt().driver.cuFuncSetAttribute(
                      f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                      sharedBytes),
                  "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", name))
    return;
  rt().check(rt().driver.cuLaunchKernel(f, gridX, gridY, gridZ, blockX,
                                        blockY, blockZ, sharedBytes,
                                        rt().stream, params, extra),
             "cuLaunchKernel", name);
}

// One stream for everything: creating and destroying it is free.
void *mgpuStreamCreate() {
  rt().enter();
  return rt().stream;
}

void mgpuStreamDestroy(void * /*stream*/) {}

void mgpuStreamSynchronize(void * /*stream*/) {
  if (!rt().enter() || rt().deferSynchronize)
    return;
  rt().check(rt().driver.cuStreamSynchronize(rt().stream),
             "cuStreamSynchronize");
}

void mgpuStreamWaitEvent(void * /*stream*/, void *event) {
  if (rt().enter())
    rt().check(rt().driver.cuStreamWaitEvent(rt().stream,
                                             static_cast<CUevent>(event), 0),
               "cuStreamWaitEvent");
}

void *mgpuEventCreate() {
  CUevent event = nullptr;
  if (rt().enter())
    rt().check(rt().driver.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
               "cuEventCreate");
  return event;
}

void mgpuEventDestroy(void *event) {
  if (rt().enter())
    rt().check(rt().driver.cuEventDestroy(static_cast<CUevent>(event)),
               "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  if (rt().enter())
    rt().check(rt().driver.cuEventSynchronize(static_cast<CUevent>(event)),
               "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void * /*stream*/) {
  if (rt().enter())
    rt().check(rt().driver.cuEventRecord(static_cast<CUevent>(event),
                                         rt().stream),
               "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t bytes, void * /*stream*/, bool /*hostShared*/) {
  return cuda::allocate(bytes);
}

void mgpuMemFree(void *pointer, void * /*stream*/) { cuda::release(pointer); }

void mgpuMemcpy(void *dst, void *src, size_t bytes, void * /*stream*/) {
  if (rt().enter())
    rt().check(rt().driver.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                         reinterpret_cast<CUdeviceptr>(src),
                                         bytes, rt().stream),
               "cuMemcpyAsync");
}

void mgpuMemset32(void *dst, unsigned value, size_t count, void * /*stream*/) {
  if (rt().enter())
    rt().check(rt().driver.cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst),
                                            value, count, rt().stream),
               "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  void * /*stream*/) {
  if (rt().enter())
    rt().check(rt().driver.cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst),
                                            value, count, rt().stream),
               "cuMemsetD16Async");
}

void mgpuMemHostRegister(void *pointer, uint64_t bytes) {
  if (rt().enter())
    rt().check(rt().driver.cuMemHostRegister(pointer, bytes, 0),
               "cuMemHostRegister");
}

void mgpuMemHostUnregister(void *pointer) {
  if (rt().enter())
    rt().check(rt().driver.cuMemHostUnregister(pointer),
               "cuMemHostUnregister");
}

void mgpuSetDefaultDevice(int32_t device) { rt().defaultDevice = device; }

} // extern "C"

//===----------------------------------------------------------------------===//
// The C++ interface
//===----------------------------------------------------------------------===//

bool cuda::initialize(std::string *why) { return rt().initialize(why); }

std::string cuda::DeviceInfo::chip() const {
  std::string chip = "sm_" + std::to_string(major * 10 + minor);
  if (major == 9 && minor == 0)
    chip += "a";
  return chip;
}

cuda::DeviceInfo cuda::getDeviceInfo() {
  DeviceInfo info;
  if (!rt().enter())
    return info;
  char name[256] = {0};
  Driver &d = rt().driver;
  d.cuDeviceGetName(name, sizeof(name), rt().device);
  info.name = name;
  d.cuDeviceGetAttribute(&info.major,
                         CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                         rt().device);
  d.cuDeviceGetAttribute(&info.minor,
                         CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                         rt().device);
  d.cuDeviceGetAttribute(&info.multiprocessors,
                         CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, rt().device);
  int optin = 0;
  d.cuDeviceGetAttribute(
      &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
      rt().device);
  info.sharedMemoryPerBlockOptin = optin;
  return info;
}

void *cuda::allocate(size_t bytes) {
  if (!rt().enter())
    return nullptr;
  CUdeviceptr pointer = 0;
  if (!rt().check(rt().driver.cuMemAlloc(&pointer, bytes ? bytes : 1),
                  "cuMemAlloc"))
    return nullptr;
  return reinterpret_cast<void *>(pointer);
}

void cuda::release(void *pointer) {
  if (pointer && rt().enter())
    rt().check(rt().driver.cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)),
               "cuMemFree");
}

bool cuda::copyToDevice(void *device, const void *host, size_t bytes) {
  return rt().enter() &&
         rt().check(rt().driver.cuMemcpyHtoD(
                        reinterpret_cast<CUdeviceptr>(device), host, bytes),
                    "cuMemcpyHtoD");
}

bool cuda::copyToHost(void *host, const void *device, size_t bytes) {
  return rt().enter() &&
         rt().check(rt().driver.cuMemcpyDtoH(
                        host, reinterpret_cast<CUdeviceptr>(device), bytes),
                    "cuMemcpyDtoH");
}

bool cuda::synchronize(std::string *error) {
  if (!rt().enter()) {
    if (error)
      *error = "no CUDA device";
    return false;
  }
  rt().check(rt().driver.cuStreamSynchronize(rt().stream),
             "cuStreamSynchronize");
  std::string first = rt().takeError();
  if (first.empty())
    return true;
  if (error)
    *error = first;
  return false;
}

bool cuda::timeCalls(const std::function<void()> &run, unsigned calls,
                     std::vector<double> &seconds, std::string *error) {
  if (!rt().enter())
    return false;
  Driver &d = rt().driver;
  CUevent start = nullptr, stop = nullptr;
  d.cuEventCreate(&start, CU_EVENT_DEFAULT);
  d.cuEventCreate(&stop, CU_EVENT_DEFAULT);
  for (int i = 0; i < 3; ++i)
    run();
  for (unsigned i = 0; i < calls; ++i) {
    d.cuEventRecord(start, rt().stream);
    run();
    d.cuEventRecord(stop, rt().stream);
    d.cuEventSynchronize(stop);
    float ms = 0;
    d.cuEventElapsedTime(&ms, start, stop);
    seconds.push_back(ms * 1e-3);
  }
  d.cuEventDestroy(start);
  d.cuEventDestroy(stop);
  return synchronize(error);
}

bool cuda::timeHostOverhead(const std::function<void()> &run, unsigned calls,
                            double &secondsPerCall, std::string *error) {
  if (!rt().enter())
    return false;
  for (int i = 0; i < 3; ++i)
    run();
  if (!synchronize(error))
    return false;
  rt().deferSynchronize = true;
  auto begin = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < calls; ++i)
    run();
  auto end = std::chrono::steady_clock::now();
  rt().deferSynchronize = false;
  secondsPerCall =
      std::chrono::duration<double>(end - begin).count() / std::max(1u, calls);
  return synchronize(error);
}

std::vector<std::pair<std::string, void *>> cuda::getRuntimeSymbols() {
  return {
      {"mgpuModuleLoad", reinterpret_cast<void *>(&mgpuModuleLoad)},
      {"mgpuModuleLoadJIT", reinterpret_cast<void *>(&mgpuModuleLoadJIT)},
      {"mgpuModuleUnload", reinterpret_cast<void *>(&mgpuModuleUnload)},
      {"mgpuModuleGetFunction",
       reinterpret_cast<void *>(&mgpuModuleGetFunction)},
      {"mgpuLaunchKernel", reinterpret_cast<void *>(&mgpuLaunchKernel)},
      {"mgpuStreamCreate", reinterpret_cast<void *>(&mgpuStreamCreate)},
      {"mgpuStreamDestroy", reinterpret_cast<void *>(&mgpuStreamDestroy)},
      {"mgpuStreamSynchronize",
       reinterpret_cast<void *>(&mgpuStreamSynchronize)},
      {"mgpuStreamWaitEvent", reinterpret_cast<void *>(&mgpuStreamWaitEvent)},
      {"mgpuEventCreate", reinterpret_cast<void *>(&mgpuEventCreate)},
      {"mgpuEventDestroy", reinterpret_cast<void *>(&mgpuEventDestroy)},
      {"mgpuEventSynchronize",
       reinterpret_cast<void *>(&mgpuEventSynchronize)},
      {"mgpuEventRecord", reinterpret_cast<void *>(&mgpuEventRecord)},
      {"mgpuMemAlloc", reinterpret_cast<void *>(&mgpuMemAlloc)},
      {"mgpuMemFree", reinterpret_cast<void *>(&mgpuMemFree)},
      {"mgpuMemcpy", reinterpret_cast<void *>(&mgpuMemcpy)},
      {"mgpuMemset32", reinterpret_cast<void *>(&mgpuMemset32)},
      {"mgpuMemset16", reinterpret_cast<void *>(&mgpuMemset16)},
      {"mgpuMemHostRegister", reinterpret_cast<void *>(&mgpuMemHostRegister)},
      {"mgpuMemHostUnregister",
       reinterpret_cast<void *>(&mgpuMemHostUnregister)},
      {"mgpuSetDefaultDevice", reinterpret_cast<void *>(&mgpuSetDefaultDevice)},
  };
}
