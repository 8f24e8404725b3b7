//===- RocmRuntime.h - tile's ROCm runtime ----------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The GPU runtime (Runtime.h) over HIP's module API; libamdhip64 is opened
// at run time. Built when HIP's headers are found (Debian's
// libamdhip64-dev; TileRocmRuntime).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_ROCMRUNTIME_H
#define TILE_RUNTIME_ROCMRUNTIME_H

#include "tile/Runtime/Runtime.h"

namespace mlir::tile::runtime {

/// The process's ROCm runtime (device 0 unless the lowered code calls
/// mgpuSetDefaultDevice first).
Runtime &getRocmRuntime();

} // namespace mlir::tile::runtime

#endif // TILE_RUNTIME_ROCMRUNTIME_H
