//===- GpuCodegenOptions.h - Policies of the GPU lowering -------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// What the GPU lowering chooses to do among what the chip can: a target
// (tile/Target/Target.h) says which instruction families exist; these
// options say which strategies built from them a compile uses. They are
// convert-tile-to-gpu's options (and tile-to-nvvm's, the JIT's
// CompileOptions::codegen, tile-run's flags); each takes effect only where
// the target has what it needs.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_GPUCODEGENOPTIONS_H
#define TILE_CONVERSION_TILETOGPU_GPUCODEGENOPTIONS_H

namespace mlir::tile {

struct GpuCodegenOptions {
  /// A TMA pipeline's copies are issued by a producer warpgroup of its own,
  /// registers moved to the consumer warpgroups with setmaxnreg (needs
  /// `tma` and warpgroups: sm_90a). Off: every thread is a consumer.
  bool warpSpecialize = true;
  /// In a persistent kernel, a fragment stored to a global tensor through
  /// shared memory is written out by TMA bulk tensor stores, issued by one
  /// thread and left in flight (needs `tma`).
  bool tmaStore = true;
  /// Pairs of blocks (clusters of 2 along the grid's x) share the tiles
  /// both load: each loads half and TMA multicasts it to both (takes
  /// effect with warp specialization; measured slower than without on an
  /// H100, docs/performance.md, hence off).
  bool tmaMulticast = false;
  /// A pipelined loop of asynchronous copies (cp.async, TMA) feeding one
  /// gemm, written with fewer than 4 stages, gets up to 4 where the block's
  /// shared memory allows it without fewer blocks per multiprocessor
  /// (NVIDIA; not in a persistent kernel nor a loop scheduled stage by
  /// stage). With it tile-to-nvvm also runs tile-widen-k-steps, which on
  /// wgmma targets merges a GEMM loop's K steps narrower than 128 bytes.
  /// Off: the stages and steps as written.
  bool deepenPipelines = true;
  /// GEMM-shaped kernels of a 2-d grid without a raster of their own launch
  /// their blocks in panels of 8 along x (tile-raster-kernels), so that a
  /// wave's blocks share their tiles in L2 (NVIDIA). Off: the launch order
  /// as written.
  bool rasterBlocks = true;
  /// GEMM kernels whose gemm is 128 (or 64) wide along N merge 2 (or 4)
  /// neighbouring blocks into one of a 256-wide tile where the grid keeps
  /// two waves of blocks (tile-merge-blocks; wgmma targets). Off: the tile
  /// shape as written.
  bool mergeBlocks = true;

  bool operator==(const GpuCodegenOptions &other) const {
    return warpSpecialize == other.warpSpecialize &&
           tmaStore == other.tmaStore && tmaMulticast == other.tmaMulticast &&
           deepenPipelines == other.deepenPipelines &&
           rasterBlocks == other.rasterBlocks &&
           mergeBlocks == other.mergeBlocks;
  }
};

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_GPUCODEGENOPTIONS_H
