//===- Pipelining.cpp - tile.pipelined as a software pipeline ----------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.pipelined on the GPU: which global-to-shared copies of a loop run
// ahead (planPipeline), and the loop's versions, chosen at run time: the
// TMA pipeline where planned and the host found the tensors aligned, the
// cp.async pipeline (through registers on targets without cp.async) where
// the chunks are aligned, else the loop as written.
// The copy strategies are in Strategies/ (PipelineStrategies.h).
//
//===----------------------------------------------------------------------===//

#include "Strategies/PipelineStrategies.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

/// Whether `op` reads a tensor that the kernel never writes (a table of
/// block indices, the sequences' lengths): the same value wherever and
/// whenever the kernel reads it, so a pipeline may read it for a later
/// iteration, or again in its producer warpgroup.
static bool isConstantTensorRead(const KernelPlan &plan, Operation *op) {
  auto load = dyn_cast<memref::LoadOp>(op);
  return load && plan.constantTensors.contains(getViewRoot(load.getMemRef()));
}

/// The ops of `loop`'s body that `copy`'s offsets are computed from, in
/// order: pure ops without regions, and reads of tensors the kernel does
/// not write; failure when another op is among them.
FailureOr<SetVector<Operation *>>
mlir::tile::gpu_lowering::getOffsetSlice(const KernelPlan &plan,
                                         PipelinedOp loop, ValueRange roots) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true;
  options.omitBlockArguments = true;
  options.filter = [&](Operation *op) {
    return loop.getBody().isAncestor(op->getParentRegion());
  };
  for (Value root : roots)
    if (failed(getBackwardSlice(root, &slice, options)))
      return failure();
  for (Operation *op : slice)
    if (op->getNumRegions() != 0 ||
        !(isPure(op) || isConstantTensorRead(plan, op)) ||
        op->getBlock() != &loop.getBody().front())
      return failure();
  slice = mlir::topologicalSort(slice);
  return slice;
}

FailureOr<SetVector<Operation *>>
mlir::tile::gpu_lowering::getOffsetSlice(const KernelPlan &plan,
                                         PipelinedOp loop, CopyOp copy) {
  return getOffsetSlice(plan, loop, copy.getOffsets());
}

void mlir::tile::gpu_lowering::cloneOffsetSlice(const KernelPlan &plan,
                                                OpBuilder &b, PipelinedOp loop,
                                                ValueRange roots,
                                                Value iteration, Value valid,
                                                IRMapping &mapping) {
  mapping.map(loop.getInductionVar(), iteration);
  bool guard = valid && !matchPattern(valid, m_One());
  SetVector<Operation *> slice = *getOffsetSlice(plan, loop, roots);
  for (Operation *op : slice) {
    if (!guard || isPure(op)) {
      b.clone(*op, mapping);
      continue;
    }
    // A table read for an iteration past the loop's end may be past the
    // table's end: made only for valid iterations (0 otherwise, unused).
    Location loc = op->getLoc();
    Type type = op->getResult(0).getType();
    auto read = scf::IfOp::create(
        b, loc, valid,
        [&](OpBuilder &then, Location at) {
          scf::YieldOp::create(then, at,
                               then.clone(*op, mapping)->getResults());
        },
        [&](OpBuilder &otherwise, Location at) {
          Value zero = arith::ConstantOp::create(
              otherwise, at, cast<TypedAttr>(otherwise.getZeroAttr(type)));
          scf::YieldOp::create(otherwise, at, zero);
        });
    mapping.map(op->getResult(0), read.getResult(0));
  }
}

