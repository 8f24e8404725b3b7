//===- CpuDevice.cpp - tile-run on the host CPU ---------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "Device.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::run;

namespace {
class CpuDevice : public Device {
public:
  jit::Target getTarget() const override { return jit::Target::CPU; }
  std::string getChip() const override { return ""; }
  std::string getDescription() const override { return "cpu"; }

  void *allocate(size_t bytes) override {
    // 64-byte aligned, rounded up as aligned_alloc requires.
    return std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64));
  }
  void free(void *pointer) override { std::free(pointer); }
  LogicalResult copyToDevice(void *device, StringRef host) override {
    std::memcpy(device, host.data(), host.size());
    return success();
  }
  LogicalResult copyToHost(std::string &host, const void *device) override {
    std::memcpy(host.data(), device, host.size());
    return success();
  }
  LogicalResult synchronize() override { return success(); }
  LogicalResult benchmark(const std::function<void()> &run, unsigned runs,
                          std::vector<double> &seconds) override {
    for (int i = 0; i < 2; ++i)
      run();
    for (unsigned i = 0; i < runs; ++i) {
      auto start = std::chrono::steady_clock::now();
      run();
      seconds.push_back(std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count());
    }
    return success();
  }
};
} // namespace

std::unique_ptr<Device> mlir::tile::run::createCpuDevice() {
  return std::make_unique<CpuDevice>();
}
