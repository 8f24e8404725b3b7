//===- Pipelining.cpp - tile.pipelined as a cp.async software pipeline ----===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A tile.pipelined loop with `stages(s)`, s >= 2, whose body starts by
// copying global tiles into shared buffers (the producers) runs those copies
// s - 1 iterations ahead of the rest of the body (the consumers), as
// cp.async into s copies of each buffer:
//
//   prologue:   issue(iteration 0 .. s-2); commit a group each
//   iteration j: wait until at most s - 2 groups are in flight (j's landed)
//                barrier (j's data visible; j - 1's reads done)
//                issue(j + s - 1) into stage (j + s - 1) % s; commit
//                consumers read stage j % s
//
// Copies past the last iteration are issued with 0 source bytes, so every
// iteration commits one group and the arithmetic stays uniform. cp.async
// moves 16-byte chunks, which needs the global tensor's rows and the tile's
// origin aligned to 16 bytes; a uniform run-time test picks between the
// pipelined loop and the loop as written, lowered plainly.
//
//===----------------------------------------------------------------------===//

#include "KernelContext.h"

#include "tile/Dialect/Tile/Transforms/CompileBounds.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

/// Bytes one cp.async moves.
static constexpr int64_t kChunkBytes = 16;

namespace {

bool isZero(TypedAttr attr) {
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValue().isZero() && !f.getValue().isNegative();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getValue().isZero();
  return false;
}

/// Elements per 16-byte chunk of `copy`'s source (whole bytes dividing 16).
int64_t getChunk(CopyOp copy) {
  Type element = cast<MemRefType>(copy.getSource().getType()).getElementType();
  return kChunkBytes / (element.getIntOrFloatBitWidth() / 8);
}

/// The ops of `loop`'s body that `copy`'s offsets are computed from, in
/// order; failure when one of them is not a pure op without regions.
FailureOr<SetVector<Operation *>> getOffsetSlice(PipelinedOp loop,
                                                 CopyOp copy) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true;
  options.omitBlockArguments = true;
  options.filter = [&](Operation *op) {
    return loop.getBody().isAncestor(op->getParentRegion());
  };
  for (Value offset : copy.getOffsets())
    if (failed(getBackwardSlice(offset, &slice, options)))
      return failure();
  for (Operation *op : slice)
    if (op->getNumRegions() != 0 || !isPure(op) ||
        op->getBlock() != &loop.getBody().front())
      return failure();
  slice = mlir::topologicalSort(slice);
  return slice;
}

