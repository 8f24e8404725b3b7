//===- RegisterPipeline.cpp - Pipelines staged through registers ----------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A tile.pipelined loop on a target without asynchronous copies (AMD's CDNA
// chips have no cp.async or TMA) runs its producers one iteration ahead
// through registers, into two copies of each shared buffer:
//
//   prologue:    barrier; load(iteration 0); store into stage 0; barrier
//   iteration j: load(j + 1) into registers (zeros past the last iteration)
//                consumers read stage j % 2
//                store the registers into stage (j + 1) % 2; barrier
//
// The loads are issued before the body, so their latency is hidden behind
// its work (the wait for them comes at the store, after it). One barrier
// per iteration suffices: it publishes stage (j + 1) % 2, and ends every
// read of stage j % 2 before iteration j + 1 overwrites it. Threads move
// the 16-byte chunks the cp.async pipeline moves (forEachChunk), as vector
// loads; the part of a chunk past the tensor's edge reads as zeros (on AMD
// whole and empty chunks load through a buffer resource, whose reads past
// the tensor's end return zeros without a mask). The
// same run-time alignment test as cp.async's picks between this loop and
// the loop as written. (On gfx9 global loads complete in order: a global
// load in the body also waits for the prefetch issued before it.)
//
//===----------------------------------------------------------------------===//

#include "PipelineStrategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

class RegisterPipelineBuilder {
public:
  RegisterPipelineBuilder(KernelContext &k, PatternRewriter &rewriter,
                          PipelinedOp loop, const PipelinePlan &plan)
      : k(k), rewriter(rewriter), loop(loop), plan(plan), loc(loop.getLoc()) {
  }

  /// Builds the pipelined loop at `b`'s insertion point.
  LogicalResult build(OpBuilder &b);

private:
  /// This thread's chunks of every producer in `iteration`, as vectors
  /// (zeros where `valid` does not hold or past the tensor's edge).
  SmallVector<Value> load(OpBuilder &b, Value iteration, Value valid);
  /// Stores `chunks` (from load) into `stage`. The chunks' places are
  /// enumerated again rather than kept from the loads: their arithmetic is
  /// CSE'd with the loads', and no shared offset stays live across the body.
  void store(OpBuilder &b, Value iteration, Value stage,
             ArrayRef<Value> chunks);

  KernelContext &k;
  PatternRewriter &rewriter;
  PipelinedOp loop;
  const PipelinePlan &plan;
  Location loc;
};

SmallVector<Value> RegisterPipelineBuilder::load(OpBuilder &b,
                                                 Value iteration,
                                                 Value valid) {
  SmallVector<Value> chunks;
  Value stage = k.constant(b, loc, 0); // unused: loads only read global
  for (CopyOp copy : plan.producers) {
    Value global = copy.getSource();
    auto globalType = cast<MemRefType>(global.getType());
    int64_t width = getProducerChunk(copy);
    auto vectorType = VectorType::get({width}, globalType.getElementType());
    Value zeros = arith::ConstantOp::create(
        b, loc, vectorType,
        DenseElementsAttr::get(vectorType,
                               b.getZeroAttr(globalType.getElementType())));
    // Lane i of a partial chunk is loaded when i < count (compared as i32
    // vectors: vector.create_mask's index operand does not survive every
    // target's lowering).
    Type i32 = b.getI32Type();
    auto lanesType = VectorType::get({width}, i32);
    Value lanes = arith::ConstantOp::create(
        b, loc, lanesType,
        DenseElementsAttr::get(lanesType,
                               llvm::to_vector(llvm::map_range(
                                   llvm::seq<int64_t>(0, width),
                                   [&](int64_t i) { return APInt(32, i); }))));
    // AMD: whole chunks and empty ones (rows past the edge, iterations past
    // the end) load through a buffer resource describing the tensor, whose
    // reads past its end return zeros: an empty chunk reads at row
    // dim(0), past the end, and needs no mask. A resource's extent and
    // offsets are 32-bit: larger tensors (`fits` false) load as elsewhere.
    Value fits;
    Value buffer = k.codegen.getZeroFillingView(b, loc, global, fits);
    forEachChunk(
        k, b, loop, copy, iteration, stage, valid,
        [&](const ProducerChunk &chunk) {
          Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              chunk.count,
                                              k.constant(b, loc, width));
          Value fast = whole;
          if (buffer)
            fast = arith::OrIOp::create(
                b, loc, whole,
                arith::AndIOp::create(
                    b, loc, fits,
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          chunk.count,
                                          k.constant(b, loc, 0))));
          auto loadWhole = [&](OpBuilder &lb, Location l) {
            scf::YieldOp::create(
                lb, l, vectorLoad(lb, l, vectorType, global, chunk.at));
          };
          auto ifOp = scf::IfOp::create(
              b, loc, fast,
              [&](OpBuilder &then, Location l) {
                if (!buffer)
                  return loadWhole(then, l);
                auto viaBuffer = [&](OpBuilder &bb, Location bl) {
                  SmallVector<Value> at(chunk.at);
                  at.front() = arith::SelectOp::create(
                      bb, bl, whole, at.front(),
                      memref::DimOp::create(bb, bl, global, 0));
                  for (Value &index : llvm::drop_begin(at))
                    index = arith::SelectOp::create(bb, bl, whole, index,
                                                    k.constant(bb, bl, 0));
                  scf::YieldOp::create(
                      bb, bl, vectorLoad(bb, bl, vectorType, buffer, at));
                };
                scf::YieldOp::create(
                    then, l,
                    scf::IfOp::create(then, l, fits, viaBuffer, loadWhole)
                        .getResult(0));
              },
              [&](OpBuilder &otherwise, Location l) {
                // Part of the chunk, or none of it: a masked load from an
                // address inside the tensor (its origin when none is).
                Value any = arith::CmpIOp::create(
                    otherwise, l, arith::CmpIPredicate::ne, chunk.count,
                    k.constant(otherwise, l, 0));
                SmallVector<Value> at;
                for (Value index : chunk.at)
                  at.push_back(arith::SelectOp::create(
                      otherwise, l, any, index, k.constant(otherwise, l, 0)));
                Value count = vector::BroadcastOp::create(
                    otherwise, l, lanesType,
                    arith::IndexCastOp::create(otherwise, l, i32,
                                               chunk.count));
                Value mask = arith::CmpIOp::create(
                    otherwise, l, arith::CmpIPredicate::slt, lanes, count);
                scf::YieldOp::create(
                    otherwise, l,
                    vector::MaskedLoadOp::create(otherwise, l, vectorType,
                                                 global, at, mask, zeros)
                        .getResult());
              });
          chunks.push_back(ifOp.getResult(0));
        });
  }
  return chunks;
}

