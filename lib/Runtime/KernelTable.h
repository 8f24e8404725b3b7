//===- KernelTable.h - Loaded modules and their functions -------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Runtime: the binaries the lowered code has loaded, each
// loaded as a module once per device it runs on, and the functions looked up
// in them, once per device. Dependency-free, like the runtimes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_RUNTIME_KERNELTABLE_H
#define TILE_LIB_RUNTIME_KERNELTABLE_H

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tile::runtime {

/// The most GPUs a runtime drives: device ordinals are below this.
inline constexpr int kMaxDevices = 64;

/// Loaded binaries by address (counting the loads that share one), each a
/// module per device it has run on, and their functions per device, each
/// loaded or looked up once while in use. What mgpuModuleLoad returns is a
/// Binary, what mgpuModuleGetFunction returns a Function of one device.
/// Thread-safe; a launch's lookup takes no lock.
template <typename Module, typename Function> class KernelTable {
public:
  /// One function of a binary on one device: its handle, its name (for
  /// messages) and the dynamic shared memory it has opted in to.
  struct Kernel {
    Function function{};
    int device = 0;
    std::string name;
    /// The name string it was last asked for by (the lowered code's
    /// constant): a launch compares addresses only.
    std::atomic<const char *> askedAs{nullptr};
    std::atomic<int32_t> sharedLimit{0};
  };

  /// A binary (the address of its image) and its modules by device.
  struct Binary {
    const void *data = nullptr;
    /// The JIT optimization level of mgpuModuleLoadJIT; -1 for a binary.
    int optLevel = -1;
    int users = 0;
    std::array<Module, kMaxDevices> modules{};
    /// Per device, the function looked up last.
    std::array<std::atomic<Kernel *>, kMaxDevices> last{};
    std::vector<std::unique_ptr<Kernel>> kernels;
  };

  /// The binary at `data`, its module loaded on `device` with `load(Module
  /// &) -> bool` unless it is already; null when that load fails.
  template <typename Load>
  Binary *getBinary(const void *data, int optLevel, int device, Load load) {
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<Binary> &slot = binaries[data];
    bool fresh = !slot;
    if (fresh) {
      slot = std::make_unique<Binary>();
      slot->data = data;
      slot->optLevel = optLevel;
    }
    Binary *binary = slot.get();
    if (!binary->modules[device] && !load(binary->modules[device])) {
      binary->modules[device] = Module{};
      if (fresh)
        binaries.erase(data);
      return nullptr;
    }
    ++binary->users;
    return binary;
  }

  /// Function `name` of `binary` on `device`; the first time, the binary is
  /// loaded there with `load(Module &, const void *data, int optLevel) ->
  /// bool` (unless it is already) and the function looked up with
  /// `lookup(Function &, Module) -> bool`. Null when either fails. The
  /// lowered code asks on every launch with the same name string: the
  /// function asked for last by that address is returned without a lock.
  template <typename Load, typename Lookup>
  Kernel *getFunction(Binary &binary, int device, const char *name, Load load,
                      Lookup lookup) {
    Kernel *last = binary.last[device].load(std::memory_order_acquire);
    if (last && last->askedAs.load(std::memory_order_relaxed) == name)
      return last;
    std::lock_guard<std::mutex> lock(mutex);
    Kernel *kernel = nullptr;
    for (const std::unique_ptr<Kernel> &known : binary.kernels)
      if (known->device == device && known->name == name)
        kernel = known.get();
    if (!kernel) {
      Module &module = binary.modules[device];
      if (!module && !load(module, binary.data, binary.optLevel)) {
        module = Module{};
        return nullptr;
      }
      Function function{};
      if (!lookup(function, module))
        return nullptr;
      binary.kernels.push_back(std::make_unique<Kernel>());
      kernel = binary.kernels.back().get();
      kernel->function = function;
      kernel->device = device;
      kernel->name = name;
    }
    kernel->askedAs.store(name, std::memory_order_relaxed);
    binary.last[device].store(kernel, std::memory_order_release);
    return kernel;
  }

  /// Drops one use of `binary`; on the last, forgets it and its functions
  /// and returns its modules by device (the caller unloads them).
  std::vector<std::pair<int, Module>> releaseBinary(Binary &binary) {
    std::vector<std::pair<int, Module>> modules;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = binaries.find(binary.data);
    if (it == binaries.end() || it->second.get() != &binary ||
        --binary.users > 0)
      return modules;
    for (int device = 0; device < kMaxDevices; ++device)
      if (binary.modules[device])
        modules.emplace_back(device, binary.modules[device]);
    binaries.erase(it);
    return modules;
  }

private:
  std::mutex mutex;
  std::map<const void *, std::unique_ptr<Binary>> binaries;
};

} // namespace mlir::tile::runtime

#endif // TILE_LIB_RUNTIME_KERNELTABLE_H
