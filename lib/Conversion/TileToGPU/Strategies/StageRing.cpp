//===- StageRing.cpp - The mbarriers of a TMA pipeline's stages -----------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A TMA pipeline's stages form a ring: the filling thread fills stage i,
// completing the phase of its `full` mbarrier; the readers wait on that
// phase, read the stage and arrive on its `empty` mbarrier, whose phase
// the filling thread waits on before it fills the stage again. Each time
// the ring wraps round, the phases flip. StageRing builds these steps;
// the loops that take them are TmaPipeline.cpp's and
// WarpSpecialization.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Tma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

StageRing StageRing::create(const KernelContext &k, OpBuilder &b,
                            Location loc, int64_t stages, Value emptyCount,
                            bool wholeBlock, bool cluster) {
  MLIRContext *context = b.getContext();
  auto barrierType = nvgpu::MBarrierGroupType::get(
      context,
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup),
      2 * stages);
  Value barriers = nvgpu::MBarrierCreateOp::create(b, loc, barrierType);
  auto synchronize = [&] {
    if (wholeBlock)
      gpu::BarrierOp::create(b, loc);
    else
      k.barrier(b, loc);
  };
  synchronize();
  Value isLeader = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, k.threadId, k.constant(b, loc, 0));
  scf::IfOp::create(b, loc, isLeader, [&](OpBuilder &then, Location l) {
    for (int64_t i = 0; i < 2 * stages; ++i) {
      Value count = i < stages ? k.constant(then, l, 1) : emptyCount;
      nvgpu::MBarrierInitOp::create(then, l, barriers, count,
                                    k.constant(then, l, i),
                                    /*predicate=*/Value());
    }
    NVVM::FenceProxyOp::create(
        then, l, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
    if (cluster)
      NVVM::FenceMbarrierInitOp::create(then, l);
    scf::YieldOp::create(then, l);
  });
  if (cluster) {
    NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
  } else {
    synchronize();
  }
  return StageRing(k, barriers, stages);
}

RingPosition StageRing::advance(OpBuilder &b, Location loc,
                                RingPosition position) const {
  Value plusOne =
      arith::AddIOp::create(b, loc, position.stage, k->constant(b, loc, 1));
  Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      plusOne, k->constant(b, loc, stages));
  return {arith::SelectOp::create(b, loc, wraps, k->constant(b, loc, 0),
                                  plusOne),
          arith::XOrIOp::create(b, loc, position.phase, wraps)};
}

void StageRing::waitFull(OpBuilder &b, Location loc,
                         RingPosition position) const {
  nvgpu::MBarrierTryWaitParityOp::create(
      b, loc, barriers, position.phase, k->constant(b, loc, kMBarrierWaitTicks),
      position.stage);
  NVVM::SyncWarpOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));
}

void StageRing::waitEmpty(OpBuilder &b, Location loc, Value stage,
                          Value parity) const {
  Value ticks = k->constant(b, loc, kMBarrierWaitTicks);
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, parity, ticks,
                                         getEmpty(b, loc, stage));
}

void StageRing::expectBytes(OpBuilder &b, Location loc, Value stage,
                            int64_t bytes) const {
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, barriers,
                                          k->constant(b, loc, bytes), stage,
                                          /*predicate=*/Value());
}

Value StageRing::getEmpty(OpBuilder &b, Location loc, Value stage) const {
  return arith::AddIOp::create(b, loc, stage, k->constant(b, loc, stages));
}

void StageRing::arrive(OpBuilder &b, Location loc, Value index) const {
  nvgpu::MBarrierArriveOp::create(
      b, loc, nvgpu::MBarrierTokenType::get(b.getContext()), barriers, index);
}

Value mlir::tile::gpu_lowering::getMBarrierPointer(OpBuilder &b, Location loc,
                                                   Value barriers,
                                                   Value index) {
  Value address = nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(),
                                               barriers, index);
  return LLVM::IntToPtrOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(
          b.getContext(),
          static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared)),
      address);
}

Value StageRing::getPointer(OpBuilder &b, Location loc, Value index) const {
  return getMBarrierPointer(b, loc, barriers, index);
}

void StageRing::arriveOnPeer(OpBuilder &b, Location loc, Value index,
                             Value peerRank) const {
  MLIRContext *context = b.getContext();
  Value local = getPointer(b, loc, index);
  Value remote = NVVM::MapaOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(
          context,
          static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster)),
      local, peerRank);
  // Release at CTA scope, as CUTLASS's cluster barriers do: the stage's
  // readers (wgmma) are done, and a cluster-scope release would fence every
  // arrival (a MEMBAR stall per warp and stage).
  NVVM::MBarrierArriveOp::create(
      b, loc, /*res=*/Type(), remote, /*count=*/Value(),
      NVVM::MemScopeKindAttr::get(context, NVVM::MemScopeKind::CTA));
}

void StageRing::invalidate(OpBuilder &b, Location loc) const {
  for (int64_t i = 0; i < 2 * stages; ++i)
    NVVM::MBarrierInvalOp::create(
        b, loc, getPointer(b, loc, k->constant(b, loc, i)));
}