/// The ops of `scope` (outside `loop`) that `loop`'s bounds and its
/// producers' offsets are computed from, in order; failure when one of
/// them has memory effects or regions or is not in `scope`'s block.
FailureOr<SetVector<Operation *>> mlir::tile::gpu_lowering::getProducerSetup(
    const KernelPlan &plan, PipelinedOp loop, ArrayRef<CopyOp> producers,
    Region &scope) {
  SmallVector<Value> roots{loop.getLower(), loop.getUpper(), loop.getStep()};
  for (CopyOp copy : producers) {
    FailureOr<SetVector<Operation *>> slice = getOffsetSlice(plan, loop, copy);
    if (failed(slice))
      return failure();
    llvm::append_range(roots, copy.getOffsets());
    for (Operation *op : *slice)
      llvm::append_range(roots, op->getOperands());
    // A TMA load through a slice takes the slice's offsets as coordinates.
    if (auto view = copy.getSource().getDefiningOp<memref::SubViewOp>())
      llvm::append_range(roots, view.getOffsets());
  }
  SetVector<Operation *> setup;
  BackwardSliceOptions options;
  options.inclusive = true;
  options.omitBlockArguments = true;
  options.filter = [&](Operation *op) {
    return scope.isAncestor(op->getParentRegion()) && !loop->isAncestor(op);
  };
  for (Value root : roots) {
    Operation *def = root.getDefiningOp();
    if (!def || !options.filter(def))
      continue;
    if (failed(getBackwardSlice(root, &setup, options)))
      return failure();
  }
  // Without memory effects is enough (a persistent kernel's tile ids
  // divide), or reads of tensors the kernel does not write: the clones run
  // where the originals do, unconditionally.
  for (Operation *op : setup)
    if (op->getNumRegions() != 0 ||
        !(isMemoryEffectFree(op) || isConstantTensorRead(plan, op)) ||
        op->getBlock() != &scope.front())
      return failure();
  return mlir::topologicalSort(setup);
}

