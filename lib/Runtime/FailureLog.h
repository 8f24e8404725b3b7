//===- FailureLog.h - Failed driver calls, reported and kept ----*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Runtime: a driver call's result with the driver function's
// name (DriverCall), and the log of failed calls that GpuRuntime prints and
// keeps for its caller (FailureLog). Dependency-free, like the runtimes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_RUNTIME_FAILURELOG_H
#define TILE_LIB_RUNTIME_FAILURELOG_H

#include <cstdio>
#include <mutex>
#include <string>
#include <utility>

namespace mlir::tile::runtime {

/// A driver call's result and the driver function's name, for messages.
template <typename Result> struct DriverCall {
  Result result;
  const char *name;
};

/// Failures of runtime calls: each is printed as it happens ("tile runtime:
/// CALL failed for kernel 'K': NAME (TEXT)"), and the first since the
/// caller last asked is kept for it. The runtimes never abort.
class FailureLog {
public:
  /// "CALL failed for kernel 'K': NAME (TEXT)".
  static std::string describe(const char *call, const char *kernel,
                              const char *errorName, const char *errorText) {
    std::string message = std::string(call) + " failed";
    if (kernel)
      message += std::string(" for kernel '") + kernel + "'";
    message += std::string(": ") + (errorName ? errorName : "error") + " (" +
               (errorText ? errorText : "no description") + ")";
    return message;
  }

  void record(const char *call, const char *kernel, const char *errorName,
              const char *errorText) {
    std::string message = describe(call, kernel, errorName, errorText);
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

} // namespace mlir::tile::runtime

#endif // TILE_LIB_RUNTIME_FAILURELOG_H
