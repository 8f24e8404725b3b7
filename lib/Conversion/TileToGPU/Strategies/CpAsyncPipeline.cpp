//===- CpAsyncPipeline.cpp - Pipelines filled with cp.async ------------------===//
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

#include "PipelineStrategies.h"

#include "../PrefetchLoads.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

#include "tile/Dialect/Tile/Transforms/CompileBounds.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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
  if (v == loop.getInductionVar()) {
    Value lowerOk = buildMultipleOf(k, b, loc, loop, loop.getLower(), n);
    Value stepOk = buildMultipleOf(k, b, loc, loop, loop.getStep(), n);
    return b.createOrFold<arith::AndIOp>(loc, lowerOk, stepOk);
  }
  Operation *op = v.getDefiningOp();
  // Casts that keep the value (a run-time variable's i32 arithmetic).
  if (isa_and_nonnull<arith::IndexCastOp, arith::ExtSIOp, arith::ExtUIOp>(op))
    return buildMultipleOf(k, b, loc, loop, op->getOperand(0), n);
  if (isa_and_nonnull<arith::MulIOp>(op)) {
    Value lhsOk = buildMultipleOf(k, b, loc, loop, op->getOperand(0), n);
    Value rhsOk = buildMultipleOf(k, b, loc, loop, op->getOperand(1), n);
    return b.createOrFold<arith::OrIOp>(loc, lhsOk, rhsOk);
  }
  // x / c (x >> s) is a multiple of n where x is one of n * c (n << s):
  // two packed weights a byte put K's offset at k * block_K / 2.
  if (isa_and_nonnull<arith::FloorDivSIOp, arith::DivSIOp, arith::DivUIOp,
                      arith::ShRSIOp, arith::ShRUIOp>(op)) {
    std::optional<int64_t> by = getConstantIntValue(op->getOperand(1));
    bool shift = isa<arith::ShRSIOp, arith::ShRUIOp>(op);
    if (by && *by > 0 && (!shift || *by < 32))
      return buildMultipleOf(k, b, loc, loop, op->getOperand(0),
                             shift ? n << *by : n * *by);
    return constant(false);
  }
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(op)) {
    Value lhsOk = buildMultipleOf(k, b, loc, loop, op->getOperand(0), n);
    Value rhsOk = buildMultipleOf(k, b, loc, loop, op->getOperand(1), n);
    return b.createOrFold<arith::AndIOp>(loc, lhsOk, rhsOk);
  }
  return constant(false);
}

} // namespace