/// Why `copy` cannot be a producer of `loop` (empty when it can be).
std::string whyNotProducer(const KernelPlan &plan, PipelinedOp loop,
                           CopyOp copy) {
  Block &body = loop.getBody().front();
  if (copy->getBlock() != &body)
    return "it is nested in another op";
  if (copy.getGlobal() != copy.getSource())
    return "it does not read global memory";
  auto alloc = copy.getDest().getDefiningOp<AllocSharedOp>();
  if (!alloc)
    return "it does not write a shared buffer";
  if (loop->isAncestor(alloc))
    return "its shared buffer is allocated inside the loop";
  auto globalType = cast<MemRefType>(copy.getSource().getType());
  Type element = globalType.getElementType();
  if (element != alloc.getType().getElementType())
    return "it converts element types";
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0 ||
      kChunkBytes % (element.getIntOrFloatBitWidth() / 8) != 0)
    return "its element type is not a whole number of bytes dividing 16";
  int64_t chunk = getChunk(copy);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(globalType.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return "the global tensor's innermost stride is not 1";
  ArrayRef<int64_t> shape = alloc.getType().getShape();
  if (shape.back() % chunk != 0)
    return "the tile's rows are not a whole number of 16-byte chunks";
  if (int64_t rounds = llvm::divideCeil(alloc.getType().getNumElements() / chunk,
                                       plan.threads) *
                       loop.getNumStagesAttr().getInt();
      rounds > kMaxUnrolledCopyRounds)
    return "it would unroll " + std::to_string(rounds) +
           " rounds of cp.async per thread, more than " +
           std::to_string(kMaxUnrolledCopyRounds);
  if (auto pad = copy.getPadAttr(); pad && !isZero(pad))
    return "it pads with a value other than 0";
  const Layout &layout = plan.shared.find(alloc.getResult())->second.layout;
  if (failed(layout.rescale(layout.getInRank() - 1, chunk)) ||
      layout.getOutExtents()[0] % chunk != 0)
    return "the shared layout does not keep 16-byte chunks contiguous";
  if (failed(getOffsetSlice(loop, copy)))
    return "its offsets depend on more than index arithmetic in the loop";
  // Every other use of the buffer is later in this loop's body.
  for (Operation *user : copy.getDest().getUsers()) {
    if (user == copy)
      continue;
    if (!loop->isProperAncestor(user))
      return "its shared buffer is also used outside the loop";
    if (!copy->isBeforeInBlock(body.findAncestorOpInBlock(*user)))
      return "its shared buffer is used before it in the loop body";
  }
  // The loop does not write the tensor it reads.
  WalkResult writes = loop.walk([&](Operation *op) {
    if (auto other = dyn_cast<CopyOp>(op);
        other && other.getDest() == copy.getSource())
      return WalkResult::interrupt();
    if (auto add = dyn_cast<AtomicAddOp>(op);
        add && add.getDest() == copy.getSource())
      return WalkResult::interrupt();
    if (auto store = dyn_cast<StoreOp>(op);
        store && store.getBuffer() == copy.getSource())
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (writes.wasInterrupted())
    return "the loop also writes the tensor it reads";
  return "";
}


/// The CUtensorMapDataType of a TMA element type (by size: TMA moves
/// bytes), or -1.
int64_t getTensorMapDataType(Type type) {
  if (type.isF16())
    return 6;
  if (type.isBF16())
    return 9;
  if (type.isF32())
    return 7;
  if (type.isF64())
    return 8;
  switch (type.getIntOrFloatBitWidth()) {
  case 8:
    return 0;
  case 16:
    return 1;
  case 32:
    return 2;
  case 64:
    return 4;
  default:
    return -1;
  }
}

/// How a TMA producer's tile is moved: `loads` boxes of `rows` x `columns`
/// elements, one per swizzle panel (or one for a row-major tile).
struct TmaBox {
  int64_t rows, columns, loads;
  int64_t swizzleBytes; // 0: none
};

std::optional<TmaBox> getTmaBox(const SharedBufferPlan &buffer) {
  ArrayRef<int64_t> shape = buffer.type.getShape();
  int64_t bytes = buffer.type.getElementTypeBitWidth() / 8;
  if (shape.size() != 2 || bytes == 0)
    return std::nullopt;
  TmaBox box{shape[0], shape[1], 1, 0};
  const Layout &layout = buffer.layout;
  if (std::optional<Swizzle> swizzle = layout.getSwizzle()) {
    std::optional<int64_t> mode = swizzle->getModeBytes(bytes);
    if (!mode)
      return std::nullopt;
    box.swizzleBytes = *mode;
    box.columns = *mode / bytes;
    box.loads = shape[1] / box.columns;
  } else if (layout != Layout::rowMajor(shape)) {
    return std::nullopt;
  }
  if (box.rows > 256 || box.columns > 256 || (box.columns * bytes) % 16 != 0)
    return std::nullopt;
  return box;
}

/// Whether `gemm`, in `loop`'s body, may run on while the loop goes on: a
/// wgmma reading A and B from shared memory whose accumulator no other op
/// of the loop touches (so only the next gemm, which the hardware orders
/// after it, and code after the loop read it).
bool canStayInFlight(const KernelPlan &plan, PipelinedOp loop, GemmOp gemm) {
  const GemmPlan &gemmPlan = plan.gemms.find(gemm)->second;
  if (gemmPlan.instruction != GemmInstruction::Wgmma ||
      !gemmPlan.aFromShared || gemm.getClearAccum())
    return false;
  return llvm::all_of(gemm.getC().getUsers(), [&](Operation *user) {
    return user == gemm || !loop->isAncestor(user);
  });
}

/// Whether `copy`, a producer of `loop`, can be a TMA load: a 2-d global
/// tensor defined outside the kernel (so that the host can describe it)
/// with unit innermost stride, into a row-major or swizzled tile.
bool isTmaProducer(const KernelPlan &plan, PipelinedOp loop, CopyOp copy) {
  Value global = copy.getSource();
  auto kernel = loop->getParentOfType<KernelOp>();
  if (kernel->isAncestor(global.getParentRegion()->getParentOp()))
    return false;
  auto type = cast<MemRefType>(global.getType());
  if (type.getRank() != 2 || getTensorMapDataType(type.getElementType()) < 0)
    return false;
  return getTmaBox(plan.shared.find(copy.getDest())->second).has_value();
}

} // namespace

FailureOr<PipelinePlan>
mlir::tile::gpu_lowering::planPipeline(const KernelPlan &kernelPlan,
                                       PipelinedOp loop) {
  PipelinePlan plan;
  int64_t stages = loop.getNumStagesAttr().getInt();
  Block &body = loop.getBody().front();
  if (std::optional<ArrayRef<int64_t>> order = loop.getOrder()) {
    for (auto [i, position] : llvm::enumerate(*order))
      if (position != static_cast<int64_t>(i))
        return loop.emitOpError("'order' other than the body's own order is "
                                "not supported by the GPU lowering yet");
  }
  if (stages < 2 || !kernelPlan.target.has(Feature::CpAsync))
    return plan;
  // Buffers made inside the loop would be made twice (both loop versions).
  WalkResult allocates = loop.walk([](Operation *op) {
    return isa<AllocSharedOp, FragmentOp>(op) ? WalkResult::interrupt()
                                              : WalkResult::advance();
  });
  if (allocates.wasInterrupted())
    return plan;

  std::optional<ArrayRef<int64_t>> stageOf = loop.getStage();
  int64_t lastStage = 0;
  if (stageOf)
    for (int64_t s : *stageOf)
      lastStage = std::max(lastStage, s);
  for (auto [i, op] : llvm::enumerate(body)) {
    auto copy = dyn_cast<CopyOp>(op);
    bool early = stageOf && (*stageOf)[i] < lastStage;
    // Index arithmetic goes wherever its users are.
    if (!copy && op.getNumRegions() == 0 && isPure(&op))
      continue;
    std::string why =
        copy ? whyNotProducer(kernelPlan, loop, copy) : "it is not a copy";
    if (!why.empty()) {
      if (early)
        return op.emitOpError("is scheduled in pipeline stage ")
               << (*stageOf)[i] << " of " << lastStage
               << ", but only global-to-shared copies can run ahead, and "
               << why;
      continue;
    }
    if (stageOf && !early)
      continue;
    plan.producers.push_back(copy);
  }
  if (!plan.producers.empty())
    plan.stages = stages;
  plan.tma = !plan.producers.empty() &&
             kernelPlan.target.has(Feature::Tma) &&
             llvm::all_of(plan.producers, [&](CopyOp copy) {
               return isTmaProducer(kernelPlan, loop, copy);
             });
  if (plan.tma)
    for (GemmOp gemm : body.getOps<GemmOp>())
      if (canStayInFlight(kernelPlan, loop, gemm))
        plan.asyncGemms.push_back(gemm);
  return plan;
}

namespace {


/// i1 (folded to a constant where possible), uniform over the block:
/// `v`, computed in `loop`'s body, is a multiple of `n` in every iteration.
/// Built before the loop: only values from outside it are tested at run
/// time.
Value buildMultipleOf(KernelContext &k, OpBuilder &b, Location loc,
                      PipelinedOp loop, Value v, int64_t n) {
  auto constant = [&](bool value) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), value);
  };
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return constant(*c % n == 0);
  if (!loop.getBody().isAncestor(v.getParentRegion()))
    return isMultipleOf(b, loc, v, n);
  if (v == loop.getInductionVar())
    return b.createOrFold<arith::AndIOp>(
        loc, buildMultipleOf(k, b, loc, loop, loop.getLower(), n),
        buildMultipleOf(k, b, loc, loop, loop.getStep(), n));
  Operation *op = v.getDefiningOp();
  if (isa_and_nonnull<arith::MulIOp>(op))
    return b.createOrFold<arith::OrIOp>(
        loc, buildMultipleOf(k, b, loc, loop, op->getOperand(0), n),
        buildMultipleOf(k, b, loc, loop, op->getOperand(1), n));
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(op))
    return b.createOrFold<arith::AndIOp>(
        loc, buildMultipleOf(k, b, loc, loop, op->getOperand(0), n),
        buildMultipleOf(k, b, loc, loop, op->getOperand(1), n));
  return constant(false);
}

