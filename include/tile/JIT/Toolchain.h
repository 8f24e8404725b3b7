//===- Toolchain.h - What compiling for a target involves -------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_TOOLCHAIN_H
#define TILE_JIT_TOOLCHAIN_H

#include "tile/JIT/Compiler.h"

#include "mlir/Pass/PassManager.h"

namespace mlir::tile::jit {

/// Adds the pipeline that takes a tile module to LLVM dialect host code (with
/// embedded device binaries, or with `deviceText` the device code as text:
/// PTX, AMDGPU assembly) for `options`' target.
LogicalResult buildPipeline(OpPassManager &pm, const CompileOptions &options,
                            bool deviceText = false);

/// The device code of `module` as text for `options`' target (PTX on CUDA,
/// AMDGPU assembly on ROCm; empty on the CPU), from the pipeline the
/// Compiler runs; the module is left as it was. Fails after reporting
/// through the module's context.
FailureOr<std::string> getDeviceSource(ModuleOp module,
                                       const CompileOptions &options);

/// Whether `options` compile CPU kernels with OpenMP (their blocks on
/// threads): asked for, and libomp loads in this process.
bool usesOpenMP(const CompileOptions &options);

/// The bytes of every device binary embedded in a lowered module
/// (gpu.binary objects, in order); empty on the CPU.
std::string extractDeviceBinary(ModuleOp module);

/// `ptxas --version`'s last line, or "none" when ptxas is not found; looked
/// up once per process (the CUDA toolkit's, see getCudaToolkitPath, then
/// the one on $PATH).
const std::string &getPtxasVersion();

/// What compiling depends on, one line each: tile's version and build id,
/// LLVM's version, the host CPU (`cpu` as CompileOptions::cpu takes it),
/// and the CUDA toolkit with its ptxas and libdevice.
void printToolchain(llvm::raw_ostream &os, StringRef cpu = "");

} // namespace mlir::tile::jit

#endif // TILE_JIT_TOOLCHAIN_H