/// Whether `op` or an op nested in it uses one of `values`.
static bool usesAny(Operation *op, ArrayRef<Value> values) {
  WalkResult result = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (llvm::is_contained(values, operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Plans PipelinePlan::deferredGemm for a warp-specialized loop of three
/// stages or more whose body is [..., G1, ..., G2]: exactly two gemms, both
/// wgmma into f32, G2 last and reading a stage of the pipeline as its B;
/// nothing before G1 touches G2's A or C (in the next iteration they would
/// not have G2's result yet), and no other op reads G2's B. A copy of G1's
/// C into G2's A at the wait point moves to the start of the next iteration
/// (PipelinePlan::deferredConvert).
static void planDeferredGemm(const KernelPlan &plan, PipelinedOp loop,
                             PipelinePlan &pipeline) {
  // Stage j is given back only once G2 of iteration j is done, in
  // iteration j + 1: with two stages the producer would fill the next one
  // too late (measured 35% slower on an H100).
  constexpr int64_t kMinStages = 3;
  Block &body = loop.getBody().front();
  SmallVector<GemmOp> gemms(body.getOps<GemmOp>());
  if (pipeline.stages < kMinStages || gemms.size() != 2 ||
      &body.back() != gemms[1].getOperation() || !pipeline.asyncGemms.empty())
    return;
  GemmOp first = gemms[0], last = gemms[1];
  for (GemmOp gemm : gemms) {
    auto c = cast<FragmentType>(gemm.getC().getType());
    if (plan.gemms.find(gemm)->second.instruction != GemmInstruction::Wgmma ||
        !c.getElementType().isF32())
      return;
  }
  // G2 accumulates across iterations; G1 may start from zero.
  if (last.getClearAccum())
    return;
  if (!llvm::any_of(pipeline.producers,
                    [&](CopyOp copy) { return copy.getDest() == last.getB(); }))
    return;
  SmallVector<Value> operands = {last.getA(), last.getC()};
  if (llvm::is_contained(operands, first.getC()) ||
      llvm::is_contained(operands, first.getA()) ||
      llvm::is_contained(operands, first.getB()))
    return;
  for (Operation *user : last.getB().getUsers()) {
    auto copy = dyn_cast<CopyOp>(user);
    if (user != last.getOperation() && loop->isAncestor(user) &&
        !(copy && copy.getDest() == last.getB()))
      return;
  }
  // The producers' copies are the producer warpgroup's, not the body's.
  auto isProducer = [&](Operation *op) {
    auto copy = dyn_cast<CopyOp>(op);
    return copy && llvm::is_contained(pipeline.producers, copy);
  };
  Operation *wait = nullptr;
  bool afterFirst = false;
  for (Operation &op : body) {
    if (&op == first.getOperation()) {
      afterFirst = true;
      continue;
    }
    if (&op == last.getOperation())
      break;
    if (isProducer(&op) || !usesAny(&op, operands))
      continue;
    if (!afterFirst)
      return;
    wait = &op;
    break;
  }
  // The ops between the wait and G2 go with G2 when they may run in the
  // next iteration right after G1 (still in flight): they use no value of
  // the body, only buffers from outside the loop (G2's operands are such:
  // KernelPlan admits fragments and shared buffers allocated outside
  // pipelined loops only), none of G1's, and none that the ops before G1
  // touch (those run again first). All of them or none.
  SmallVector<Operation *> with;
  bool movable = wait != nullptr;
  for (Operation *op = wait ? wait->getNextNode() : nullptr;
       movable && op != last.getOperation(); op = op->getNextNode()) {
    SmallVector<Value> buffers;
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        Operation *def = v.getDefiningOp();
        Operation *owner = def ? def : v.getParentBlock()->getParentOp();
        if (op->isAncestor(owner))
          continue;
        if (loop->isAncestor(owner))
          movable = false;
        else if (isa<FragmentType, MemRefType>(v.getType()))
          buffers.push_back(v);
      }
    });
    if (isProducer(op) || llvm::is_contained(buffers, first.getA()) ||
        llvm::is_contained(buffers, first.getB()) ||
        llvm::is_contained(buffers, first.getC()))
      movable = false;
    for (Operation &before : body) {
      if (&before == first.getOperation())
        break;
      if (usesAny(&before, buffers))
        movable = false;
    }
    with.push_back(op);
  }
  if (!movable)
    with.clear();
  // The wait point W = copy G1.C -> G2.A moves to the start of the next
  // iteration: there it still reads G1's result (only the ops before G1
  // rewrite it, and they follow), and G2 of that iteration is issued after
  // it. The wait for G2 then moves to the start of the iteration after
  // next, before that iteration's W (TmaPipeline.cpp).
  if (auto copy = dyn_cast_or_null<CopyOp>(wait);
      movable && copy && copy.getSource() == first.getC() &&
      copy.getDest() == last.getA() &&
      llvm::none_of(copy->getOperands(), [&](Value v) {
        return loop->isAncestor(v.getParentBlock()->getParentOp());
      })) {
    pipeline.deferredConvert = copy;
    wait = nullptr;
  }
  pipeline.deferredWith = std::move(with);
  pipeline.deferredGemm = last;
  pipeline.deferredAfter = first;
  pipeline.deferredWait = wait;
}

void mlir::tile::gpu_lowering::planWarpSpecialization(KernelPlan &plan,
                                                      KernelOp kernel) {
  if (!plan.options.warpSpecialize || plan.target.warpgroupSize == 0 ||
      plan.threads % plan.target.warpgroupSize != 0 ||
      plan.threads + plan.getProducerThreads() > plan.target.maxThreadsPerBlock)
    return;
  Operation *chosen = nullptr;
  for (auto &[op, pipeline] : plan.pipelines) {
    if (!pipeline.tma)
      continue;
    if (chosen)
      return; // one producer warpgroup serves one loop
    chosen = op;
  }
  if (!chosen || chosen->getParentOp() != kernel.getOperation())
    return;
  auto loop = cast<PipelinedOp>(chosen);
  PipelinePlan &pipeline = plan.pipelines.find(chosen)->second;
  if (failed(
          getProducerSetup(plan, loop, pipeline.producers, kernel.getBody())))
    return;
  plan.warpSpecialized = chosen;
  planDeferredGemm(plan, loop, pipeline);

  // Clusters of 2 along the launch's x: without rasterization, or with
  // row panels of even height, the two blocks' ids differ in the first id
  // only (when the grid's x is even, which the host checks). Not for a
  // persistent kernel, whose blocks walk tiles on their own.
  RasterAttr raster = kernel.getRasterAttr();
  if (!plan.options.tmaMulticast || plan.persistent ||
      (raster &&
       (raster.getOrder() != RasterOrder::Row || raster.getPanel() % 2 != 0)))
    return;
  // The pair's blocks differ in block id 0.
  if (getBlockIdMask(kernel,
                     {loop.getLower(), loop.getUpper(), loop.getStep()}) &
      1)
    return;
  for (CopyOp copy : pipeline.producers)
    if (!(getBlockIdMask(kernel, copy.getOffsets()) & 1) &&
        canMulticast(plan, copy))
      pipeline.multicast.push_back(copy);
}

