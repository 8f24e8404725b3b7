//===- TmaPipeline.cpp - The consumers' loop of a TMA pipeline ------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The TMA version of a pipelined loop (sm_90): every thread waits on the
// phase of the stage its iteration reads (StageRing), reads it and gives
// it back; thread 0 fills the stage s - 1 iterations ahead (TmaCopies.cpp)
// once its readers gave it back. No block-wide barrier runs in the loop.
// On by default on sm_90a; a target without `tma` among its features gets
// the cp.async pipeline only. The pieces and their files are listed in
// Tma.h.
//
// A wgmma gemm whose accumulator nothing else touches stays in flight
// across iterations: the stage it read goes back one iteration late.
// Warp-specialized (the plan's `warpSpecialized` loop), a producer
// warpgroup fills the stages (WarpSpecialization.cpp) and each consumer
// warp gives a stage back once. With a deferred gemm (attention's P x V,
// PipelinePlan::deferredGemm), the consumers issue it one iteration late,
// after the next iteration's first gemm, so that the softmax in between
// overlaps it (the copy into its A, P = S, moves to the start of that next
// iteration); the first iteration is peeled. In a persistent kernel
// (KernelContext::tileLoop) both sides carry their place in the ring from
// one tile's loop to the next.
//
//===----------------------------------------------------------------------===//

#include "GemmStrategies.h"
#include "PipelineStrategies.h"

#include "../PrefetchLoads.h"
#include "Tma.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

bool mlir::tile::gpu_lowering::canStayInFlight(const KernelPlan &plan,
                                               PipelinedOp loop, GemmOp gemm) {
  // A wgmma reading A and B from shared memory into an f32 accumulator
  // that no other op of the loop touches (so only the next gemm, which the
  // hardware orders after it, and code after the loop read it). An f16
  // accumulator is packed and unpacked around each wgmma, which reads it.
  const GemmPlan &gemmPlan = plan.gemms.find(gemm)->second;
  if (gemmPlan.instruction != GemmInstruction::Wgmma || !gemmPlan.aFromShared ||
      gemm.getClearAccum() ||
      !cast<FragmentType>(gemm.getC().getType()).getElementType().isF32())
    return false;
  return llvm::all_of(gemm.getC().getUsers(), [&](Operation *user) {
    return user == gemm || !loop->isAncestor(user);
  });
}

namespace {

/// The loop's values carried from one iteration to the next: the place in
/// the ring iteration j reads (the stage and its `full` phase) and the
/// place it fills for iteration j + s - 1 (the k-th fill of a stage waits
/// for the readers' k-th arrival, parity k - 1). With the deferred gemm
/// waited for at the top, also the stage that gemm read and whether there
/// is one (not in the first iteration).
enum Carried : unsigned {
  ReadStage,
  ReadPhase,
  WriteStage,
  WritePhase,
  LastGemmStage,
  HasLastGemm,
};

/// Builds the TMA version of one pipelined loop. The steps, in order: the
/// ring (or the producer warpgroup's loop), the start positions, the peeled
/// first iteration (deferred gemm), the scf.for and the end of each of its
/// iterations, the body moved in and lowered at its stage, the code after
/// the loop.
class TmaPipelineBuilder {
public:
  TmaPipelineBuilder(KernelContext &k, PatternRewriter &rewriter,
                     PipelinedOp loop, const PipelinePlan &plan)
      : k(k), rewriter(rewriter), loop(loop), plan(plan), loc(loop.getLoc()),
        specialized(k.plan.warpSpecialized == loop.getOperation()),
        deferred(specialized && plan.deferredGemm),
        waitAtTop(deferred && plan.deferredConvert),
        async(!plan.asyncGemms.empty()), buffers(plan.getStagedBuffers()) {}