void RegisterPipelineBuilder::store(OpBuilder &b, Value iteration, Value stage,
                                    ArrayRef<Value> chunks) {
  Value valid = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  size_t next = 0;
  for (CopyOp copy : plan.producers) {
    SharedStorage buffer = k.shared.lookup(copy.getDest());
    forEachChunk(k, b, loop, copy, iteration, stage, valid,
                 [&](const ProducerChunk &chunk) {
                   vectorStore(b, loc, chunks[next++], buffer.memory,
                               ValueRange{chunk.dst});
                 });
  }
  assert(next == chunks.size() && "loads and stores pair up");
}

LogicalResult RegisterPipelineBuilder::build(OpBuilder &b) {
  Value lower = loop.getLower(), upper = loop.getUpper(),
        step = loop.getStep();

  // Prologue: iteration 0 into stage 0, after a barrier (the buffers may
  // share memory with ones read before the loop).
  k.barrier(b, loc);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lower, upper);
  SmallVector<Value> firstChunks = load(b, lower, first);
  store(b, lower, k.constant(b, loc, 0), firstChunks);
  k.publishShared(b, loc);

  // The stage iteration j reads and the one it fills, swapped each time.
  auto forOp = scf::ForOp::create(
      b, loc, lower, upper, step,
      ValueRange{k.constant(b, loc, 0), k.constant(b, loc, 1)},
      [&](OpBuilder &nb, Location l, Value, ValueRange stages) {
        scf::YieldOp::create(nb, l, ValueRange{stages[1], stages[0]});
      });
  OpBuilder::InsertionGuard guard(b);
  Operation *end = forOp.getBody()->getTerminator();
  b.setInsertionPoint(end);
  Value iv = forOp.getInductionVar();
  Value readStage = forOp.getRegionIterArg(0);
  Value writeStage = forOp.getRegionIterArg(1);

  Value ahead = arith::AddIOp::create(b, loc, iv, step);
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ahead, upper);
  SmallVector<Value> chunks = load(b, ahead, valid);
  // The body goes here, between the loads and the stores.
  Operation *bodyEnd = arith::ConstantIndexOp::create(b, loc, 0);
  // The scheduler may not hoist the stores (and the wait for the loads they
  // store) above the body's MFMAs to save registers: the global loads'
  // latency would no longer hide behind the body.
  k.codegen.schedulingFence(b, loc);
  store(b, ahead, writeStage, chunks);
  k.publishShared(b, loc);

  b.setInsertionPoint(bodyEnd);
  LoweringScope scope = k.getScope();
  for (CopyOp copy : plan.producers)
    scope.staged[copy.getDest()] =
        k.getStage(b, loc, copy.getDest(), readStage);
  rewriter.inlineBlockBefore(&loop.getBody().front(), bodyEnd,
                             ValueRange{iv});
  rewriter.eraseOp(bodyEnd);
  for (CopyOp copy : plan.producers)
    rewriter.eraseOp(copy);
  // Every iteration ends with a barrier: after the loop, no thread reads
  // the buffers any more and they may be reused.
  return k.lowerBlock(*forOp.getBody(), rewriter, scope);
}

} // namespace

LogicalResult mlir::tile::gpu_lowering::buildRegisterPipeline(
    KernelContext &k, PatternRewriter &rewriter, PipelinedOp loop,
    const PipelinePlan &plan, OpBuilder &b) {
  return RegisterPipelineBuilder(k, rewriter, loop, plan).build(b);
}
