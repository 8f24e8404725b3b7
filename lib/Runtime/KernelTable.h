//===- KernelTable.h - What tile's GPU runtimes share -----------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Runtime: the bookkeeping the CUDA and ROCm runtimes share,
// independent of either API. Header-only and dependency-free, like the
// runtimes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_RUNTIME_KERNELTABLE_H
#define TILE_LIB_RUNTIME_KERNELTABLE_H

#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace mlir::tile::runtime {

/// Failures of runtime calls: each is printed as it happens ("tile runtime:
/// CALL failed for kernel 'K': NAME (TEXT)"), and the first since the
/// caller last asked is kept for it. The runtimes never abort.
class FailureLog {
public:
  void record(const char *call, const char *kernel, const char *errorName,
              const char *errorText) {
    std::string message = std::string(call) + " failed";
    if (kernel)
      message += std::string(" for kernel '") + kernel + "'";
    message += std::string(": ") + (errorName ? errorName : "error") + " (" +
               (errorText ? errorText : "no description") + ")";
    std::fprintf(stderr, "tile runtime: %s\n", message.c_str());
    std::lock_guard<std::mutex> lock(mutex);
    if (first.empty())
      first = std::move(message);
  }

  /// The first failure since the last call (empty if none), forgotten.
  std::string take() {
    std::lock_guard<std::mutex> lock(mutex);
    std::string result;
    result.swap(first);
    return result;
  }

private:
  std::mutex mutex;
  std::string first;
};

/// Loaded modules by the address of their binary, and functions by module
/// and name, each loaded or looked up once for the process; remembers each
/// function's name for messages. Thread-safe.
template <typename Module, typename Function>
class KernelTable {
public:
  /// The module of `binary`, loaded with `load(Module &) -> bool` the first
  /// time; null when loading fails.
  template <typename Load>
  Module getModule(const void *binary, Load load) {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = modules.find(binary); it != modules.end())
      return it->second;
    Module module{};
    if (!load(module))
      return Module{};
    modules[binary] = module;
    return module;
  }

  /// Function `name` of `module`, looked up with `lookup(Function &) ->
  /// bool` the first time; null when that fails.
  template <typename Lookup>
  Function getFunction(Module module, const char *name, Lookup lookup) {
    std::lock_guard<std::mutex> lock(mutex);
    auto key = std::make_pair(module, std::string(name));
    if (auto it = functions.find(key); it != functions.end())
      return it->second;
    Function function{};
    if (!lookup(function))
      return Function{};
    functions[key] = function;
    names[function] = name;
    return function;
  }

  std::string getName(Function function) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = names.find(function);
    return it == names.end() ? "?" : it->second;
  }

private:
  std::mutex mutex;
  std::map<const void *, Module> modules;
  std::map<std::pair<Module, std::string>, Function> functions;
  std::unordered_map<Function, std::string> names;
};

} // namespace mlir::tile::runtime

#endif // TILE_LIB_RUNTIME_KERNELTABLE_H
