//===- Kernel.h - A compiled function, ready to call ------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The launch path tile-run, the C API and Python share. A Kernel binds one
// function of a compiled Executable to the Device it runs on and holds
// everything a call needs that does not change between calls: the packed
// entry point, the signature and the device. A call then costs filling a
// PackedArguments (pointers, sizes, strides; checked) and the call itself:
//
//   auto device = jit::selectDevice("auto", "", false, error);
//   jit::Compiler compiler((*device)->getCompileOptions(),
//                          (*device)->getRuntimeSymbols());
//   auto executable = compiler.compile(module);
//   auto kernel = jit::Kernel::get(*executable, "gemm", **device, &error);
//   jit::PackedArguments args = kernel->makeArguments();   // once
//   args.setMemRef(0, a, jit::ElementType::F16, {M, K}, {}, &error);
//   ...                                                    // every call
//   kernel->call(args, &error);
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_KERNEL_H
#define TILE_JIT_KERNEL_H

#include "tile/JIT/Compiler.h"
#include "tile/JIT/Device.h"
#include "tile/JIT/PackedArguments.h"

#include <memory>

namespace mlir::tile::jit {

class Kernel {
public:
  /// Function `name` of `executable` on `device` (which must outlive the
  /// kernel). Fails when the executable has no such function or a caller
  /// cannot fill in its signature (the reason in `error`).
  static FailureOr<Kernel> get(std::shared_ptr<Executable> executable,
                               StringRef name, Device &device,
                               std::string *error);

  const Signature &getSignature() const { return *signature; }
  Device &getDevice() const { return *device; }
  /// The same function on `other`, a GPU of the same runtime as this
  /// kernel's device: the compiled code runs on any of them.
  Kernel withDevice(Device &other) const {
    Kernel kernel = *this;
    kernel.device = &other;
    return kernel;
  }
  Executable::PackedFunction getEntryPoint() const { return entryPoint; }

  /// Arguments laid out for this kernel, to fill and reuse across calls.
  PackedArguments makeArguments() const { return PackedArguments(*signature); }

  /// One call, on the kernel's device (in a DeviceScope of it). On a
  /// synchronous device it waits and fails with the first runtime error;
  /// otherwise it returns once launched and fails only with errors already
  /// recorded (launch failures).
  LogicalResult call(PackedArguments &arguments, std::string *error) const;

  /// Device time per call (Device::benchmark) and host time per launch
  /// (Device::measureLaunchOverhead) of calls with `arguments`.
  FailureOr<Timing> benchmark(PackedArguments &arguments, unsigned runs,
                              unsigned warmup, std::string *error) const;
  FailureOr<double> measureLaunchOverhead(PackedArguments &arguments,
                                          unsigned runs, unsigned warmup,
                                          std::string *error) const;

private:
  Kernel() = default;

  std::shared_ptr<Executable> executable;
  const Signature *signature = nullptr;
  Executable::PackedFunction entryPoint = nullptr;
  Device *device = nullptr;
};

} // namespace mlir::tile::jit

#endif // TILE_JIT_KERNEL_H