/// i1: every chunk `copy` moves starts 16-byte aligned in global memory in
/// every iteration.
Value buildChunkAlignment(KernelContext &k, OpBuilder &b, Location loc,
                          PipelinedOp loop, CopyOp copy) {
  int64_t chunk = getChunk(copy);
  Value ok = areRowsAligned(b, loc, copy.getSource(), chunk);
  Value origin = getValueOrCreateConstantIndexOp(
      b, loc, copy.getMixedOffsets().back());
  Value originOk = buildMultipleOf(k, b, loc, loop, origin, chunk);
  return b.createOrFold<arith::AndIOp>(loc, ok, originOk);
}

class PipelineBuilder {
public:
  PipelineBuilder(KernelContext &k, PatternRewriter &rewriter,
                  PipelinedOp loop, const PipelinePlan &plan)
      : k(k), rewriter(rewriter), loop(loop), plan(plan), loc(loop.getLoc()) {}

  /// Builds the pipelined loop at `b`'s insertion point.
  LogicalResult build(OpBuilder &b);

private:
  /// Issues every producer's copies for iteration `iteration` into stage
  /// `stage` (0 source bytes unless `valid`); returns the group's token.
  Value issue(OpBuilder &b, Value iteration, Value stage, Value valid);
  void issueCopy(OpBuilder &b, CopyOp copy, Value iteration, Value stage,
                 Value valid, SmallVectorImpl<Value> &tokens);

  KernelContext &k;
  PatternRewriter &rewriter;
  PipelinedOp loop;
  const PipelinePlan &plan;
  Location loc;
};