  LogicalResult build(OpBuilder &b);

private:
  /// Without warp specialization: the loop's own ring, and its prologue
  /// filling iterations 0 .. s-2 into stages 0 .. s-2.
  void buildRingAndPrologue(OpBuilder &b);
  /// The ring positions the loop starts from: the start of the ring, or,
  /// persistent and warp-specialized, where the last tile left it.
  SmallVector<Value> getStart(OpBuilder &b);
  /// Deferred gemm: iteration 0, which has no deferred gemm of an earlier
  /// iteration to issue, before the loop (without its own deferred gemm);
  /// `carried` moves on to iteration 1. Returns the peeled block.
  Block *peelFirstIteration(OpBuilder &b, SmallVectorImpl<Value> &carried);
  /// The scf.for from `lower`, with `carried` and the ring's advance at the
  /// end of each iteration; `b` is left where the iteration's code goes.
  void createLoop(OpBuilder &b, Value lower, ValueRange carried);
  /// Thread 0 fills the stage this iteration gives back with the tiles of
  /// iteration j + s - 1 (the producer warpgroup's job when specialized).
  void refill(OpBuilder &b);
  /// This thread is done with `stage`: it arrives on its `empty` mbarrier
  /// (once per warp, on both blocks of a multicasting pair, when
  /// specialized).
  void release(OpBuilder &b, Value stage);
  /// Waits for the deferred gemm in flight and gives back its stage
  /// `stage` (where `valid` holds, unless it is null).
  void releaseLastGemm(OpBuilder &b, Value stage, Value valid);
  /// The last iteration's deferred gemm, after the loop. Returns its guard.
  scf::IfOp buildLastDeferredGemm(OpBuilder &b);
  /// Moves the deferred gemm of iteration j - 1 behind the first gemm of
  /// iteration j and lowers it, and the peeled iteration.
  LogicalResult lowerDeferredGemm(OpBuilder &b, Block *peeled,
                                  Value peelStage, Operation *bodyEnd);
  /// Lowers `block` reading the producers' buffers at `stage`, with
  /// `inFlight` gemms issued but not waited for.
  LogicalResult lowerAt(OpBuilder &b, Block &block, Value stage,
                        ArrayRef<Operation *> inFlight);
  /// After the loop: the last gemms waited for, the ring's place stored for
  /// the next tile, a barrier, and the mbarriers invalidated where the loop
  /// may run again.
  void finish(OpBuilder &b, Operation *last, ArrayRef<Value> start);

  Value index(OpBuilder &b, int64_t v) { return k.constant(b, loc, v); }
  Value i1(OpBuilder &b, bool v) {
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), v);
  }
  Value carried(Carried which) { return forOp.getRegionIterArg(which); }
  Value result(Carried which) { return forOp.getResult(which); }

  KernelContext &k;
  PatternRewriter &rewriter;
  PipelinedOp loop;
  const PipelinePlan &plan;
  Location loc;
  /// Warp-specialized: a producer warpgroup fills the stages.
  bool specialized;
  /// Deferred gemm: issued one iteration late (specialized only).
  bool deferred;
  /// Deferred gemm waited for at the start of the iteration after next.
  bool waitAtTop;
  /// Gemms stay in flight across iterations.
  bool async;
  /// The staged buffers: the producers' (their copies are erased once the
  /// body moves) and the rotated ones.
  SmallVector<Value> buffers;
  StageRing ring;
  std::optional<TmaStageFiller> filler;
  /// Thread 0 (the filling thread, not specialized).
  Value isLeader;
  /// Persistent and specialized: the ring's place between tiles.
  Value state;
  /// Whether the loop runs at all (the peel's and the ring state's guard).
  Value ran;
  scf::ForOp forOp;
};

void TmaPipelineBuilder::buildRingAndPrologue(OpBuilder &b) {
  isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                   k.threadId, index(b, 0));
  ring = StageRing::create(k, b, loc, plan.stages, index(b, k.threads),
                           /*wholeBlock=*/false, /*cluster=*/false);
  filler.emplace(k, loop, plan, ring);
  // First fills: no reader to wait for.
  for (int64_t i = 0; i + 1 < plan.stages; ++i) {
    Value iteration = arith::AddIOp::create(
        b, loc, loop.getLower(),
        arith::MulIOp::create(b, loc, loop.getStep(), index(b, i)));
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        iteration, loop.getUpper());
    Value stage = index(b, i);
    filler->fill(b, iteration, stage, Value(),
                 arith::AndIOp::create(b, loc, isLeader, valid));
  }
}

