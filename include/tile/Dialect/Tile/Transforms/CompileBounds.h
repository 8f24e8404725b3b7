//===- CompileBounds.h - What a kernel may cost to compile ------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The GPU lowering gives each thread its fragment slots as registers and
// unrolls per-slot work (tile.parallel bodies, fragment copies, gemm
// instruction repeats) into straight-line code. These checks refuse, with a
// diagnostic naming the op and the count, a kernel that would need more
// registers per thread than the chip has or whose unrolled code would grow
// past a fixed bound, so that every kernel compiles (or is refused) in
// seconds. Layout inference runs them on what it decided; the GPU lowering
// runs them on what it is given.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_COMPILEBOUNDS_H
#define TILE_DIALECT_TILE_TRANSFORMS_COMPILEBOUNDS_H

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Target/Target.h"

namespace mlir::tile {

/// Most ops one tile op may unroll into per thread (a tile.parallel body
/// counts its ops once per slot; a gemm counts one per instruction).
inline constexpr int64_t kMaxUnrolledOps = 1 << 14;
/// Most rounds of 16-byte cp.async copies per thread that the producers of
/// one software pipeline may unroll, over all its stages (each round is
/// about 32 ops); a copy past it runs unpipelined.
inline constexpr int64_t kMaxUnrolledCopyRounds = kMaxUnrolledOps / 32;

/// Checks every fragment, tile.parallel and tile.gemm of `kernel` that has
/// its layouts against the registers per thread of `target` (none on the
/// CPU) and kMaxUnrolledOps; emits an error on the first op past a bound and
/// fails.
LogicalResult checkCompileBounds(KernelOp kernel, const TargetInfo &target);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_COMPILEBOUNDS_H
