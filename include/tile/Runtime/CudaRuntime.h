//===- CudaRuntime.h - tile's CUDA runtime ----------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The mgpu* functions that host code lowered by gpu-to-llvm calls, over the
// CUDA driver API, plus what tools need around them (device query, memory,
// timing). libcuda is opened at run time, so programs linking this library
// start on machines without a GPU and can ask whether one is there.
//
// Compared with MLIR's runtime wrappers: each module is loaded once, each
// kernel's function handle and its dynamic shared-memory limit are set once,
// every launch goes to one stream (stream create/destroy are free), nothing
// is allocated per launch, and a failing call names the CUDA error and the
// kernel, and is kept for the caller to collect (no abort).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_CUDARUNTIME_H
#define TILE_RUNTIME_CUDARUNTIME_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tile::runtime::cuda {

/// Opens libcuda, initializes the driver and the default device's primary
/// context. False (with the reason) when there is no usable GPU.
bool initialize(std::string *why = nullptr);

struct DeviceInfo {
  std::string name;
  int major = 0, minor = 0;
  int multiprocessors = 0;
  int64_t sharedMemoryPerBlockOptin = 0;
  /// "sm_80", "sm_90a" (the a-variant for 9.0, whose features tile uses).
  std::string chip() const;
};
DeviceInfo getDeviceInfo();

void *allocate(size_t bytes);
void release(void *pointer);
bool copyToDevice(void *device, const void *host, size_t bytes);
bool copyToHost(void *host, const void *device, size_t bytes);
/// Waits for the runtime's stream; false if it, or any call since the last
/// check, failed. `error` gets the first failure's message.
bool synchronize(std::string *error);

/// Per-call device time of `run` (which must be synchronous, as lowered
/// host functions are), measured with CUDA events, after warm-up.
bool timeCalls(const std::function<void()> &run, unsigned calls,
               std::vector<double> &seconds, std::string *error);
/// Per-call host time of `run` with stream synchronizations deferred to
/// the end: the cost of issuing a launch.
bool timeHostOverhead(const std::function<void()> &run, unsigned calls,
                      double &secondsPerCall, std::string *error);

/// The mgpu* functions by name, for the JIT.
std::vector<std::pair<std::string, void *>> getRuntimeSymbols();

} // namespace mlir::tile::runtime::cuda

#endif // TILE_RUNTIME_CUDARUNTIME_H
