//===- CudaDevice.cpp - tile-run on NVIDIA GPUs ---------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "Device.h"

#ifdef TILE_HAS_CUDA_RUNTIME
#include "tile/Runtime/CudaRuntime.h"
#endif

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::run;

namespace {
/// Compiles for a chip; cannot run anything.
class OfflineCudaDevice : public Device {
public:
  explicit OfflineCudaDevice(std::string chip) : chip(std::move(chip)) {}
  jit::Target getTarget() const override { return jit::Target::CUDA; }
  std::string getChip() const override { return chip; }
  std::string getDescription() const override {
    return chip + " (no device)";
  }
  jit::SymbolMap getRuntimeSymbols() const override {
#ifdef TILE_HAS_CUDA_RUNTIME
    return runtime::cuda::getRuntimeSymbols();
#else
    return {};
#endif
  }
  void *allocate(size_t) override { return nullptr; }
  void free(void *) override {}
  LogicalResult copyToDevice(void *, StringRef) override { return failure(); }
  LogicalResult copyToHost(std::string &, const void *) override {
    return failure();
  }
  LogicalResult synchronize() override { return failure(); }
  LogicalResult benchmark(const std::function<void()> &, unsigned,
                          std::vector<double> &) override {
    return failure();
  }

private:
  std::string chip;
};
} // namespace

std::unique_ptr<Device> mlir::tile::run::createOfflineCudaDevice(StringRef chip) {
  return std::make_unique<OfflineCudaDevice>(chip.str());
}

#ifdef TILE_HAS_CUDA_RUNTIME
namespace {
class CudaDevice : public Device {
public:
  explicit CudaDevice(std::string chip) : chip(std::move(chip)) {
    info = runtime::cuda::getDeviceInfo();
    if (this->chip.empty())
      this->chip = info.chip();
  }

  jit::Target getTarget() const override { return jit::Target::CUDA; }
  std::string getChip() const override { return chip; }
  std::string getDescription() const override {
    return info.name + " (" + chip + ")";
  }
  jit::SymbolMap getRuntimeSymbols() const override {
    return runtime::cuda::getRuntimeSymbols();
  }

  void *allocate(size_t bytes) override {
    return runtime::cuda::allocate(bytes);
  }
  void free(void *pointer) override { runtime::cuda::release(pointer); }
  LogicalResult copyToDevice(void *device, StringRef host) override {
    if (runtime::cuda::copyToDevice(device, host.data(), host.size()))
      return success();
    return synchronize();
  }
  LogicalResult copyToHost(std::string &host, const void *device) override {
    if (runtime::cuda::copyToHost(host.data(), device, host.size()))
      return success();
    return synchronize();
  }
  LogicalResult synchronize() override {
    return success(runtime::cuda::synchronize(&lastError));
  }
  LogicalResult benchmark(const std::function<void()> &run, unsigned runs,
                          std::vector<double> &seconds) override {
    return success(runtime::cuda::timeCalls(run, runs, seconds, &lastError));
  }
  FailureOr<double> measureLaunchOverhead(const std::function<void()> &run,
                                          unsigned runs) override {
    double seconds = 0;
    if (!runtime::cuda::timeHostOverhead(run, runs, seconds, &lastError))
      return failure();
    return seconds;
  }

private:
  std::string chip;
  runtime::cuda::DeviceInfo info;
};
} // namespace

std::unique_ptr<Device> mlir::tile::run::createCudaDevice(StringRef chip,
                                                          std::string *why) {
  std::string reason;
  if (!runtime::cuda::initialize(&reason)) {
    if (why)
      *why = reason;
    return nullptr;
  }
  return std::make_unique<CudaDevice>(chip.str());
}
#else
std::unique_ptr<Device> mlir::tile::run::createCudaDevice(StringRef chip,
                                                          std::string *why) {
  if (why)
    *why = "this build of tile-run has no CUDA runtime (cuda.h was not found)";
  return nullptr;
}
#endif