Value PipelineBuilder::issue(OpBuilder &b, Value iteration, Value stage,
                             Value valid) {
  SmallVector<Value> tokens;
  for (CopyOp copy : plan.producers)
    issueCopy(b, copy, iteration, stage, valid, tokens);
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

void PipelineBuilder::issueCopy(OpBuilder &b, CopyOp copy, Value iteration,
                                Value stage, Value valid,
                                SmallVectorImpl<Value> &tokens) {
  // The tile's origin in this iteration.
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iteration);
  SetVector<Operation *> slice = *getOffsetSlice(loop, copy);
  for (Operation *op : slice)
    b.clone(*op, mapping);
  SmallVector<Value> origin;
  for (OpFoldResult offset : copy.getMixedOffsets())
    origin.push_back(isa<Value>(offset)
                         ? mapping.lookupOrDefault(cast<Value>(offset))
                         : k.constant(b, loc, *getConstantIntValue(offset)));

  SharedStorage buffer = k.shared.lookup(copy.getDest());
  buffer.stageOffset = arith::MulIOp::create(
      b, loc, stage, k.constant(b, loc, buffer.stageElements));
  int64_t chunk = getChunk(copy);
  Value global = copy.getSource();
  SmallVector<int64_t> shape(buffer.type.getShape());
  shape.back() /= chunk;
  int64_t chunks = ShapedType::getNumElements(shape);
  Value zero = k.constant(b, loc, 0);
  Value chunkSize = k.constant(b, loc, chunk);
  auto dstElements = b.getIndexAttr(chunk);
  // Chunks dealt round-robin; a thread with no chunk left repeats the last
  // one (the same bytes to the same place) instead of branching.
  for (int64_t round = 0, rounds = llvm::divideCeil(chunks, k.threads);
       round < rounds; ++round) {
    Value linear = arith::AddIOp::create(
        b, loc, k.threadId, k.constant(b, loc, round * k.threads));
    if ((round + 1) * k.threads > chunks)
      linear = arith::MinUIOp::create(b, loc, linear,
                                      k.constant(b, loc, chunks - 1));
    SmallVector<Value> index = delinearize(b, loc, linear, shape);
    index.back() = arith::MulIOp::create(b, loc, index.back(), chunkSize);

    // Source bytes: the part of the chunk inside the tensor (the rest is
    // zero-filled), none for rows outside it or iterations past the end.
    SmallVector<Value> at;
    Value inside = valid;
    for (auto [d, pair] : llvm::enumerate(llvm::zip(origin, index))) {
      at.push_back(arith::AddIOp::create(b, loc, std::get<0>(pair),
                                         std::get<1>(pair)));
      if (d + 1 == index.size())
        continue;
      Value size = memref::DimOp::create(b, loc, global, d);
      inside = arith::AndIOp::create(
          b, loc, inside,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at.back(),
                                size));
    }
    Value columns = arith::SubIOp::create(
        b, loc, memref::DimOp::create(b, loc, global, index.size() - 1),
        at.back());
    Value count = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, columns, zero), chunkSize);
    count = arith::SelectOp::create(b, loc, inside, count, zero);

    Value dst = k.sharedOffset(b, loc, buffer, index);
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()),
        buffer.memory, ValueRange{dst}, global, at, dstElements, count,
        /*bypassL1=*/b.getUnitAttr()));
  }
}

