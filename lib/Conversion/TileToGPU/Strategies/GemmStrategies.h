//===- GemmStrategies.h - The code of each gemm instruction -----*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tile-to-gpu. A tile.gemm's GemmPlan (shared with
// layout inference) names the instruction that computes it; each
// instruction family emits its per-thread code in a file of its own here:
// FMA (FmaGemm.cpp), mma.sync (MmaSyncGemm.cpp), wgmma (WgmmaGemm.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_STRATEGIES_GEMMSTRATEGIES_H
#define TILE_LIB_CONVERSION_TILETOGPU_STRATEGIES_GEMMSTRATEGIES_H

#include "../KernelContext.h"

namespace mlir::tile::gpu_lowering {

/// One gemm operand (A or B) and where it lives.
struct GemmOperand {
  Value value;
  const FragmentStorage *fragment = nullptr;
  const SharedStorage *shared = nullptr;
  bool transposed = false;
  Type elementType;
};

/// Reads element (row, col) of op(X) from shared memory.
Value readSharedOperand(const KernelContext &k, OpBuilder &b, Location loc,
                        const GemmOperand &x, Value row, Value col);

/// Emits `op` (C += op(A) x op(B), accumulator already cleared if asked)
/// with the instruction its plan names, at `b`'s insertion point.
LogicalResult emitFmaGemm(const KernelContext &k, OpBuilder &b, GemmOp op,
                          const GemmPlan &plan, const GemmOperand &a,
                          const GemmOperand &bOperand,
                          const FragmentStorage &c);
LogicalResult emitWgmmaGemm(const KernelContext &k, OpBuilder &b, GemmOp op,
                            const GemmPlan &plan, const GemmOperand &a,
                            const GemmOperand &bOperand,
                            const FragmentStorage &c);
/// wgmma.wait_group `pending`, then the f32 accumulators of fragment `c`
/// passed through an empty asm in place, which keeps every read of them
/// after the wait.
void waitForWgmma(OpBuilder &b, Location loc, int64_t pending,
                  const FragmentStorage &c);
LogicalResult emitMfmaGemm(const KernelContext &k, OpBuilder &b, GemmOp op,
                           const GemmPlan &plan, const GemmOperand &a,
                           const GemmOperand &bOperand,
                           const FragmentStorage &c);
LogicalResult emitMmaSyncGemm(const KernelContext &k, OpBuilder &b, GemmOp op,
                              const GemmPlan &plan, const GemmOperand &a,
                              const GemmOperand &bOperand,
                              const FragmentStorage &c);

} // namespace mlir::tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_STRATEGIES_GEMMSTRATEGIES_H