SmallVector<Value> TmaPipelineBuilder::getStart(OpBuilder &b) {
  SmallVector<Value> start = {index(b, 0), i1(b, false),
                              index(b, plan.stages - 1), i1(b, false)};
  if (!state)
    return start;
  // Stored as indices (memref<4xindex>); phases are i1.
  for (int64_t i = 0; i < 4; ++i) {
    Value v = memref::LoadOp::create(b, loc, state, ValueRange{index(b, i)});
    start[i] = i % 2 ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                             v, index(b, 0))
                     : v;
  }
  return start;
}

Block *TmaPipelineBuilder::peelFirstIteration(OpBuilder &b,
                                              SmallVectorImpl<Value> &carried) {
  auto peel = scf::IfOp::create(b, loc, ran, /*withElseRegion=*/false);
  OpBuilder pb(peel.thenBlock()->getTerminator());
  RingPosition read{carried[ReadStage], carried[ReadPhase]};
  RingPosition write{carried[WriteStage], carried[WritePhase]};
  ring.waitFull(pb, loc, read);
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), loop.getLower());
  for (Operation &op : loop.getBody().front()) {
    auto copy = dyn_cast<CopyOp>(op);
    if (&op == plan.deferredGemm || &op == plan.deferredConvert ||
        llvm::is_contained(plan.deferredWith, &op) ||
        (copy && llvm::is_contained(plan.producers, copy)))
      continue;
    pb.clone(op, mapping);
  }
  k.recordClones(mapping);
  RingPosition nextRead = ring.advance(b, loc, read);
  RingPosition nextWrite = ring.advance(b, loc, write);
  carried.assign(
      {nextRead.stage, nextRead.phase, nextWrite.stage, nextWrite.phase});
  return peel.thenBlock();
}

void TmaPipelineBuilder::createLoop(OpBuilder &b, Value lower,
                                    ValueRange init) {
  forOp = scf::ForOp::create(
      b, loc, lower, loop.getUpper(), loop.getStep(), init,
      [&](OpBuilder &nb, Location l, Value, ValueRange carried) {
        RingPosition read =
            ring.advance(nb, l, {carried[ReadStage], carried[ReadPhase]});
        RingPosition write =
            ring.advance(nb, l, {carried[WriteStage], carried[WritePhase]});
        SmallVector<Value> next{read.stage, read.phase, write.stage,
                                write.phase};
        if (waitAtTop)
          next.append({carried[WriteStage], i1(nb, true)});
        scf::YieldOp::create(nb, l, next);
      });
  markForPrefetch(forOp);
  // The yield's operands are computed at the end of the body; the
  // iteration's code goes before them.
  Operation *end = forOp.getBody()->getTerminator();
  Operation *firstOfYield = end->getOperand(0).getDefiningOp();
  for (Value operand : end->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && def->getBlock() == forOp.getBody() &&
        def->isBeforeInBlock(firstOfYield))
      firstOfYield = def;
  b.setInsertionPoint(firstOfYield);
}

void TmaPipelineBuilder::refill(OpBuilder &b) {
  if (specialized)
    return;
  Value ahead = arith::AddIOp::create(
      b, loc, forOp.getInductionVar(),
      arith::MulIOp::create(b, loc, loop.getStep(),
                            index(b, plan.stages - 1)));
  Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                      ahead, loop.getUpper());
  Value emptyParity =
      arith::XOrIOp::create(b, loc, carried(WritePhase), i1(b, true));
  filler->fill(b, ahead, carried(WriteStage), emptyParity,
               arith::AndIOp::create(b, loc, isLeader, valid));
}

void TmaPipelineBuilder::release(OpBuilder &b, Value stage) {
  Value empty = ring.getEmpty(b, loc, stage);
  if (!specialized)
    return ring.arrive(b, loc, empty);
  // One arrival per warp (its lanes are done with the stage), on this
  // block's barrier and, multicasting, on the other block's.
  NVVM::SyncWarpOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));
  Value lane = arith::RemUIOp::create(b, loc, k.threadId,
                                      index(b, k.target.warpSize));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                      index(b, 0));
  buildGuarded(b, loc, first, [&](OpBuilder &then) {
    ring.arrive(then, loc, empty);
    if (k.hopper.multicast)
      buildGuarded(then, loc, k.hopper.multicast, [&](OpBuilder &remote) {
        ring.arriveOnPeer(remote, loc, empty, k.hopper.peerRank);
      });
  });
}

