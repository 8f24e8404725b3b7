//===- GpuLowering.h - How each tile op is planned and lowered --*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tile-to-gpu. Each tile op a kernel may hold is
// planned and lowered through GpuLoweringOpInterface, whose models the op
// families attach in files of their own (Copies.cpp, Gemm.cpp,
// Reductions.cpp, Pipelining.cpp, Print.cpp), as the layout-inference rules are
// attached to the same ops. KernelPlan and KernelContext drive them and
// know no op by name.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_GPULOWERING_H
#define TILE_LIB_CONVERSION_TILETOGPU_GPULOWERING_H

#include "KernelPlan.h"

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile::gpu_lowering {

class KernelContext;

/// Shared scratch an op needs: `bytes` (0: none), live at the op, or
/// through the whole kernel body with `wholeBody` (scratch still read after
/// the op, by a TMA store left in flight).
struct ScratchRequest {
  int64_t bytes = 0;
  bool wholeBody = false;
};

} // namespace mlir::tile::gpu_lowering

#include "GpuLoweringInterface.h.inc"

namespace mlir::tile::gpu_lowering {

/// A model whose `lower` is `lowerFn`, which plans nothing and needs no
/// scratch.
template <typename Op, LogicalResult (*lowerFn)(const KernelContext &,
                                                PatternRewriter &, Op)>
struct LowerWith
    : public GpuLoweringOpInterface::ExternalModel<LowerWith<Op, lowerFn>,
                                                   Op> {
  LogicalResult lower(Operation *op, KernelContext &context,
                      PatternRewriter &rewriter) const {
    return lowerFn(context, rewriter, cast<Op>(op));
  }
};

/// A model whose `lower` is `lowerFn` and whose scratch is `scratchFn`'s
/// bytes, live at the op.
template <typename Op, int64_t (*scratchFn)(const KernelPlan &, Op),
          LogicalResult (*lowerFn)(const KernelContext &, PatternRewriter &,
                                   Op)>
struct LowerWithScratch
    : public GpuLoweringOpInterface::ExternalModel<
          LowerWithScratch<Op, scratchFn, lowerFn>, Op> {
  ScratchRequest getScratch(Operation *op, const KernelPlan &plan,
                            bool staging) const {
    return {scratchFn(plan, cast<Op>(op))};
  }
  LogicalResult lower(Operation *op, KernelContext &context,
                      PatternRewriter &rewriter) const {
    return lowerFn(context, rewriter, cast<Op>(op));
  }
};

/// The families' models (registered by registerGpuLoweringModels,
/// TileToGPU.h): tile.copy, tile.fill, tile.atomic_add and
/// tile.parallel (Copies.cpp); tile.gemm (Gemm.cpp); tile.reduce,
/// tile.cumsum and tile.finalize_reducer (Reductions.cpp); tile.pipelined
/// (Pipelining.cpp); tile.print (Print.cpp); tile.thread_id and
/// tile.barrier (Threads.cpp).
void attachCopyLowerings(MLIRContext *context);
void attachIm2ColLowering(MLIRContext *context);
void attachGemmLowering(MLIRContext *context);
void attachReductionLowerings(MLIRContext *context);
void attachPipelinedLowering(MLIRContext *context);
void attachPrintLowering(MLIRContext *context);
void attachThreadLowerings(MLIRContext *context);

/// Lowers a tile.print (Print.cpp); also a print in a tile.parallel body,
/// once its iteration is on a thread (Parallel.cpp).
LogicalResult lowerPrint(const KernelContext &k, PatternRewriter &rewriter,
                         PrintOp op);

/// A reducer at its allocation (KernelContext.cpp): every copy of every
/// element holds the identity (Reductions.cpp).
void startReducer(const KernelContext &k, OpBuilder &b, FragmentOp op);
/// A tile.fill of a reducer of `kind` (Copies.cpp): the value in copy 0 of
/// each element, the identity in the others, so that it counts once when
/// tile.finalize_reducer combines them (Reductions.cpp).
void fillReducer(const KernelContext &k, OpBuilder &b, FillOp op,
                 ReduceKind kind);

} // namespace mlir::tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_GPULOWERING_H
