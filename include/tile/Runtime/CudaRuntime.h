//===- CudaRuntime.h - tile's CUDA runtime ----------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The GPU runtime (Runtime.h) over the CUDA driver API; libcuda.so.1 is
// opened at run time. Built when cuda.h is found (TileCudaRuntime).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_CUDARUNTIME_H
#define TILE_RUNTIME_CUDARUNTIME_H

#include "tile/Runtime/Runtime.h"

namespace mlir::tile::runtime {

/// The process's CUDA runtime (device 0 unless the lowered code calls
/// mgpuSetDefaultDevice first).
Runtime &getCudaRuntime();

} // namespace mlir::tile::runtime

#endif // TILE_RUNTIME_CUDARUNTIME_H