LogicalResult PipelineBuilder::build(OpBuilder &b) {
  int64_t stages = plan.stages;
  Value lower = loop.getLower(), upper = loop.getUpper(),
        step = loop.getStep();

  // Prologue: iterations 0 .. s-2 into stages 0 .. s-2, after a barrier:
  // the buffers may share memory with ones read before the loop.
  k.barrier(b, loc);
  Value group;
  for (int64_t i = 0; i + 1 < stages; ++i) {
    Value iteration = arith::AddIOp::create(
        b, loc, lower,
        arith::MulIOp::create(b, loc, step, k.constant(b, loc, i)));
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        iteration, upper);
    group = issue(b, iteration, k.constant(b, loc, i), valid);
  }

  // The stages iteration j reads (j % s) and fills (j + s - 1) % s, carried
  // through the loop rather than divided out of the induction variable.
  auto next = [&](OpBuilder &nb, Location l, Value stage) -> Value {
    Value plusOne = arith::AddIOp::create(nb, l, stage, k.constant(nb, l, 1));
    Value wraps = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                        plusOne, k.constant(nb, l, stages));
    return arith::SelectOp::create(nb, l, wraps, k.constant(nb, l, 0),
                                   plusOne);
  };
  auto forOp = scf::ForOp::create(
      b, loc, lower, upper, step,
      ValueRange{k.constant(b, loc, 0), k.constant(b, loc, stages - 1)},
      [&](OpBuilder &nb, Location l, Value, ValueRange stagesNow) {
        scf::YieldOp::create(nb, l,
                             ValueRange{next(nb, l, stagesNow[0]),
                                        next(nb, l, stagesNow[1])});
      });
  OpBuilder::InsertionGuard guard(b);
  Operation *end = forOp.getBody()->getTerminator();
  b.setInsertionPoint(end->getOperand(0).getDefiningOp());
  Value iv = forOp.getInductionVar();
  Value readStage = forOp.getRegionIterArg(0);
  Value writeStage = forOp.getRegionIterArg(1);

  // Iteration j's group has landed once at most s - 2 newer ones are in
  // flight; the barrier publishes it to every thread (and the tensor
  // cores) and also ends every thread's reads of iteration j - 1's stage,
  // which is refilled next.
  nvgpu::DeviceAsyncWaitOp::create(b, loc, group,
                                   b.getI32IntegerAttr(stages - 2));
  k.publishShared(b, loc);
  Value ahead = arith::AddIOp::create(
      b, loc, iv,
      arith::MulIOp::create(b, loc, step, k.constant(b, loc, stages - 1)));
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ahead, upper);
  issue(b, ahead, writeStage, valid);

  SmallVector<Value> buffers;
  for (CopyOp copy : plan.producers) {
    SharedStorage &buffer = k.shared[copy.getDest()];
    buffer.stageOffset = arith::MulIOp::create(
        b, loc, readStage, k.constant(b, loc, buffer.stageElements));
    buffers.push_back(copy.getDest());
  }
  rewriter.inlineBlockBefore(&loop.getBody().front(),
                             end->getOperand(0).getDefiningOp(),
                               ValueRange{iv});
  for (CopyOp copy : plan.producers)
    rewriter.eraseOp(copy);
  // The producers' offset computations may be dead now; canonicalization
  // removes them.
  LogicalResult status = k.lowerBlock(*forOp.getBody(), rewriter);
  for (Value buffer : buffers)
    k.shared[buffer].stageOffset = Value();
  if (failed(status))
    return failure();

  // Nothing may land after the loop, and the buffers may be reused.
  b.setInsertionPointAfter(forOp);
  nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(0));
  k.barrier(b, loc);
  return success();
}

/// The TMA version of a pipelined loop: one thread fills each stage with
/// bulk tensor copies that complete on the stage's `full` mbarrier (with
/// the stage's byte count); every thread waits on it, reads the stage, and
/// arrives on the stage's `empty` mbarrier, on which the filling thread
/// waits before refilling it. Phases alternate each time a stage comes
/// round again; no block-wide barrier runs in the loop.
class TmaPipelineBuilder {
public:
  TmaPipelineBuilder(KernelContext &k, PatternRewriter &rewriter,
                     PipelinedOp loop, const PipelinePlan &plan)
      : k(k), rewriter(rewriter), loop(loop), plan(plan), loc(loop.getLoc()) {}

  LogicalResult build(OpBuilder &b);

private:
  /// Thread 0 fills stage `stage` with iteration `iteration`'s tiles, after
  /// waiting for its consumers unless `firstFill`.
  void issue(OpBuilder &b, Value iteration, Value stage, Value emptyParity,
             Value valid);
  Value index(OpBuilder &b, int64_t v) { return k.constant(b, loc, v); }

  KernelContext &k;
  PatternRewriter &rewriter;
  PipelinedOp loop;
  const PipelinePlan &plan;
  Location loc;
  Value barriers;
  Value isLeader;
  int64_t stageBytes = 0;
};

void TmaPipelineBuilder::issue(OpBuilder &b, Value iteration, Value stage,
                               Value emptyParity, Value valid) {
  Value go = arith::AndIOp::create(b, loc, isLeader, valid);
  scf::IfOp::create(b, loc, go, [&](OpBuilder &then, Location l) {
    int64_t stages = plan.stages;
    if (emptyParity)
      nvgpu::MBarrierTryWaitParityOp::create(
          then, l, barriers, emptyParity, index(then, 10000000),
          arith::AddIOp::create(then, l, stage, index(then, stages)));
    nvgpu::MBarrierArriveExpectTxOp::create(then, l, barriers,
                                            index(then, stageBytes), stage,
                                            /*predicate=*/Value());
    for (CopyOp copy : plan.producers) {
      // The tile's origin in this iteration.
      IRMapping mapping;
      mapping.map(loop.getInductionVar(), iteration);
      SetVector<Operation *> slice = *getOffsetSlice(loop, copy);
      for (Operation *op : slice)
        then.clone(*op, mapping);
      SmallVector<Value> origin;
      for (OpFoldResult offset : copy.getMixedOffsets())
        origin.push_back(
            isa<Value>(offset)
                ? mapping.lookupOrDefault(cast<Value>(offset))
                : index(then, *getConstantIntValue(offset)));
      const SharedBufferPlan &buffer =
          k.plan.shared.find(copy.getDest())->second;
      TmaBox box = *getTmaBox(buffer);
      Type element = buffer.type.getElementType();
      int64_t bytes = element.getIntOrFloatBitWidth() / 8;
      auto boxType = MemRefType::get(
          {box.rows, box.columns}, element, MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(then.getContext(),
                                     gpu::AddressSpace::Workgroup));
      Value stageStart = arith::AddIOp::create(
          then, l, index(then, buffer.offset),
          arith::MulIOp::create(then, l, stage,
                                index(then, buffer.stageElements * bytes)));
      for (int64_t p = 0; p < box.loads; ++p) {
        Value at = arith::AddIOp::create(
            then, l, stageStart,
            index(then, p * box.rows * box.columns * bytes));
        Value dst = memref::ViewOp::create(then, l, boxType, k.dynamicShared,
                                           k.sharedByteOffset(then, l, at),
                                           ValueRange());
        Value column = arith::AddIOp::create(
            then, l, origin[1], index(then, p * box.columns));
        // Coordinates innermost first, as the tensor map's dims.
        auto [pointer, descriptorType] = k.tensorMaps.lookup(copy);
        Value descriptor = UnrealizedConversionCastOp::create(
                               then, l, descriptorType, pointer)
                               .getResult(0);
        nvgpu::TmaAsyncLoadOp::create(
            then, l, dst, barriers, descriptor,
            ValueRange{column, origin[0]}, stage, /*multicastMask=*/Value(),
            /*predicate=*/Value());
      }
    }
    scf::YieldOp::create(then, l);
  });
}

