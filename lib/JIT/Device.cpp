//===- Device.cpp - Where compiled code runs ------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT/Device.h"

#include "tile/Runtime/CudaRuntime.h"
#include "tile/Runtime/RocmRuntime.h"
#include "tile/Runtime/Runtime.h"

#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::jit;

double Timing::getMedian() const {
  if (seconds.empty())
    return 0;
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  return sorted[sorted.size() / 2];
}

double Timing::getMin() const {
  return seconds.empty() ? 0
                         : *std::min_element(seconds.begin(), seconds.end());
}

double Timing::getMax() const {
  return seconds.empty() ? 0
                         : *std::max_element(seconds.begin(), seconds.end());
}

Device::~Device() = default;

CompileOptions Device::getCompileOptions() const {
  CompileOptions options;
  options.target = target;
  options.chip = chip;
  return options;
}

LogicalResult Device::fail(std::string message) {
  lastError = std::move(message);
  return failure();
}

FailureOr<double> Device::measureLaunchOverhead(const std::function<void()> &,
                                                unsigned, unsigned) {
  return fail("launch overhead is measured on GPU devices only");
}

std::optional<Target> mlir::tile::jit::parseTarget(StringRef name) {
  return llvm::StringSwitch<std::optional<Target>>(name)
      .Case("cpu", Target::CPU)
      .Case("cuda", Target::NVIDIA)
      .Case("rocm", Target::AMD)
      .Default(std::nullopt);
}

//===----------------------------------------------------------------------===//
// The CPU
//===----------------------------------------------------------------------===//

namespace {
class CpuDevice final : public Device {
public:
  CpuDevice() : Device(Target::CPU, "") {}

  std::string getDescription() const override { return "cpu"; }

  void *allocate(size_t bytes) override {
    // 64-byte aligned, rounded up as aligned_alloc requires.
    void *pointer =
        std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64));
    if (!pointer)
      lastError = "cannot allocate " + std::to_string(bytes) + " bytes";
    return pointer;
  }
  void free(void *pointer) override { std::free(pointer); }
  LogicalResult copyToDevice(void *device, const void *host,
                             size_t bytes) override {
    std::memcpy(device, host, bytes);
    return success();
  }
  LogicalResult copyToHost(void *host, const void *device,
                           size_t bytes) override {
    std::memcpy(host, device, bytes);
    return success();
  }
  LogicalResult synchronize() override { return success(); }

  FailureOr<Timing> benchmark(const std::function<void()> &run, unsigned runs,
                              unsigned warmup) override {
    for (unsigned i = 0; i < warmup; ++i)
      run();
    Timing timing;
    for (unsigned i = 0; i < runs; ++i) {
      auto start = std::chrono::steady_clock::now();
      run();
      timing.seconds.push_back(std::chrono::duration<double>(
                                   std::chrono::steady_clock::now() - start)
                                   .count());
    }
    return timing;
  }
};

//===----------------------------------------------------------------------===//
// GPUs
//===----------------------------------------------------------------------===//

/// A GPU target without a device: compiles, runs nothing.
class OfflineDevice final : public Device {
public:
  OfflineDevice(Target target, std::string chip, runtime::Runtime *runtime)
      : Device(target, std::move(chip)), runtime(runtime) {}

  std::string getDescription() const override { return chip + " (no device)"; }
  bool canRun() const override { return false; }
  SymbolMap getRuntimeSymbols() const override {
    return runtime ? runtime->getSymbols() : SymbolMap();
  }
  void *allocate(size_t) override {
    lastError = getDescription() + " cannot run code";
    return nullptr;
  }
  void free(void *) override {}
  LogicalResult copyToDevice(void *, const void *, size_t) override {
    return fail(getDescription() + " cannot run code");
  }
  LogicalResult copyToHost(void *, const void *, size_t) override {
    return fail(getDescription() + " cannot run code");
  }
  LogicalResult synchronize() override {
    return fail(getDescription() + " cannot run code");
  }
  FailureOr<Timing> benchmark(const std::function<void()> &, unsigned,
                              unsigned) override {
    return fail(getDescription() + " cannot run code");
  }

private:
  runtime::Runtime *runtime;
};

/// A GPU through one of tile's runtimes: each call that uses the thread's
/// device runs in a scope of it (nested in the caller's scope of it, a
/// compare).
class GpuDevice final : public Device {
public:
  GpuDevice(Target target, runtime::Runtime &runtime, StringRef chip,
            int ordinal, runtime::DeviceInfo info)
      : Device(target, "", ordinal), runtime(runtime), info(std::move(info)) {
    this->chip = chip.empty() ? this->info.chip : chip.str();
  }

  std::string getDescription() const override {
    return info.name + " (" + chip + ")";
  }
  SymbolMap getRuntimeSymbols() const override { return runtime.getSymbols(); }

  LogicalResult enter() override {
    std::string why;
    if (runtime.enterDevice(ordinal, &why))
      return success();
    return fail(std::move(why));
  }
  void leave() override { runtime.leaveDevice(); }

