//===- Device.h - Where compiled code runs ----------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A Device is the host CPU or one GPU (through tile's CUDA or ROCm runtime,
// tile/Runtime/Runtime.h): what to compile for (target, chip), the runtime
// functions the compiled host code calls, memory, copies, synchronization
// with errors, and timing. tile-run, the C API and the Python binding all
// select and use devices through this header.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_DEVICE_H
#define TILE_JIT_DEVICE_H

#include "tile/JIT/Compiler.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tile::jit {

/// Per-call seconds of a benchmark.
struct Timing {
  std::vector<double> seconds;
  double getMedian() const;
  double getMin() const;
  double getMax() const;
};

class Device {
public:
  virtual ~Device();

  Target getTarget() const { return target; }
  /// The chip compiled for: "sm_90a", "gfx942"; empty on the CPU.
  const std::string &getChip() const { return chip; }
  /// "cpu", "NVIDIA H200 (sm_90a)", "sm_90a (no device)".
  virtual std::string getDescription() const = 0;
  /// Whether code can run here (an offline GPU target only compiles).
  virtual bool canRun() const { return true; }
  /// The mgpu* functions compiled host code for this device calls.
  virtual SymbolMap getRuntimeSymbols() const { return {}; }
  /// Options compiling for this device: its target and chip, the rest
  /// default.
  CompileOptions getCompileOptions() const;

  /// Device memory (64-byte aligned host memory on the CPU); null on
  /// failure, with getLastError().
  virtual void *allocate(size_t bytes) = 0;
  virtual void free(void *pointer) = 0;
  virtual LogicalResult copyToDevice(void *device, const void *host,
                                     size_t bytes) = 0;
  virtual LogicalResult copyToHost(void *host, const void *device,
                                   size_t bytes) = 0;

  /// Waits for all work; fails with the first error since the last check.
  virtual LogicalResult synchronize() = 0;
  /// Fails with the first error recorded since the last check, without
  /// waiting for work in flight.
  virtual LogicalResult checkErrors() { return success(); }
  /// Whether a call waits for its kernels (always on the CPU). GPU calls
  /// are synchronous by default; asynchronous calls return once launched,
  /// and their errors show at the next synchronize().
  virtual bool isSynchronous() const { return true; }
  virtual void setSynchronous(bool synchronous) {}
  /// The stream GPU work goes to (a CUstream or hipStream_t the caller
  /// owns, e.g. torch's current stream); null: the runtime's own.
  virtual void setStream(void *stream) {}
  /// The caller's stream GPU work goes to, exactly: null is the legacy
  /// default stream (torch's current stream unless one is set).
  virtual void setCallerStream(void *stream) {}

  /// Times `runs` calls of `run` (synchronous calls of compiled code)
  /// after `warmup` untimed ones: with CUDA/HIP events on a GPU, the steady
  /// clock on the CPU.
  virtual FailureOr<Timing> benchmark(const std::function<void()> &run,
                                      unsigned runs, unsigned warmup) = 0;
  /// Host time per call of `runs` calls issued back to back, the compiled
  /// code's synchronizations deferred to one at the end: the cost of a
  /// launch. GPU devices only.
  virtual FailureOr<double>
  measureLaunchOverhead(const std::function<void()> &run, unsigned runs,
                        unsigned warmup);

  const std::string &getLastError() const { return lastError; }

protected:
  Device(Target target, std::string chip)
      : target(target), chip(std::move(chip)) {}
  LogicalResult fail(std::string message);

  Target target;
  std::string chip;
  std::string lastError;
};

/// Warm-up calls of benchmarks unless told otherwise.
constexpr unsigned kDefaultWarmup = 3;

/// "cpu", "cuda" or "rocm".
std::optional<Target> parseTarget(StringRef name);

std::unique_ptr<Device> createCpuDevice();
/// The GPU of `target` (CUDA or ROCm) when this build has its runtime and
/// the machine a device; else null, with the reason in `why`. `chip`
/// overrides the detected chip.
std::unique_ptr<Device> createGpuDevice(Target target, StringRef chip,
                                        std::string *why = nullptr);
/// A GPU target without a device, to compile for `chip` only.
std::unique_ptr<Device> createOfflineDevice(Target target, StringRef chip);

/// The device `target` names: "cpu", "cuda", "rocm", or "auto" (a CUDA GPU
/// when one is found, else the CPU). A GPU target without its device fails
/// ("no CUDA device: REASON"), unless `allowOffline` and `chip` are given:
/// then it is an offline device. Unknown names fail too ("unknown target
/// 'tpu' (expected auto, cuda, rocm or cpu)").
FailureOr<std::unique_ptr<Device>> selectDevice(StringRef target,
                                                StringRef chip,
                                                bool allowOffline,
                                                std::string &error);

} // namespace mlir::tile::jit

#endif // TILE_JIT_DEVICE_H
