//===- Passes.td - tile conversion passes ------------------*- tablegen -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToCPU : Pass<"convert-tile-to-cpu"> {
  let summary = "lower tile kernels to loops on the host CPU";
  let description = [{
    Rewrites every `tile.kernel` into an `scf.parallel` over its grid (block
    ids rasterized as the kernel says), with the block's threads implicit:
    `tile.fragment` and `tile.alloc_shared` become per-block
    `memref.alloca`s (layouts do not matter on the CPU; shared memrefs lose
    their memory space), and every tile op becomes an `scf` loop nest with
    the GPU path's boundary semantics: a read outside a global tensor gives
    the pad value (0 unless given), a write outside it is dropped.
    `tile.pipelined` becomes a plain `scf.for`; `tile.atomic_add` uses
    `memref.atomic_rmw`. Leaves no tile op behind.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TILE_CONVERSION_PASSES_TD