LogicalResult TmaPipelineBuilder::build(OpBuilder &b) {
  int64_t stages = plan.stages;
  Value lower = loop.getLower(), upper = loop.getUpper(),
        step = loop.getStep();
  for (CopyOp copy : plan.producers) {
    const SharedBufferPlan &buffer = k.plan.shared.find(copy.getDest())->second;
    stageBytes += buffer.stageElements *
                  (buffer.type.getElementTypeBitWidth() / 8);
  }
  MLIRContext *context = b.getContext();
  auto barrierType = nvgpu::MBarrierGroupType::get(
      context,
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup),
      2 * stages);
  barriers = nvgpu::MBarrierCreateOp::create(b, loc, barrierType);
  isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                   k.threadId, index(b, 0));

  // Thread 0 sets up the barriers: `full` i (one arrival, plus the bytes),
  // `empty` i (every thread). The stages may reuse memory other buffers
  // used through the generic proxy: fence it before the copy engine writes.
  k.barrier(b, loc);
  scf::IfOp::create(b, loc, isLeader, [&](OpBuilder &then, Location l) {
    for (int64_t i = 0; i < 2 * stages; ++i)
      nvgpu::MBarrierInitOp::create(
          then, l, barriers, index(then, i < stages ? 1 : k.threads),
          index(then, i), /*predicate=*/Value());
    NVVM::FenceProxyOp::create(
        then, l, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
    scf::YieldOp::create(then, l);
  });
  k.barrier(b, loc);

  // Prologue: iterations 0 .. s-2 into stages 0 .. s-2 (first fills: no
  // consumer to wait for).
  for (int64_t i = 0; i + 1 < stages; ++i) {
    Value iteration = arith::AddIOp::create(
        b, loc, lower, arith::MulIOp::create(b, loc, step, index(b, i)));
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        iteration, upper);
    issue(b, iteration, index(b, i), Value(), valid);
  }

  // Carried: the stage iteration j reads and its `full` phase, the stage it
  // fills for iteration j + s - 1 and the phase of that fill (the k-th fill
  // of a stage waits for the consumers' k-th arrival, parity k - 1).
  auto i1 = [&](OpBuilder &nb, bool v) -> Value {
    return arith::ConstantIntOp::create(nb, loc, nb.getI1Type(), v);
  };
  auto advance = [&](OpBuilder &nb, Location l, Value stage, Value phase) {
    Value plusOne = arith::AddIOp::create(nb, l, stage, index(nb, 1));
    Value wraps = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                        plusOne, index(nb, stages));
    return std::make_pair(
        arith::SelectOp::create(nb, l, wraps, index(nb, 0), plusOne)
            .getResult(),
        arith::XOrIOp::create(nb, l, phase, wraps).getResult());
  };
  auto forOp = scf::ForOp::create(
      b, loc, lower, upper, step,
      ValueRange{index(b, 0), i1(b, false), index(b, stages - 1),
                 i1(b, false)},
      [&](OpBuilder &nb, Location l, Value, ValueRange carried) {
        auto [readStage, readPhase] = advance(nb, l, carried[0], carried[1]);
        auto [writeStage, writePhase] =
            advance(nb, l, carried[2], carried[3]);
        scf::YieldOp::create(
            nb, l, ValueRange{readStage, readPhase, writeStage, writePhase});
      });
  OpBuilder::InsertionGuard guard(b);
  Operation *end = forOp.getBody()->getTerminator();
  Operation *firstOfYield = end->getOperand(0).getDefiningOp();
  // The yield's operands are computed at the end of the body; the body
  // goes before them.
  for (Value operand : end->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && def->getBlock() == forOp.getBody() &&
        def->isBeforeInBlock(firstOfYield))
      firstOfYield = def;
  b.setInsertionPoint(firstOfYield);
  Value iv = forOp.getInductionVar();
  Value readStage = forOp.getRegionIterArg(0);
  Value readPhase = forOp.getRegionIterArg(1);
  Value writeStage = forOp.getRegionIterArg(2);
  Value writePhase = forOp.getRegionIterArg(3);

  Value ahead = arith::AddIOp::create(
      b, loc, iv, arith::MulIOp::create(b, loc, step, index(b, stages - 1)));
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ahead, upper);
  Value emptyParity = arith::XOrIOp::create(b, loc, writePhase, i1(b, true));
  // With gemms left in flight, the stage to refill is given back only at
  // the end of the iteration: fill it there.
  bool async = !plan.asyncGemms.empty();
  if (!async)
    issue(b, ahead, writeStage, emptyParity, valid);
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, readPhase,
                                         index(b, 10000000), readStage);
  // Each thread leaves the wait on its own; warp-wide instructions (wgmma
  // is .sync.aligned) need the warp converged again.
  NVVM::SyncWarpOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));

  auto release = [&](OpBuilder &rb, Value stage) {
    nvgpu::MBarrierArriveOp::create(
        rb, loc, nvgpu::MBarrierTokenType::get(context), barriers,
        arith::AddIOp::create(rb, loc, stage, index(rb, stages)));
  };
  // The end of the iteration, built before the body moves in (it reads the
  // producers' offsets): with gemms in flight, the previous iteration's are
  // done once at most this iteration's are, and their stage - the one to
  // refill - goes back.
  Operation *bodyEnd = firstOfYield;
  if (async) {
    auto wait = NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    Value notFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, iv, lower);
    scf::IfOp::create(b, loc, notFirst, [&](OpBuilder &then, Location l) {
      release(then, writeStage);
      scf::YieldOp::create(then, l);
    });
    issue(b, ahead, writeStage, emptyParity, valid);
    bodyEnd = wait;
  }

  SmallVector<Value> buffers;
  for (CopyOp copy : plan.producers) {
    SharedStorage &buffer = k.shared[copy.getDest()];
    b.setInsertionPoint(bodyEnd);
    buffer.stageOffset = arith::MulIOp::create(
        b, loc, readStage, index(b, buffer.stageElements));
    buffers.push_back(copy.getDest());
  }
  rewriter.inlineBlockBefore(&loop.getBody().front(), bodyEnd,
                             ValueRange{iv});
  for (CopyOp copy : plan.producers)
    rewriter.eraseOp(copy);
  k.asyncGemms.insert(plan.asyncGemms.begin(), plan.asyncGemms.end());
  LogicalResult status = k.lowerBlock(*forOp.getBody(), rewriter);
  k.asyncGemms.clear();
  for (Value buffer : buffers)
    k.shared[buffer].stageOffset = Value();
  if (failed(status))
    return failure();
  if (!async) {
    b.setInsertionPoint(firstOfYield);
    release(b, readStage);
  }

  // Every filled stage was consumed (and every gemm finished); the buffers
  // may be reused after a barrier.
  b.setInsertionPointAfter(forOp);
  if (async)
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  k.barrier(b, loc);
  return success();
}