  void *allocate(size_t bytes) override {
    DeviceScope scope(*this);
    if (!scope)
      return nullptr;
    void *pointer = runtime.allocate(bytes);
    if (!pointer)
      (void)synchronize();
    return pointer;
  }
  void free(void *pointer) override {
    DeviceScope scope(*this);
    if (scope)
      runtime.release(pointer);
  }
  LogicalResult copyToDevice(void *device, const void *host,
                             size_t bytes) override {
    DeviceScope scope(*this);
    if (!scope)
      return failure();
    if (runtime.copyToDevice(device, host, bytes))
      return success();
    return synchronize();
  }
  LogicalResult copyToHost(void *host, const void *device,
                           size_t bytes) override {
    DeviceScope scope(*this);
    if (!scope)
      return failure();
    if (runtime.copyToHost(host, device, bytes))
      return success();
    return synchronize();
  }
  LogicalResult synchronize() override {
    DeviceScope scope(*this);
    if (!scope)
      return failure();
    return success(runtime.synchronize(&lastError));
  }
  LogicalResult checkErrors() override {
    DeviceScope scope(*this);
    if (!scope)
      return failure();
    std::string error = runtime.takeError();
    if (error.empty())
      return success();
    return fail(std::move(error));
  }
  bool isSynchronous() const override { return runtime.isSynchronous(); }
  void setSynchronous(bool synchronous) override {
    runtime.setSynchronous(synchronous);
  }
  void setStream(void *stream) override { runtime.setStream(ordinal, stream); }
  void setCallerStream(void *stream) override {
    runtime.setCallerStream(ordinal, stream);
  }

  FailureOr<Timing> benchmark(const std::function<void()> &run, unsigned runs,
                              unsigned warmup) override {
    DeviceScope scope(*this);
    if (!scope)
      return failure();
    Timing timing;
    if (!runtime.timeCalls(run, warmup, runs, timing.seconds, &lastError))
      return failure();
    return timing;
  }
  FailureOr<double> measureLaunchOverhead(const std::function<void()> &run,
                                          unsigned runs,
                                          unsigned warmup) override {
    DeviceScope scope(*this);
    if (!scope)
      return failure();
    double seconds = 0;
    if (!runtime.timeHostOverhead(run, warmup, runs, seconds, &lastError))
      return failure();
    return seconds;
  }

private:
  runtime::Runtime &runtime;
  runtime::DeviceInfo info;
};

/// The runtime of a GPU target in this build, or null (with the reason).
runtime::Runtime *getRuntime(Target target, std::string *why) {
  switch (target) {
  case Target::NVIDIA:
    return &runtime::getCudaRuntime();
  case Target::AMD:
    return &runtime::getRocmRuntime();
  case Target::CPU:
    break;
  }
  if (why)
    *why = "the CPU is not a GPU target";
  return nullptr;
}
} // namespace

std::unique_ptr<Device> mlir::tile::jit::createCpuDevice() {
  return std::make_unique<CpuDevice>();
}

std::unique_ptr<Device> mlir::tile::jit::createGpuDevice(Target target,
                                                         StringRef chip,
                                                         std::string *why,
                                                         int ordinal) {
  runtime::Runtime *runtime = getRuntime(target, why);
  if (!runtime || !runtime->initialize(why) ||
      !runtime->enterDevice(ordinal, why))
    return nullptr;
  runtime::DeviceInfo info = runtime->getDeviceInfo();
  runtime->leaveDevice();
  return std::make_unique<GpuDevice>(target, *runtime, chip, ordinal,
                                     std::move(info));
}

int mlir::tile::jit::getGpuDeviceCount(Target target) {
  runtime::Runtime *runtime = getRuntime(target, nullptr);
  return runtime ? runtime->getDeviceCount() : 0;
}

std::unique_ptr<Device> mlir::tile::jit::createOfflineDevice(Target target,
                                                             StringRef chip) {
  return std::make_unique<OfflineDevice>(target, chip.str(),
                                         getRuntime(target, nullptr));
}

FailureOr<std::unique_ptr<Device>>
mlir::tile::jit::selectDevice(StringRef name, StringRef chip, bool allowOffline,
                              std::string &error, int ordinal) {
  if (name == "auto" && ordinal == 0) {
    if (std::unique_ptr<Device> gpu = createGpuDevice(Target::NVIDIA, chip))
      return gpu;
    return createCpuDevice();
  }
  // Another GPU than the first is asked for: "auto" is CUDA.
  std::optional<Target> target = name == "auto"
                                     ? std::optional<Target>(Target::NVIDIA)
                                     : parseTarget(name);
  if (!target) {
    error = "unknown target '" + name.str() +
            "' (expected auto, cuda, rocm or cpu)";
    return failure();
  }
  if (*target == Target::CPU) {
    if (ordinal == 0)
      return createCpuDevice();
    error = "the CPU has no device " + std::to_string(ordinal) +
            " (device ordinals number GPUs)";
    return failure();
  }
  std::string why;
  if (std::unique_ptr<Device> gpu =
          createGpuDevice(*target, chip, &why, ordinal))
    return gpu;
  if (allowOffline && !chip.empty())
    return createOfflineDevice(*target, chip);
  error =
      (*target == Target::NVIDIA ? "no CUDA device: " : "no ROCm device: ") + why;
  if (allowOffline)
    error += std::string("; name the chip (e.g. ") +
             (*target == Target::NVIDIA ? "sm_90a" : "gfx942") +
             ") to compile without a device";
  return failure();
}
