//===- Device.h - Where tile-run puts data and runs code --------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_TILE_RUN_DEVICE_H
#define TILE_TOOLS_TILE_RUN_DEVICE_H

#include "tile/JIT/Compiler.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir::tile::run {

/// Memory, copies, synchronization and timing on one target.
class Device {
public:
  virtual ~Device() = default;

  virtual jit::Target getTarget() const = 0;
  virtual std::string getChip() const = 0;
  /// e.g. "cpu" or "NVIDIA H100 80GB HBM3 (sm_90a)".
  virtual std::string getDescription() const = 0;
  /// The runtime functions the compiled host code calls.
  virtual jit::SymbolMap getRuntimeSymbols() const { return {}; }

  virtual void *allocate(size_t bytes) = 0;
  virtual void free(void *pointer) = 0;
  virtual LogicalResult copyToDevice(void *device, StringRef host) = 0;
  /// Fills `host` (already sized) from `device`.
  virtual LogicalResult copyToHost(std::string &host, const void *device) = 0;
  /// Waits for all work; fails if any of it failed.
  virtual LogicalResult synchronize() = 0;
  /// Times `runs` calls of `run` after warm-up; seconds per call.
  virtual LogicalResult benchmark(const std::function<void()> &run,
                                  unsigned runs,
                                  std::vector<double> &seconds) = 0;

  /// Host time per call with synchronization deferred (the cost of
  /// issuing a launch); failure where that does not apply.
  virtual FailureOr<double>
  measureLaunchOverhead(const std::function<void()> &run, unsigned runs) {
    lastError = "launch overhead is measured on GPU devices only";
    return failure();
  }

  const std::string &getLastError() const { return lastError; }

protected:
  std::string lastError;
};

std::unique_ptr<Device> createCpuDevice();
/// A CUDA device when a driver and a GPU are present, else null (with the
/// reason in `why`). `chip` overrides the detected sm_XX.
std::unique_ptr<Device> createCudaDevice(StringRef chip,
                                         std::string *why = nullptr);
/// A CUDA target without a device, for --compile-only.
std::unique_ptr<Device> createOfflineCudaDevice(StringRef chip);

} // namespace mlir::tile::run

#endif // TILE_TOOLS_TILE_RUN_DEVICE_H
