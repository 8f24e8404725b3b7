//===- Registration.h - Dialects a tile program may use ---------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_REGISTRATION_H
#define TILE_JIT_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::tile::jit {

/// The tile dialect and the upstream dialects tile programs and their
/// lowerings use (func, arith, math, memref, scf, cf, vector, gpu, nvgpu,
/// nvvm, llvm, ...), with their interface extensions.
void registerDialects(DialectRegistry &registry);

} // namespace mlir::tile::jit

#endif // TILE_JIT_REGISTRATION_H
