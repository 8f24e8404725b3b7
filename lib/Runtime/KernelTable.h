//===- KernelTable.h - Loaded modules and their functions -------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Runtime: the modules GpuRuntime has loaded and the functions
// it has looked up in them, each loaded or looked up once while in use.
// Dependency-free, like the runtimes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_RUNTIME_KERNELTABLE_H
#define TILE_LIB_RUNTIME_KERNELTABLE_H

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace mlir::tile::runtime {

/// Loaded modules by the address of their binary (counting the loads that
/// share one), functions by module and name, each loaded or looked up once
/// while in use; per function its name, for messages, and the dynamic
/// shared memory it has opted in to. Thread-safe.
template <typename Module, typename Function> class KernelTable {
public:
  /// The module of `binary`, loaded with `load(Module &) -> bool` the first
  /// time; null when loading fails.
  template <typename Load> Module getModule(const void *binary, Load load) {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = modules.find(binary); it != modules.end()) {
      ++it->second.users;
      return it->second.module;
    }
    Module module{};
    if (!load(module))
      return Module{};
    modules[binary] = {module, 1};
    return module;
  }

  /// Drops one use of `module`; true when it was the last one (the caller
  /// unloads it), its functions forgotten.
  bool releaseModule(Module module) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = std::find_if(modules.begin(), modules.end(), [&](auto &entry) {
      return entry.second.module == module;
    });
    if (it == modules.end() || --it->second.users > 0)
      return false;
    modules.erase(it);
    for (auto f = functionsByAddress.begin(); f != functionsByAddress.end();)
      f = f->first.first == module ? functionsByAddress.erase(f) : std::next(f);
    for (auto f = functionsByName.begin(); f != functionsByName.end();) {
      if (f->first.first == module) {
        functions.erase(f->second);
        f = functionsByName.erase(f);
      } else {
        ++f;
      }
    }
    return true;
  }

  /// Function `name` of `module`, looked up with `lookup(Function &) ->
  /// bool` the first time; null when that fails. Lowered code asks on every
  /// launch with the same name string: its address is tried first.
  template <typename Lookup>
  Function getFunction(Module module, const char *name, Lookup lookup) {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = functionsByAddress.find({module, name});
        it != functionsByAddress.end())
      return it->second;
    auto key = std::make_pair(module, std::string(name));
    auto it = functionsByName.find(key);
    Function function{};
    if (it != functionsByName.end()) {
      function = it->second;
    } else {
      if (!lookup(function))
        return Function{};
      functionsByName[key] = function;
      functions[function] = {name, 0};
    }
    functionsByAddress[{module, name}] = function;
    return function;
  }

  std::string getName(Function function) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = functions.find(function);
    return it == functions.end() ? "?" : it->second.name;
  }

  /// The dynamic shared memory `function` has opted in to.
  int32_t getSharedLimit(Function function) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = functions.find(function);
    return it == functions.end() ? 0 : it->second.sharedLimit;
  }
  void setSharedLimit(Function function, int32_t bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    int32_t &limit = functions[function].sharedLimit;
    limit = std::max(limit, bytes);
  }

private:
  struct LoadedModule {
    Module module;
    int users;
  };
  struct FunctionInfo {
    std::string name;
    int32_t sharedLimit;
  };
  std::mutex mutex;
  std::map<const void *, LoadedModule> modules;
  std::map<std::pair<Module, std::string>, Function> functionsByName;
  std::map<std::pair<Module, const char *>, Function> functionsByAddress;
  std::unordered_map<Function, FunctionInfo> functions;
};

} // namespace mlir::tile::runtime

#endif // TILE_LIB_RUNTIME_KERNELTABLE_H