void TmaPipelineBuilder::releaseLastGemm(OpBuilder &b, Value stage,
                                         Value valid) {
  waitForWgmma(b, loc, 0,
               *k.getFragment(cast<GemmOp>(plan.deferredGemm).getC()));
  buildGuarded(b, loc, valid, [&](OpBuilder &then) { release(then, stage); });
}

scf::IfOp TmaPipelineBuilder::buildLastDeferredGemm(OpBuilder &b) {
  OpBuilder::InsertionGuard afterLoop(b);
  b.setInsertionPointAfter(forOp);
  if (waitAtTop)
    releaseLastGemm(b, result(LastGemmStage), result(HasLastGemm));
  auto lastIf = scf::IfOp::create(b, loc, ran, /*withElseRegion=*/false);
  b.setInsertionPoint(lastIf.thenBlock()->getTerminator());
  IRMapping mapping;
  if (plan.deferredConvert)
    b.clone(*plan.deferredConvert, mapping);
  for (Operation *op : plan.deferredWith)
    b.clone(*op, mapping);
  b.clone(*plan.deferredGemm, mapping);
  k.recordClones(mapping);
  release(b, result(WriteStage));
  return lastIf;
}

LogicalResult TmaPipelineBuilder::lowerDeferredGemm(OpBuilder &b,
                                                    Block *peeled,
                                                    Value peelStage,
                                                    Operation *bodyEnd) {
  // In the loop: G2 of iteration j - 1 (reading the stage j - 1 read)
  // right after G1; wait_group 1 then waits for G1 alone, and G2 is
  // waited for - and stage j - 1 given back - only before the first op
  // that touches its operands: the ops in between run while the tensor
  // cores do G2.
  auto first = cast<GemmOp>(plan.deferredAfter);
  auto last = cast<GemmOp>(plan.deferredGemm);
  b.setInsertionPointAfter(first);
  auto issue = scf::ExecuteRegionOp::create(b, loc, TypeRange{});
  Block *issueBlock = b.createBlock(&issue.getRegion());
  scf::YieldOp::create(b, loc);
  for (Operation *op : plan.deferredWith)
    op->moveBefore(issueBlock->getTerminator());
  last->moveBefore(issueBlock->getTerminator());
  // Before the wait for the stage: the conversion overlaps it.
  if (plan.deferredConvert)
    plan.deferredConvert->moveBefore(&forOp.getBody()->front());
  b.setInsertionPointAfter(issue);
  waitForWgmma(b, loc, 1, *k.getFragment(first.getC()));
  // With the conversion moved, G2 of iteration j - 1 is waited for at the
  // start of iteration j + 1, before the conversion rewrites its A: the
  // whole softmax in between overlaps it (ptxas moves a wait at the end of
  // the body up into the softmax, but not across the back edge).
  if (waitAtTop) {
    b.setInsertionPoint(plan.deferredConvert);
    releaseLastGemm(b, carried(LastGemmStage), carried(HasLastGemm));
  } else {
    b.setInsertionPoint(plan.deferredWait ? plan.deferredWait : bodyEnd);
    releaseLastGemm(b, carried(WriteStage), /*valid=*/Value());
  }
  if (failed(lowerAt(b, *issueBlock, carried(WriteStage), {last})) ||
      failed(lowerAt(b, *peeled, peelStage, {})))
    return failure();
  return success();
}

LogicalResult TmaPipelineBuilder::lowerAt(OpBuilder &b, Block &block,
                                          Value stage,
                                          ArrayRef<Operation *> inFlight) {
  OpBuilder::InsertionGuard atStart(b);
  Operation *def = stage.getDefiningOp();
  if (def && def->getBlock() == &block)
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(&block);
  LoweringScope scope = k.getScope();
  for (Value buffer : buffers)
    scope.staged[buffer] = k.getStage(b, loc, buffer, stage);
  scope.inFlight.insert(inFlight.begin(), inFlight.end());
  return k.lowerBlock(block, rewriter, scope);
}

