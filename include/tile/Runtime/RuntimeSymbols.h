//===- RuntimeSymbols.h - Runtime functions lowered code calls --*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The names of tile's own functions that lowered host code calls, spelled
// once for the lowering that emits the call and the runtime that defines the
// function (the mgpu* functions gpu-to-llvm calls are named by MLIR).
// Dependency-free, like the runtimes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_RUNTIMESYMBOLS_H
#define TILE_RUNTIME_RUNTIMESYMBOLS_H

namespace mlir::tile::runtime {

/// `int32_t ()`: the multiprocessors (NVIDIA SMs, AMD CUs) of the current
/// device, at least 1, as many blocks as a persistent kernel launches.
/// Called by convert-tile-to-gpu's code, defined by the GPU runtimes
/// (lib/Runtime/MgpuFunctions.h).
inline constexpr char kGpuMultiprocessorCountSymbol[] =
    "tileGpuMultiprocessorCount";

/// `int32_t ()`: the threads a CPU kernel runs its blocks on
/// (jit::getCpuThreadCount). Called by the code convert-tile-to-cpu lowers
/// with OpenMP, defined by the JIT (lib/JIT/HostMachine.cpp).
inline constexpr char kCpuThreadCountSymbol[] = "tileCpuThreadCount";

} // namespace mlir::tile::runtime

#endif // TILE_RUNTIME_RUNTIMESYMBOLS_H
