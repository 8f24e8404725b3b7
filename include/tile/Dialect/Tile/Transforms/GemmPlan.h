//===- GemmPlan.h - How a tile.gemm maps onto instructions ------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A GemmPlan says which instruction computes a tile.gemm on a target, how
// the block's warps divide its C tile, how often each warp repeats the
// instruction, and the fragment layouts that follow. Layout inference writes
// these layouts; the gemm lowering recomputes the plan and relies on them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_GEMMPLAN_H
#define TILE_DIALECT_TILE_TRANSFORMS_GEMMPLAN_H

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Layout/Layout.h"
#include "tile/Target/Target.h"

namespace mlir::tile {

enum class GemmInstruction { Wgmma, MmaSync, Mfma, Fma };

struct GemmPlan {
  GemmInstruction instruction = GemmInstruction::Fma;
  /// Shape of one instruction (1x1x1 for FMA).
  int64_t atomM = 1, atomN = 1, atomK = 1;
  /// Threads that issue one instruction together: a warp (32, 64 on CDNA),
  /// a warpgroup (128, wgmma), or 1 (FMA: warps are threads).
  int64_t warpSize = 1;
  /// Warps (warpgroups) along M and N of C, and instruction repeats per
  /// warp.
  int64_t warpsM = 1, warpsN = 1;
  int64_t repeatsM = 1, repeatsN = 1, repeatsK = 1;
  /// Fragment layouts of A, B (as stored: K x M if transpose_a, ...) and C.
  Layout a, b, c;

  /// wgmma: A is read from shared memory (else from registers), and which
  /// operands are stored MN-major (A as K x M, B as K x N) rather than
  /// K-major.
  bool aFromShared = false;
  bool aMNMajor = false, bMNMajor = false;

  /// e.g. "mma.sync m16n8k16, 2x2 warps, 4x8x2 repeats per warp".
  std::string describe() const;
};

/// Plans `op` for `target` in a kernel of `threads` threads. Fails with a
/// diagnostic on `op` when the tile shape does not fit the instruction.
FailureOr<GemmPlan> planGemm(GemmOp op, const TargetInfo &target,
                             int64_t threads);

/// The shared-memory layout a gemm operand should have: a swizzle that
/// ldmatrix reads without bank conflicts and wgmma's descriptors describe
/// (32, 64 or 128-byte panels), chosen from the bytes of the buffer's
/// innermost dim; null when none applies.
LayoutAttrInterface getPreferredOperandLayout(MemRefType type,
                                              const TargetInfo &target);

/// The shared-memory layout of an MFMA operand stored K x M or K x N (B,
/// or A transposed) that `plan` reads in pairs of K steps (both operands
/// in shared memory, an even number of steps): the preferred 128-byte
/// swizzle with the K rows of each pair reordered so that the four lane
/// groups, which read K rows 2e apart element by element (e elements per
/// lane and step), read rows whose swizzles differ in bits 1-2, that is
/// distinct 16-byte chunks of the 32 banks. Otherwise the preferred
/// layout.
LayoutAttrInterface getMfmaKOuterOperandLayout(MemRefType type,
                                               const GemmPlan &plan,
                                               const TargetInfo &target);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_GEMMPLAN_H