/// Whether the first op of `loop`'s body that touches `buffer` writes all
/// of it without reading it: a tile.copy into it, or a tile.parallel over
/// its shape storing to it at exactly its induction variables (not under a
/// branch) and loading nothing from it; and nothing outside the loop uses
/// it.
static bool isFilledEachIteration(PipelinedOp loop, Value buffer) {
  auto alloc = buffer.getDefiningOp<AllocSharedOp>();
  if (!alloc || loop->isAncestor(alloc) ||
      llvm::any_of(buffer.getUsers(),
                   [&](Operation *user) { return !loop->isAncestor(user); }))
    return false;
  for (Operation &op : loop.getBody().front()) {
    if (!usesAny(&op, buffer))
      continue;
    if (auto copy = dyn_cast<CopyOp>(op))
      return copy.getDest() == buffer && copy.getSource() != buffer;
    auto parallel = dyn_cast<ParallelOp>(op);
    if (!parallel ||
        parallel.getShape() != cast<MemRefType>(buffer.getType()).getShape())
      return false;
    bool stored = false, other = false;
    parallel.getBody().walk([&](Operation *nested) {
      if (!llvm::is_contained(nested->getOperands(), buffer))
        return;
      auto store = dyn_cast<StoreOp>(nested);
      if (store && store->getBlock() == &parallel.getBody().front() &&
          store.getBuffer() == buffer && store.getValue() != buffer &&
          llvm::equal(store.getIndices(), parallel.getInductionVars()))
        stored = true;
      else
        other = true;
    });
    return stored && !other;
  }
  return false;
}

/// The shared operands of `gemm` (to be left in flight in `loop`) that the
/// loop writes other than through its producers become rotated buffers of
/// `plan` where each iteration fills them anew; fails where one cannot.
static LogicalResult rotateOperands(PipelinedOp loop, PipelinePlan &plan,
                                    GemmOp gemm) {
  std::optional<llvm::DenseSet<Value>> written = findWrittenBuffers(loop);
  if (!written)
    return failure();
  SmallVector<Value> staged = plan.getStagedBuffers();
  SmallVector<Value> rotate;
  for (Value operand : {gemm.getA(), gemm.getB()}) {
    if (!isSharedMemRef(operand.getType()) ||
        llvm::is_contained(staged, operand) || !written->contains(operand))
      continue;
    if (!isFilledEachIteration(loop, operand))
      return failure();
    rotate.push_back(operand);
  }
  llvm::append_range(plan.rotated, rotate);
  return success();
}

