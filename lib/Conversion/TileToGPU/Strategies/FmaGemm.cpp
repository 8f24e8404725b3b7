//===- FmaGemm.cpp - tile.gemm with fused multiply-adds -------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Without tensor cores, each thread owns a block of C and accumulates it
// over K with fused multiply-adds, reading A and B from registers or shared
// memory.
//
//===----------------------------------------------------------------------===//

#include "GemmStrategies.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

/// Each thread owns a (repeatsM x repeatsN) block of C and accumulates it
/// over K with fused multiply-adds.
LogicalResult mlir::tile::gpu_lowering::emitFmaGemm(
    const KernelContext &k, OpBuilder &builder, GemmOp op,
    const GemmPlan &plan, const GemmOperand &a, const GemmOperand &b,
    const FragmentStorage &c) {
  
  Location loc = op.getLoc();
  int64_t tm = plan.warpsM, tn = plan.warpsN, rm = plan.repeatsM,
          rn = plan.repeatsN, kk = plan.repeatsK;
  Value guard;
  if (tm * tn < k.threads)
    guard = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                  k.threadId, k.constant(builder, loc, tm * tn));
  auto body = [&](OpBuilder &ib) {
    Value tnValue = k.constant(ib, loc, tn);
    Value row = arith::DivUIOp::create(ib, loc, k.threadId, tnValue);
    Value rowBase =
        arith::MulIOp::create(ib, loc, row, k.constant(ib, loc, rm));
    Value col = arith::RemUIOp::create(ib, loc, k.threadId, tnValue);
    Value colBase =
        arith::MulIOp::create(ib, loc, col, k.constant(ib, loc, rn));
    // One step of K: `kIndex` static when an operand is in registers.
    auto step = [&](OpBuilder &sb, Value kValue, std::optional<int64_t> kIndex) {
      SmallVector<Value> aValues, bValues;
      for (int64_t r = 0; r < rm; ++r)
        aValues.push_back(a.fragment
                              ? a.fragment->load(sb, loc, r * kk + *kIndex)
                              : readSharedOperand(k, sb, loc, a,
                                                  arith::AddIOp::create(
                                                      sb, loc, rowBase,
                                                      k.constant(sb, loc, r)),
                                                  kValue));
      for (int64_t cc = 0; cc < rn; ++cc)
        bValues.push_back(
            b.fragment ? b.fragment->load(sb, loc, *kIndex * rn + cc)
                       : readSharedOperand(
                             k, sb, loc, b, kValue,
                             arith::AddIOp::create(sb, loc, colBase,
                                                   k.constant(sb, loc, cc))));
      for (int64_t r = 0; r < rm; ++r)
        for (int64_t cc = 0; cc < rn; ++cc) {
          int64_t slot = r * rn + cc;
          c.store(sb, loc, slot,
                  buildMulAdd(sb, loc, aValues[r], bValues[cc],
                              c.load(sb, loc, slot)));
        }
    };
    if (a.fragment || b.fragment) {
      for (int64_t kIndex = 0; kIndex < kk; ++kIndex)
        step(ib, k.constant(ib, loc, kIndex), kIndex);
      return;
    }
    Value lower = k.constant(ib, loc, 0);
    Value upper = k.constant(ib, loc, kk);
    Value one = k.constant(ib, loc, 1);
    auto loop = scf::ForOp::create(ib, loc, lower, upper, one);
    OpBuilder lb = OpBuilder::atBlockTerminator(loop.getBody());
    step(lb, loop.getInductionVar(), std::nullopt);
  };
  buildGuarded(builder, loc, guard, body);
  return success();
}

