//===- Runtime.h - What tile's GPU runtimes offer ---------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A GPU runtime provides the mgpu* functions that host code lowered by
// gpu-to-llvm calls (getSymbols(), for the JIT to bind), and what tools need
// around them: device query, memory, synchronization and timing. The CUDA
// and ROCm runtimes (CudaRuntime.h, RocmRuntime.h) are one implementation
// over two driver APIs, each opened at run time with dlopen, so programs
// linking them start on machines without a GPU and can ask whether one is
// there.
//
// Compared with MLIR's runtime wrappers: each module is loaded once per
// device, each kernel's function handle and its dynamic shared-memory opt-in
// are set once per device, every launch goes to its device's one stream
// (stream create/destroy are free), nothing is allocated or locked per
// launch, and a failing call names the driver's error and the kernel, and is
// kept for the caller to collect (no abort).
//
// Devices: a runtime drives every GPU of the machine, each started on first
// use (its primary context retained, a stream of its own created). A
// thread's calls, and the lowered code's, go to the thread's device: the
// default one (0, or mgpuSetDefaultDevice's), or the one of the innermost
// enterDevice scope.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_RUNTIME_H
#define TILE_RUNTIME_RUNTIME_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tile::runtime {

struct DeviceInfo {
  std::string name;
  /// The chip tile compiles for: "sm_80", "sm_90a" (the a-variant for 9.0,
  /// whose features tile uses), "gfx942" (without feature suffixes).
  std::string chip;
  int multiprocessors = 0;
  /// Shared memory (LDS) one block may use, opt-in included.
  int64_t sharedMemoryPerBlock = 0;
};

/// The mgpu* functions by name.
using SymbolList = std::vector<std::pair<std::string, void *>>;

class Runtime {
public:
  virtual ~Runtime() = default;

  /// "cuda" or "rocm".
  virtual const char *getName() const = 0;
  /// The mgpu* functions, for the JIT to bind the lowered host code to.
  virtual SymbolList getSymbols() const = 0;

  /// Opens the driver library, initializes it and the default device (and
  /// its stream). False, with the reason, when there is no usable GPU.
  /// Every other call does this first and does nothing without a device.
  virtual bool initialize(std::string *why = nullptr) = 0;
  /// The GPUs this runtime can use (0 without a driver or a device).
  virtual int getDeviceCount() = 0;
  /// Sends the calling thread's calls to device `ordinal` until the matching
  /// leaveDevice: starts the device on first use, and makes its context
  /// current on the thread when another is (torch's current device, say);
  /// leaveDevice restores the one it found. Scopes nest; one nested in a
  /// scope of the same device costs a compare. False, with the reason, when
  /// there is no such device (then there is nothing to leave).
  virtual bool enterDevice(int ordinal, std::string *why = nullptr) = 0;
  virtual void leaveDevice() = 0;
  /// Of the calling thread's device.
  virtual DeviceInfo getDeviceInfo() = 0;

  /// Memory of the thread's device; null on failure (recorded, see
  /// synchronize).
  virtual void *allocate(size_t bytes) = 0;
  virtual void release(void *pointer) = 0;
  /// Copies in the runtime's stream order and waits for the copy.
  virtual bool copyToDevice(void *device, const void *host, size_t bytes) = 0;
  virtual bool copyToHost(void *host, const void *device, size_t bytes) = 0;

  /// Waits for the thread's device's stream; false if it, or any call on
  /// that device since the last check, failed. `error` gets the first
  /// failure's message. Failures are kept per device: threads timing on
  /// different GPUs see only their own.
  virtual bool synchronize(std::string *error) = 0;
  /// The first failure on the thread's device recorded since the last check
  /// (empty if none), without waiting for the stream.
  virtual std::string takeError() = 0;

  /// Where launches and copies on device `device` go from now on: `stream`
  /// (a CUstream or hipStream_t of that device the caller owns, e.g.
  /// torch's current stream), or the runtime's own stream when null.
  virtual void setStream(int device, void *stream) = 0;
  /// Where launches and copies on device `device` go from now on: exactly
  /// `stream`, a stream of the caller's (torch's current stream), the legacy
  /// default stream when null (torch's default current stream is): work
  /// then orders with the caller's as its own kernels do.
  virtual void setCallerStream(int device, void *stream) = 0;
  /// The stream of the thread's device.
  virtual void *getStream() = 0;
  /// Whether the lowered code's stream synchronizations wait (the default).
  /// When off, a call returns once its launches are issued, as torch's
  /// kernels do; errors show at the next synchronize().
  virtual void setSynchronous(bool synchronous) = 0;
  virtual bool isSynchronous() = 0;

  /// Per-call device time of `run` (a synchronous call of lowered code),
  /// measured with events around each call after `warmup` calls.
  virtual bool timeCalls(const std::function<void()> &run, unsigned warmup,
                         unsigned calls, std::vector<double> &seconds,
                         std::string *error) = 0;
  /// Per-call host time of `run` with the lowered code's synchronizations
  /// deferred to the end: the cost of issuing a launch.
  virtual bool timeHostOverhead(const std::function<void()> &run,
                                unsigned warmup, unsigned calls,
                                double &secondsPerCall, std::string *error) = 0;
};

} // namespace mlir::tile::runtime

#endif // TILE_RUNTIME_RUNTIME_H
