//===- RocmRuntime.h - tile's ROCm runtime ----------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The ROCm counterpart of CudaRuntime.h: the mgpu* functions host code
// lowered by gpu-to-llvm calls, over HIP's module API, and what tools need
// around them. libamdhip64 is opened at run time, so programs linking this
// library start on machines without an AMD GPU or ROCm and can ask whether
// one is there. Same guarantees as the CUDA runtime: each module loaded
// once, each function looked up once, one stream, nothing allocated per
// launch, failures name the HIP error and the kernel and are kept for the
// caller (no abort).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_ROCMRUNTIME_H
#define TILE_RUNTIME_ROCMRUNTIME_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tile::runtime::rocm {

/// Opens libamdhip64, initializes HIP and selects the default device. False
/// (with the reason) when there is no usable GPU.
bool initialize(std::string *why = nullptr);

struct DeviceInfo {
  std::string name;
  /// "gfx942", "gfx90a" (the arch without feature suffixes).
  std::string chip;
  int multiprocessors = 0;
};
DeviceInfo getDeviceInfo();

void *allocate(size_t bytes);
void release(void *pointer);
bool copyToDevice(void *device, const void *host, size_t bytes);
bool copyToHost(void *host, const void *device, size_t bytes);
/// Waits for the runtime's stream; false if it, or any call since the last
/// check, failed. `error` gets the first failure's message.
bool synchronize(std::string *error);
/// Per-call device time of `run`, measured with HIP events, after warm-up.
bool timeCalls(const std::function<void()> &run, unsigned calls,
               std::vector<double> &seconds, std::string *error);

/// The mgpu* functions by name, for the JIT.
std::vector<std::pair<std::string, void *>> getRuntimeSymbols();

} // namespace mlir::tile::runtime::rocm

#endif // TILE_RUNTIME_ROCMRUNTIME_H