/// Why `copy` cannot be a producer of `loop` (empty when it can be).
std::string mlir::tile::gpu_lowering::whyNotProducer(const KernelPlan &plan,
                                                     PipelinedOp loop,
                                                     CopyOp copy) {
  Block &body = loop.getBody().front();
  if (copy->getBlock() != &body)
    return "it is nested in another op";
  if (copy.getGlobal() != copy.getSource())
    return "it does not read global memory";
  // Copies issued ahead read the tensor, and their alignment is tested,
  // before the loop runs.
  if (loop->isAncestor(copy.getSource().getParentBlock()->getParentOp()))
    return "its source tensor is computed inside the loop";
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
  int64_t chunk = getProducerChunk(copy);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(globalType.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return "the global tensor's innermost stride is not 1";
  ArrayRef<int64_t> shape = alloc.getType().getShape();
  if (shape.back() % chunk != 0)
    return "the tile's rows are not a whole number of 16-byte chunks";
  if (auto pad = copy.getPadAttr(); pad && !isZero(pad))
    return "it pads with a value other than 0";
  if (std::string why = whyNotStagedBuffer(plan, loop, copy, alloc, chunk);
      !why.empty())
    return why;
  if (failed(getOffsetSlice(plan, loop, copy)))
    return "its offsets depend on more than index arithmetic in the loop";
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

std::string mlir::tile::gpu_lowering::whyNotStagedBuffer(const KernelPlan &plan,
                                                         PipelinedOp loop,
                                                         Operation *producer,
                                                         AllocSharedOp alloc,
                                                         int64_t chunk) {
  // Unrolled rounds per thread: one per stage filled ahead (cp.async), or
  // a load and a store (through registers, on targets without cp.async).
  int64_t copies =
      plan.target.has(Feature::CpAsync) ? loop.getNumStagesAttr().getInt() : 2;
  if (int64_t rounds =
          llvm::divideCeil(alloc.getType().getNumElements() / chunk,
                           plan.threads) *
          copies;
      rounds > kMaxUnrolledCopyRounds)
    return "it would unroll " + std::to_string(rounds) +
           " rounds of 16-byte copies per thread, more than " +
           std::to_string(kMaxUnrolledCopyRounds);
  const Layout &layout = plan.shared.find(alloc.getResult())->second.layout;
  if (failed(layout.rescale(layout.getInRank() - 1, chunk)) ||
      layout.getOutExtents()[0] % chunk != 0)
    return "the shared layout does not keep 16-byte chunks contiguous";
  // Every other use of the buffer is later in this loop's body.
  Block &body = loop.getBody().front();
  for (Operation *user : alloc.getResult().getUsers()) {
    if (user == producer)
      continue;
    if (!loop->isProperAncestor(user))
      return "its shared buffer is also used outside the loop";
    if (!producer->isBeforeInBlock(body.findAncestorOpInBlock(*user)))
      return "its shared buffer is used before it in the loop body";
  }
  return "";
}

/// i1: every chunk `copy` moves starts 16-byte aligned in global memory in
/// every iteration.
Value mlir::tile::gpu_lowering::buildChunkAlignment(KernelContext &k,
                                                   OpBuilder &b, Location loc,
                                                   PipelinedOp loop,
                                                   CopyOp copy) {
  int64_t chunk = getProducerChunk(copy);
  Value ok = areRowsAligned(b, loc, copy.getSource(), chunk);
  Value origin = getValueOrCreateConstantIndexOp(
      b, loc, copy.getMixedOffsets().back());
  Value originOk = buildMultipleOf(k, b, loc, loop, origin, chunk);
  return b.createOrFold<arith::AndIOp>(loc, ok, originOk);
}

int64_t mlir::tile::gpu_lowering::getProducerChunk(CopyOp copy) {
  Type element = cast<MemRefType>(copy.getSource().getType()).getElementType();
  return kChunkBytes / (element.getIntOrFloatBitWidth() / 8);
}

void mlir::tile::gpu_lowering::forEachChunk(
    KernelContext &k, OpBuilder &b, PipelinedOp loop, CopyOp copy,
    Value iteration, Value stage, Value valid,
    function_ref<void(const ProducerChunk &)> fn) {
  Location loc = copy.getLoc();
  // The tile's origin in this iteration.
  IRMapping mapping;
  cloneOffsetSlice(k.plan, b, loop, copy.getOffsets(), iteration, valid,
                   mapping);
  SmallVector<Value> origin;
  for (OpFoldResult offset : copy.getMixedOffsets())
    origin.push_back(isa<Value>(offset)
                         ? mapping.lookupOrDefault(cast<Value>(offset))
                         : k.constant(b, loc, *getConstantIntValue(offset)));

  SharedStorage buffer = k.getStage(b, loc, copy.getDest(), stage);
  int64_t chunk = getProducerChunk(copy);
  Value global = copy.getSource();
  Value zero = k.constant(b, loc, 0);
  Value chunkSize = k.constant(b, loc, chunk);
  dealChunks(
      k, b, loc, buffer.type.getShape(), chunk, [&](ArrayRef<Value> index) {
        // Source elements: the part of the chunk inside the tensor (the rest
        // is zero-filled), none for rows outside it or iterations past the end.
        ProducerChunk c;
        Value inside = valid;
        for (auto [d, pair] : llvm::enumerate(llvm::zip(origin, index))) {
          c.at.push_back(arith::AddIOp::create(b, loc, std::get<0>(pair),
                                               std::get<1>(pair)));
          if (d + 1 == index.size())
            continue;
          Value size = memref::DimOp::create(b, loc, global, d);
          inside = arith::AndIOp::create(
              b, loc, inside,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                    c.at.back(), size));
        }
        Value columns = arith::SubIOp::create(
            b, loc, memref::DimOp::create(b, loc, global, index.size() - 1),
            c.at.back());
        Value count = arith::MinSIOp::create(
            b, loc, arith::MaxSIOp::create(b, loc, columns, zero), chunkSize);
        c.count = arith::SelectOp::create(b, loc, inside, count, zero);
        c.dst = k.sharedOffset(b, loc, buffer, index);
        fn(c);
      });
}

void mlir::tile::gpu_lowering::dealChunks(
    const KernelContext &k, OpBuilder &b, Location loc,
    ArrayRef<int64_t> tileShape, int64_t chunk,
    function_ref<void(ArrayRef<Value>)> fn) {
  SmallVector<int64_t> shape(tileShape);
  shape.back() /= chunk;
  int64_t chunks = ShapedType::getNumElements(shape);
  Value chunkSize = k.constant(b, loc, chunk);
  for (int64_t round = 0, rounds = llvm::divideCeil(chunks, k.threads);
       round < rounds; ++round) {
    Value linear = arith::AddIOp::create(b, loc, k.threadId,
                                         k.constant(b, loc, round * k.threads));
    if ((round + 1) * k.threads > chunks)
      linear = arith::MinUIOp::create(b, loc, linear,
                                      k.constant(b, loc, chunks - 1));
    SmallVector<Value> index = delinearize(b, loc, linear, shape);
    index.back() = arith::MulIOp::create(b, loc, index.back(), chunkSize);
    fn(index);
  }
}

namespace {

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
  /// One cp.async of `chunk` from `source` into `shared`, `width`
  /// elements wide; its token goes into `tokens`.
  void issueChunk(OpBuilder &b, const ProducerChunk &chunk, Value shared,
                  Value source, int64_t width, SmallVectorImpl<Value> &tokens);

  KernelContext &k;
  PatternRewriter &rewriter;
  PipelinedOp loop;
  const PipelinePlan &plan;
  Location loc;
};

Value PipelineBuilder::issue(OpBuilder &b, Value iteration, Value stage,
                             Value valid) {
  SmallVector<Value> tokens;
  for (CopyOp copy : plan.producers) {
    Value shared = k.shared.lookup(copy.getDest()).memory;
    forEachChunk(k, b, loop, copy, iteration, stage, valid,
                 [&](const ProducerChunk &chunk) {
                   issueChunk(b, chunk, shared, copy.getSource(),
                              getProducerChunk(copy), tokens);
                 });
  }
  for (Im2ColOp gather : plan.gathers) {
    Value shared = k.shared.lookup(gather.getCol()).memory;
    forEachIm2ColChunk(k, b, loop, gather, iteration, stage, valid,
                       [&](const ProducerChunk &chunk) {
                         issueChunk(b, chunk, shared, gather.getImage(),
                                    getIm2ColWidth(gather), tokens);
                       });
  }
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

void PipelineBuilder::issueChunk(OpBuilder &b, const ProducerChunk &chunk,
                                 Value shared, Value source, int64_t width,
                                 SmallVectorImpl<Value> &tokens) {
  tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), shared,
      ValueRange{chunk.dst}, source, chunk.at, b.getIndexAttr(width),
      chunk.count, /*bypassL1=*/b.getUnitAttr()));
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
  markForPrefetch(forOp);
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

  LoweringScope scope = k.getScope();
  for (Value buffer : plan.getStagedBuffers())
    scope.staged[buffer] = k.getStage(b, loc, buffer, readStage);
  rewriter.inlineBlockBefore(&loop.getBody().front(),
                             end->getOperand(0).getDefiningOp(),
                             ValueRange{iv});
  for (CopyOp copy : plan.producers)
    rewriter.eraseOp(copy);
  for (Im2ColOp gather : plan.gathers)
    rewriter.eraseOp(gather);
  // The producers' offset computations may be dead now; canonicalization
  // removes them.
  if (failed(k.lowerBlock(*forOp.getBody(), rewriter, scope)))
    return failure();

  // Nothing may land after the loop, and the buffers may be reused.
  b.setInsertionPointAfter(forOp);
  nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(0));
  k.barrier(b, loc);
  return success();
}

} // namespace

LogicalResult mlir::tile::gpu_lowering::buildCpAsyncPipeline(
    KernelContext &k, PatternRewriter &rewriter, PipelinedOp loop,
    const PipelinePlan &plan, OpBuilder &b) {
  return PipelineBuilder(k, rewriter, loop, plan).build(b);
}
