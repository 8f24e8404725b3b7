//===- Kernel.cpp - A compiled function, ready to call --------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT/Kernel.h"

using namespace mlir;
using namespace mlir::tile::jit;

FailureOr<Kernel> Kernel::get(std::shared_ptr<Executable> executable,
                              StringRef name, Device &device,
                              std::string *error) {
  std::string message;
  FailureOr<const Signature *> signature =
      executable->getSignature(name, &message);
  if (failed(signature)) {
    if (error)
      *error = std::move(message);
    return failure();
  }
  FailureOr<Executable::PackedFunction> entryPoint =
      executable->lookup(name, &message);
  if (failed(entryPoint)) {
    if (error)
      *error =
          "cannot find @" + name.str() + " in the compiled module: " + message;
    return failure();
  }
  Kernel kernel;
  kernel.executable = std::move(executable);
  kernel.signature = *signature;
  kernel.entryPoint = *entryPoint;
  kernel.device = &device;
  return kernel;
}

LogicalResult Kernel::call(PackedArguments &arguments,
                           std::string *error) const {
  LogicalResult result = failure();
  if (DeviceScope scope(*device); scope) {
    entryPoint(arguments.data());
    result =
        device->isSynchronous() ? device->synchronize() : device->checkErrors();
  }
  if (failed(result) && error)
    *error = device->getLastError();
  return result;
}

FailureOr<Timing> Kernel::benchmark(PackedArguments &arguments, unsigned runs,
                                    unsigned warmup, std::string *error) const {
  void **packed = arguments.data();
  FailureOr<Timing> timing =
      device->benchmark([&] { entryPoint(packed); }, runs, warmup);
  if (failed(timing) && error)
    *error = device->getLastError();
  return timing;
}

FailureOr<double> Kernel::measureLaunchOverhead(PackedArguments &arguments,
                                                unsigned runs, unsigned warmup,
                                                std::string *error) const {
  void **packed = arguments.data();
  FailureOr<double> seconds =
      device->measureLaunchOverhead([&] { entryPoint(packed); }, runs, warmup);
  if (failed(seconds) && error)
    *error = device->getLastError();
  return seconds;
}