/// The loop as written: an scf.for around the lowered body.
LogicalResult lowerPlainly(KernelContext &k, PatternRewriter &rewriter,
                           PipelinedOp loop) {
  rewriter.setInsertionPoint(loop);
  auto forOp = scf::ForOp::create(rewriter, loop.getLoc(), loop.getLower(),
                                  loop.getUpper(), loop.getStep());
  rewriter.inlineBlockBefore(&loop.getBody().front(),
                               forOp.getBody()->getTerminator(),
                               forOp.getInductionVar());
  rewriter.eraseOp(loop);
  return k.lowerBlock(*forOp.getBody(), rewriter);
}

} // namespace

namespace {

struct PipelinedOpLowering : public TileOpLowering<PipelinedOp> {
  using TileOpLowering::TileOpLowering;

  LogicalResult matchAndRewrite(PipelinedOp loop,
                                PatternRewriter &rewriter) const override {
    KernelContext &k = context;
    auto it = k.plan.pipelines.find(k.getPlanned(loop));
    if (it == k.plan.pipelines.end() || it->second.producers.empty())
      return lowerPlainly(k, rewriter, loop);
    const PipelinePlan &plan = it->second;
    OpBuilder &b = rewriter;
    Location loc = loop.getLoc();
    b.setInsertionPoint(loop);

    Value aligned;
    for (CopyOp copy : plan.producers) {
      Value ok = buildChunkAlignment(k, b, loc, loop, copy);
      aligned = aligned ? b.createOrFold<arith::AndIOp>(loc, aligned, ok) : ok;
    }
    if (matchPattern(aligned, m_Zero()))
      return lowerPlainly(k, rewriter, loop);

    // Versions: TMA (when planned; taken when the host found the tensors
    // aligned), cp.async (when the chunks are aligned), and the loop as
    // written. The loop itself becomes the first version; the others are
    // copies made before anything is lowered, their producers mapped.
    auto copyVersion = [&](OpBuilder &at) {
      IRMapping mapping;
      auto copy = cast<PipelinedOp>(at.clone(*loop, mapping));
      k.recordClones(mapping);
      PipelinePlan mapped = plan;
      for (CopyOp &producer : mapped.producers)
        producer = cast<CopyOp>(mapping.lookup(producer.getOperation()));
      return std::make_pair(copy, std::move(mapped));
    };
    scf::IfOp tmaIf;
    if (plan.tma) {
      tmaIf = scf::IfOp::create(b, loc, k.tmaReady.lookup(loop),
                                /*withElseRegion=*/true);
      b.setInsertionPoint(tmaIf.elseBlock()->getTerminator());
    }
    auto alignedIf = scf::IfOp::create(b, loc, aligned,
                                       /*withElseRegion=*/true);
    b.setInsertionPoint(alignedIf.elseBlock()->getTerminator());
    auto [plain, plainPlan] = copyVersion(b);
    PipelinedOp cpAsyncLoop = loop;
    PipelinePlan cpAsyncPlan = plan;
    if (plan.tma) {
      b.setInsertionPoint(alignedIf.thenBlock()->getTerminator());
      std::tie(cpAsyncLoop, cpAsyncPlan) = copyVersion(b);
    }

    if (failed(lowerPlainly(k, rewriter, plain)))
      return failure();
    b.setInsertionPoint(alignedIf.thenBlock()->getTerminator());
    if (failed(PipelineBuilder(k, rewriter, cpAsyncLoop, cpAsyncPlan).build(b)))
      return failure();
    rewriter.eraseOp(cpAsyncLoop);
    if (plan.tma) {
      b.setInsertionPoint(tmaIf.thenBlock()->getTerminator());
      if (failed(TmaPipelineBuilder(k, rewriter, loop, plan).build(b)))
        return failure();
      rewriter.eraseOp(loop);
    }
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populatePipeliningPatterns(
    RewritePatternSet &patterns, KernelContext &context) {
  patterns.add<PipelinedOpLowering>(patterns.getContext(), context);
}

void mlir::tile::gpu_lowering::createTensorMaps(KernelContext &k, OpBuilder &b,
                                                Location loc) {
  MLIRContext *context = b.getContext();
  for (auto &[op, plan] : k.plan.pipelines) {
    if (!plan.tma)
      continue;
    Value ready;
    for (CopyOp copy : plan.producers) {
      Value global = copy.getSource();
      auto type = cast<MemRefType>(global.getType());
      const SharedBufferPlan &buffer =
          k.plan.shared.find(copy.getDest())->second;
      TmaBox box = *getTmaBox(buffer);
      int64_t bytes = type.getElementTypeBitWidth() / 8;
      auto swizzle = box.swizzleBytes == 128 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_128B
                     : box.swizzleBytes == 64 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_64B
                     : box.swizzleBytes == 32 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_32B
                                              : nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE;
      auto descriptorType = nvgpu::TensorMapDescriptorType::get(
          context,
          MemRefType::get({box.rows, box.columns}, type.getElementType(),
                          MemRefLayoutAttrInterface(),
                          gpu::AddressSpaceAttr::get(
                              context, gpu::AddressSpace::Workgroup)),
          swizzle, nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
          nvgpu::TensorMapOOBKind::OOB_ZERO,
          nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
      Value unranked = memref::CastOp::create(
          b, loc, UnrankedMemRefType::get(type.getElementType(), 0), global);
      Value descriptor = nvgpu::TmaCreateDescriptorOp::create(
          b, loc, descriptorType, unranked,
          ValueRange{k.constant(b, loc, box.rows),
                     k.constant(b, loc, box.columns)});
      // Into the kernel as a plain pointer: the GPU lowering's type
      // converter does not know nvgpu's descriptor type.
      Value pointer = UnrealizedConversionCastOp::create(
                          b, loc, LLVM::LLVMPointerType::get(context),
                          descriptor)
                          .getResult(0);
      k.tensorMaps[copy] = {pointer, descriptorType};
      // TMA reads rows from 16-byte aligned addresses.
      Value aligned = areRowsAligned(b, loc, global, 16 / bytes);
      ready = ready ? arith::AndIOp::create(b, loc, ready, aligned).getResult()
                    : aligned;
    }
    k.tmaReady[op] = ready;
  }
}