/// The schedule of `loop`; fails with a diagnostic on a schedule it cannot
/// honor.
static FailureOr<PipelinePlan> planPipeline(const KernelPlan &kernelPlan,
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
  if (stages < 2)
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
  // tile.im2col producers (gathers) run ahead on cp.async only (the
  // register pipeline and TMA move tile.copy tiles).
  bool cpAsync = kernelPlan.target.has(Feature::CpAsync);
  for (auto [i, op] : llvm::enumerate(body)) {
    auto copy = dyn_cast<CopyOp>(op);
    auto gather = dyn_cast<Im2ColOp>(op);
    bool early = stageOf && (*stageOf)[i] < lastStage;
    // Index arithmetic goes wherever its users are.
    if (!copy && !gather && op.getNumRegions() == 0 && isPure(&op))
      continue;
    std::string why =
        copy     ? whyNotProducer(kernelPlan, loop, copy)
        : !gather ? "it is not a copy"
        : cpAsync ? whyNotIm2ColProducer(kernelPlan, loop, gather)
                  : "the target has no cp.async to gather with";
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
    if (copy)
      plan.producers.push_back(copy);
    else
      plan.gathers.push_back(gather);
  }
  if (!plan.hasProducers())
    return plan;
  if (!kernelPlan.target.has(Feature::CpAsync)) {
    plan.registers = true;
    plan.stages = 2;
    return plan;
  }
  plan.stages = stages;
  plan.tma = !plan.producers.empty() && plan.gathers.empty() &&
             kernelPlan.target.has(Feature::Tma) &&
             llvm::all_of(plan.producers, [&](CopyOp copy) {
               return isTmaLoad(kernelPlan, copy);
             });
  if (plan.tma)
    for (GemmOp gemm : body.getOps<GemmOp>())
      if (canStayInFlight(kernelPlan, loop, gemm) &&
          succeeded(rotateOperands(loop, plan, gemm)))
        plan.asyncGemms.push_back(gemm);
  return plan;
}

namespace {

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


struct PipelinedLowering
    : public GpuLoweringOpInterface::ExternalModel<PipelinedLowering,
                                                   PipelinedOp> {
  /// The loop's pipeline (post-order: its gemms are planned already); its
  /// producers' buffers get its stages.
  LogicalResult plan(Operation *op, KernelPlan &kernel) const {
    // Thread ranges hand stages over with the kernel's own barriers.
    if (kernel.threadRanges)
      return success();
    FailureOr<PipelinePlan> pipeline =
        planPipeline(kernel, cast<PipelinedOp>(op));
    if (failed(pipeline))
      return failure();
    for (Value buffer : pipeline->getStagedBuffers())
      kernel.shared[buffer].stages = pipeline->stages;
    if (pipeline->tma)
      kernel.asyncProxyUsesShared = true;
    kernel.pipelines[op] = std::move(*pipeline);
    return success();
  }

  /// The loop's versions (TMA, cp.async or registers, as written), chosen
  /// at run time.
  LogicalResult lower(Operation *op, KernelContext &k,
                      PatternRewriter &rewriter) const {
    auto loop = cast<PipelinedOp>(op);
    auto it = k.plan.pipelines.find(k.getPlanned(loop));
    if (it == k.plan.pipelines.end() || !it->second.hasProducers())
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
    for (Im2ColOp gather : plan.gathers) {
      Value ok = buildIm2ColAlignment(b, loc, gather);
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
      for (Im2ColOp &gather : mapped.gathers)
        gather = cast<Im2ColOp>(mapping.lookup(gather.getOperation()));
      return std::make_pair(copy, std::move(mapped));
    };
    scf::IfOp tmaIf;
    if (plan.tma) {
      tmaIf = scf::IfOp::create(b, loc, k.hopper.tmaReady.lookup(loop),
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
    if (failed(plan.registers
                   ? buildRegisterPipeline(k, rewriter, cpAsyncLoop,
                                           cpAsyncPlan, b)
                   : buildCpAsyncPipeline(k, rewriter, cpAsyncLoop,
                                          cpAsyncPlan, b)))
      return failure();
    rewriter.eraseOp(cpAsyncLoop);
    if (plan.tma) {
      b.setInsertionPoint(tmaIf.thenBlock()->getTerminator());
      if (failed(buildTmaPipeline(k, rewriter, loop, plan, b)))
        return failure();
      rewriter.eraseOp(loop);
    }
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::attachPipelinedLowering(MLIRContext *context) {
  PipelinedOp::attachInterface<PipelinedLowering>(*context);
}