void TmaPipelineBuilder::finish(OpBuilder &b, Operation *last,
                                ArrayRef<Value> start) {
  // Every filled stage was consumed (and every gemm finished); the buffers
  // may be reused after a barrier.
  b.setInsertionPointAfter(last);
  if (async)
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  if (state) {
    // The next tile goes on from here. Its stages are filled meanwhile:
    // the last one read goes back too (the loop gives each back one
    // iteration late), and without a deferred gemm nothing else does.
    if (async && !deferred)
      buildGuarded(b, loc, ran, [&](OpBuilder &then) {
        release(then, result(WriteStage));
      });
    for (int64_t i = 0; i < 4; ++i) {
      Value v = arith::SelectOp::create(b, loc, ran, forOp.getResult(i),
                                        start[i]);
      if (i % 2)
        v = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
      memref::StoreOp::create(b, loc, v, state, ValueRange{index(b, i)});
    }
  }
  k.barrier(b, loc);
  if (!specialized && loop->getParentOfType<LoopLikeOpInterface>()) {
    // The loop may run again (in a loop, or a persistent kernel's next
    // tile) and set its mbarriers up anew, after a barrier: they are
    // invalidated first.
    buildGuarded(b, loc, isLeader,
                 [&](OpBuilder &then) { ring.invalidate(then, loc); });
  }
}

LogicalResult TmaPipelineBuilder::build(OpBuilder &b) {
  if (specialized) {
    ring = StageRing(k, k.hopper.producerBarriers, plan.stages);
    if (failed(buildTmaProducer(k, loop, plan)))
      return failure();
  } else {
    buildRingAndPrologue(b);
  }
  state = specialized ? k.hopper.pipelineState : Value();
  SmallVector<Value> init = getStart(b);
  SmallVector<Value> start = init;
  Value lower = loop.getLower();
  if (deferred || state)
    ran = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lower,
                                loop.getUpper());
  Block *peeled = nullptr;
  Value peelStage;
  if (deferred) {
    peelStage = init[ReadStage];
    peeled = peelFirstIteration(b, init);
    lower = arith::AddIOp::create(b, loc, lower, loop.getStep());
  }
  if (waitAtTop)
    init.append({index(b, 0), i1(b, false)});
  OpBuilder::InsertionGuard guard(b);
  createLoop(b, lower, init);
  Operation *bodyEnd = &*b.getInsertionPoint();

  // With gemms left in flight, the stage to refill is given back only at
  // the end of the iteration: fill it there.
  if (!async)
    refill(b);
  ring.waitFull(b, loc, {carried(ReadStage), carried(ReadPhase)});
  // The end of the iteration, built before the body moves in (it reads the
  // producers' offsets): with gemms in flight, the previous iteration's are
  // done once at most this iteration's are, and their stage - the one to
  // refill - goes back.
  if (async) {
    auto wait = NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    Value notFirst = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, forOp.getInductionVar(),
        loop.getLower());
    buildGuarded(b, loc, notFirst,
                 [&](OpBuilder &then) { release(then, carried(WriteStage)); });
    refill(b);
    bodyEnd = wait;
  }
  scf::IfOp lastIf = deferred ? buildLastDeferredGemm(b) : scf::IfOp();

  rewriter.inlineBlockBefore(&loop.getBody().front(), bodyEnd,
                             ValueRange{forOp.getInductionVar()});
  for (CopyOp copy : plan.producers)
    rewriter.eraseOp(copy);
  SmallVector<Operation *> inFlight(plan.asyncGemms);
  if (deferred) {
    if (failed(lowerDeferredGemm(b, peeled, peelStage, bodyEnd)))
      return failure();
    inFlight.push_back(plan.deferredAfter);
  }
  if (failed(lowerAt(b, *forOp.getBody(), carried(ReadStage), inFlight)))
    return failure();
  if (!async && !deferred) {
    b.setInsertionPoint(bodyEnd);
    release(b, carried(ReadStage));
  }
  if (deferred &&
      failed(lowerAt(b, *lastIf.thenBlock(), result(WriteStage), {})))
    return failure();
  finish(b, deferred ? lastIf.getOperation() : forOp.getOperation(), start);
  return success();
}

} // namespace

LogicalResult mlir::tile::gpu_lowering::buildTmaPipeline(
    KernelContext &k, PatternRewriter &rewriter, PipelinedOp loop,
    const PipelinePlan &plan, OpBuilder &b) {
  return TmaPipelineBuilder(k, rewriter, loop, plan).build(b);
}
