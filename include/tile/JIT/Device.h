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
// The GPUs of one runtime share the compiled code: a kernel compiled for
// one runs on any of them (its module loaded on each at its first launch
// there). Each GPU device's calls run in a DeviceScope of it, which makes
// it the calling thread's device for the runtime (and the code it runs).
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
  /// The GPU's ordinal among its runtime's (0 on the CPU).
  int getOrdinal() const { return ordinal; }

  /// Makes this device the calling thread's for its runtime until leave():
  /// compiled code called in between runs here (DeviceScope does both).
  /// Fails, with getLastError(), when the device cannot be entered.
  virtual LogicalResult enter() { return success(); }
  virtual void leave() {}
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
  Device(Target target, std::string chip, int ordinal = 0)
      : target(target), chip(std::move(chip)), ordinal(ordinal) {}
  LogicalResult fail(std::string message);

  Target target;
  std::string chip;
  int ordinal;
  std::string lastError;
};

/// Device::enter for the scope's lifetime; false when it failed (then the
/// device's last error says why).
class DeviceScope {
public:
  explicit DeviceScope(Device &device)
      : device(device), entered(succeeded(device.enter())) {}
  ~DeviceScope() {
    if (entered)
      device.leave();
  }
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;
  explicit operator bool() const { return entered; }

private:
  Device &device;
  bool entered;
};

/// Warm-up calls of benchmarks unless told otherwise.
constexpr unsigned kDefaultWarmup = 3;

/// "cpu", "cuda" or "rocm".
std::optional<Target> parseTarget(StringRef name);

std::unique_ptr<Device> createCpuDevice();
/// GPU `ordinal` of `target` (CUDA or ROCm) when this build has its runtime
/// and the machine the device; else null, with the reason in `why`. `chip`
/// overrides the detected chip.
std::unique_ptr<Device> createGpuDevice(Target target, StringRef chip,
                                        std::string *why = nullptr,
                                        int ordinal = 0);
/// The GPUs of `target` the machine has (0 without its runtime's driver).
int getGpuDeviceCount(Target target);
/// A GPU target without a device, to compile for `chip` only.
std::unique_ptr<Device> createOfflineDevice(Target target, StringRef chip);

/// The device `target` names: "cpu", "cuda", "rocm", or "auto" (a CUDA GPU
/// when one is found, else the CPU); of a GPU target, GPU `ordinal`. A GPU
/// target without its device fails ("no CUDA device: REASON"), unless
/// `allowOffline` and `chip` are given: then it is an offline device. So
/// does "auto" with an ordinal other than 0 and no such GPU. Unknown names
/// fail too ("unknown target 'tpu' (expected auto, cuda, rocm or cpu)"),
/// and a GPU ordinal other than 0 on the CPU.
FailureOr<std::unique_ptr<Device>>
selectDevice(StringRef target, StringRef chip, bool allowOffline,
             std::string &error, int ordinal = 0);

} // namespace mlir::tile::jit

#endif // TILE_JIT_DEVICE_H
