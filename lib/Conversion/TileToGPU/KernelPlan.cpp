//===- KernelPlan.cpp - How one tile.kernel is laid out on a GPU ----------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "KernelPlan.h"
#include "GpuLowering.h"

#include "tile/Dialect/Tile/Transforms/CompileBounds.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

std::optional<llvm::DenseSet<Value>>
mlir::tile::gpu_lowering::findWrittenBuffers(Operation *scope) {
  llvm::DenseSet<Value> written;
  WalkResult result = scope->walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      if (!effect.getValue())
        return WalkResult::interrupt();
      written.insert(getViewRoot(effect.getValue()));
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return std::nullopt;
  return written;
}

/// The tensors from outside `kernel` that it reads with memref.load and
/// never writes (none when an op may write memory it does not name).
static llvm::DenseSet<Value> findConstantTensors(KernelOp kernel) {
  std::optional<llvm::DenseSet<Value>> written = findWrittenBuffers(kernel);
  llvm::DenseSet<Value> constant;
  if (!written)
    return constant;
  kernel.walk([&](memref::LoadOp load) {
    Value root = getViewRoot(load.getMemRef());
    if (!kernel->isAncestor(root.getParentBlock()->getParentOp()) &&
        !written->contains(root))
      constant.insert(root);
  });
  return constant;
}

FailureOr<KernelPlan> KernelPlan::build(KernelOp kernel,
                                        const TargetInfo &target,
                                        const GpuCodegenOptions &options) {
  KernelPlan plan;
  plan.target = target;
  plan.options = options;
  plan.threads = kernel.getThreadsAttr().getInt();
  plan.persistent = kernel.getPersistent();
  plan.threadRanges = hasThreadRanges(kernel);
  kernel.walk(
      [&](AllocBarrierOp op) { plan.barrierCount += op.getType().getCount(); });
  if (!target.isNVIDIA()) {
    // AMD has neither named barriers nor mbarriers (planned: counters in
    // LDS, docs/design.md).
    WalkResult found = kernel.walk([](Operation *op) {
      if (isa<ThreadRangeOp, AllocBarrierOp>(op)) {
        op->emitOpError("is not supported on ")
            << "AMD GPUs yet: thread ranges and barriers (TileLang's T.ws, "
               "T.alloc_barrier) are lowered on NVIDIA GPUs and the CPU";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (found.wasInterrupted())
      return failure();
  }
  plan.constantTensors = findConstantTensors(kernel);
  if (failed(plan.planBuffers(kernel)) ||
      failed(checkCompileBounds(kernel, target)))
    return failure();

  // What each op's lowering decides ahead: gemms and fragment copies as
  // layout inference planned them, then (post-order) the loops around them.
  WalkResult result = kernel.walk([&](GpuLoweringOpInterface op) {
    return failed(op.plan(plan)) ? WalkResult::interrupt()
                                 : WalkResult::advance();
  });
  if (result.wasInterrupted() || failed(plan.planSharedMemory(kernel)))
    return failure();
  planWarpSpecialization(plan, kernel);
  return plan;
}

LogicalResult KernelPlan::planBuffers(KernelOp kernel) {
  WalkResult result = kernel.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
      MemRefType type = alloc.getType();
      LayoutAttrInterface attr = getBufferLayoutAttr(alloc.getResult());
      FailureOr<Layout> layout =
          attr.getLayout(type.getShape(), type.getElementType(),
                         [&] { return alloc.emitOpError(); });
      if (failed(layout))
        return WalkResult::interrupt();
      SharedBufferPlan &buffer = shared[alloc.getResult()];
      buffer.layout = *layout;
      buffer.type = type;
      buffer.stageElements = layout->getOutExtents()[0];
      return WalkResult::advance();
    }
    // Fragments and loops need their layouts: the GPU code derives from
    // them.
    auto fragment = dyn_cast<FragmentOp>(op);
    auto loop = dyn_cast<ParallelOp>(op);
    if (!fragment && !loop)
      return WalkResult::advance();
    LayoutAttrInterface attr =
        fragment ? fragment.getLayoutAttr() : loop.getLayoutAttr();
    if (!attr || !attr.isFragmentLayout()) {
      op->emitOpError("has no layout; run tile-infer-layouts before lowering "
                      "to the GPU");
      return WalkResult::interrupt();
    }
    // A loop's layout is over its iteration space (element type unused).
    ArrayRef<int64_t> shape =
        fragment ? fragment.getType().getShape() : loop.getShape();
    Type element = fragment ? fragment.getType().getElementType()
                            : IndexType::get(op->getContext());
    FailureOr<Layout> layout =
        attr.getLayout(shape, element, [&] { return op->emitOpError(); });
    if (failed(layout))
      return WalkResult::interrupt();
    if (fragment)
      fragments[fragment.getResult()] = *layout;
    else
      loops[op] = *layout;
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult KernelPlan::planSharedMemory(KernelOp kernel) {
  // Staging stores through shared memory is an optional gain, taken only
  // in memory the block needs anyway (more would cost occupancy).
  int64_t needed = placeSharedMemory(kernel, /*staging=*/false);
  // So is pipelining through registers, which doubles its buffers: while
  // the block would not fit, the loop with the largest stages runs as
  // written.
  while (needed > target.sharedMemoryBytes &&
         dropLargestRegisterPipeline(kernel))
    needed = placeSharedMemory(kernel, /*staging=*/false);
  if (options.deepenPipelines && needed <= target.sharedMemoryBytes)
    needed = deepenPipelines(kernel, needed);
  // A persistent kernel has its SM to itself: staging is taken whenever it
  // fits.
  int64_t stagingLimit = persistent ? target.sharedMemoryBytes : needed;
  if (placeSharedMemory(kernel, /*staging=*/true) > stagingLimit)
    placeSharedMemory(kernel, /*staging=*/false);
  if (needed > target.sharedMemoryBytes)
    return kernel.emitOpError("needs ")
           << needed << " bytes of shared memory; " << target.chip
           << " allows " << target.sharedMemoryBytes;
  return success();
}

/// The stages a pipeline written with fewer gets where that costs no
/// occupancy: with 2 or 3 stages of 32- or 64-wide K steps the copies'
/// latency outlasts the stages in flight (on an H100, a 128 x 128 x 64 GEMM
/// at 3 stages 480-494 TFLOP/s, at 4 566-579, at 5 577-584; an int8
/// dequantizing one at 2 stages 183, at 4 316).
static constexpr int64_t kDeepStages = 4;

int64_t KernelPlan::estimateBlocksPerMultiprocessor(int64_t sharedBytes) const {
  // The registers a thread needs: its fragments' slots and some for the
  // rest (addresses, loop state); every thread of the launch gets as many.
  int64_t registers = 32;
  for (auto &[value, layout] : fragments) {
    Type element = cast<FragmentType>(value.getType()).getElementType();
    int64_t bits =
        element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 32;
    registers += llvm::divideCeil(getSlotExtent(layout) * bits, 32);
  }
  registers = std::min(registers, target.registersPerThread);
  int64_t launch = threads + (target.has(Feature::Tma) && options.warpSpecialize
                                  ? target.warpgroupSize
                                  : 0);
  int64_t byRegisters =
      std::max<int64_t>(1, target.registerFileSize / (launch * registers));
  int64_t byShared =
      target.sharedMemoryBytes / std::max<int64_t>(1, sharedBytes);
  return std::min(byRegisters, byShared);
}

int64_t KernelPlan::deepenPipelines(KernelOp kernel, int64_t needed) {
  if (!target.isNVIDIA() || persistent)
    return needed;
  int64_t blocks = estimateBlocksPerMultiprocessor(needed);
  SmallVector<PipelinedOp> loops;
  kernel.walk([&](PipelinedOp loop) { loops.push_back(loop); });
  for (PipelinedOp loop : loops) {
    auto it = pipelines.find(loop);
    // A schedule the user wrote stage by stage is kept, and so is a loop of
    // several gemms (attention's), whose longer body covers the copies:
    // deepened, TileLang's GQA backward example ran at 132 TFLOP/s instead
    // of 170 on an H100.
    auto gemms = loop.getBody().front().getOps<GemmOp>();
    if (it == pipelines.end() || !it->second.hasProducers() ||
        it->second.registers || loop.getStage() ||
        std::distance(gemms.begin(), gemms.end()) != 1)
      continue;
    PipelinePlan &pipeline = it->second;
    auto setStages = [&](int64_t stages) {
      pipeline.stages = stages;
      for (Value buffer : pipeline.getStagedBuffers())
        shared[buffer].stages = stages;
    };
    while (pipeline.stages < kDeepStages) {
      setStages(pipeline.stages + 1);
      int64_t more = placeSharedMemory(kernel, /*staging=*/false);
      if (more > target.sharedMemoryBytes ||
          estimateBlocksPerMultiprocessor(more) < blocks) {
        setStages(pipeline.stages - 1);
        break;
      }
      needed = more;
    }
  }
  return placeSharedMemory(kernel, /*staging=*/false);
}

bool KernelPlan::dropLargestRegisterPipeline(KernelOp kernel) {
  PipelinePlan *largest = nullptr;
  int64_t largestBytes = 0;
  // In the kernel's order, so that the first of equals goes.
  kernel.walk([&](PipelinedOp loop) {
    auto it = pipelines.find(loop);
    if (it == pipelines.end() || !it->second.registers)
      return;
    PipelinePlan &pipeline = it->second;
    int64_t bytes = 0;
    for (CopyOp producer : pipeline.producers)
      bytes += shared[producer.getDest()].stageBytes();
    if (!largest || bytes > largestBytes) {
      largest = &pipeline;
      largestBytes = bytes;
    }
  });
  if (!largest)
    return false;
  for (CopyOp producer : largest->producers)
    shared[producer.getDest()].stages = 1;
  *largest = PipelinePlan();
  return true;
}

int64_t KernelPlan::placeSharedMemory(KernelOp kernel, bool staging) {
  sharedBytes = 0;
  scratch.clear();
  // What needs shared memory, and from which to which op of the kernel's
  // body (loops count whole) it is live.
  struct Request {
    Operation *op;
    int64_t bytes, first, last;
    int64_t offset = -1;
  };
  Block &body = kernel.getBody().front();
  llvm::DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  auto positionOf = [&](Operation *op) {
    return position.lookup(body.findAncestorOpInBlock(*op));
  };
  // In a persistent kernel, TMA stages may be filled for the next tile
  // while this one's code after the loop runs: they are live throughout.
  llvm::DenseSet<Value> streamed;
  if (persistent)
    for (auto &[op, pipeline] : pipelines)
      if (pipeline.tma)
        for (CopyOp producer : pipeline.producers)
          streamed.insert(producer.getDest());
  SmallVector<Request> requests;
  kernel.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
      const SharedBufferPlan &buffer = shared[alloc.getResult()];
      int64_t bytes = buffer.stages * buffer.stageBytes();
      // Live from its first use to its last (allocation is free).
      Request request{op, bytes, positionOf(op), positionOf(op)};
      for (auto [i, user] : llvm::enumerate(alloc->getUsers())) {
        int64_t at = positionOf(user);
        request.first = i == 0 ? at : std::min(request.first, at);
        request.last = i == 0 ? at : std::max(request.last, at);
      }
      if (streamed.contains(alloc.getResult()) || threadRanges) {
        request.first = 0;
        request.last = static_cast<int64_t>(body.getOperations().size());
      }
      requests.push_back(request);
      return;
    }
    auto lowering = dyn_cast<GpuLoweringOpInterface>(op);
    ScratchRequest scratch =
        lowering ? lowering.getScratch(*this, staging) : ScratchRequest();
    if (scratch.bytes == 0)
      return;
    Request request{op, scratch.bytes, positionOf(op), positionOf(op)};
    if (scratch.wholeBody || threadRanges) {
      request.first = 0;
      request.last = static_cast<int64_t>(body.getOperations().size());
    }
    requests.push_back(request);
  });

  // Buffers whose lives do not overlap share memory: largest first, each at
  // the lowest aligned offset clear of the live ones placed so far. Every
  // write to shared memory is preceded by a barrier, so a buffer's first
  // writes cannot overtake the last reads of the one it replaces.
  SmallVector<Request *> order;
  for (Request &request : requests)
    order.push_back(&request);
  // Largest first; ties in program order (pointers into `requests`).
  llvm::sort(order, [](const Request *a, const Request *b) {
    return a->bytes != b->bytes ? a->bytes > b->bytes : a < b;
  });
  for (size_t i = 0; i < order.size(); ++i) {
    Request *request = order[i];
    SmallVector<Request *> live;
    for (Request *placed : ArrayRef(order).take_front(i))
      if (placed->first <= request->last && request->first <= placed->last)
        live.push_back(placed);
    SmallVector<int64_t> candidates = {0};
    for (Request *other : live)
      candidates.push_back(
          llvm::alignTo(other->offset + other->bytes, kSharedAlignment));
    llvm::sort(candidates);
    for (int64_t offset : candidates) {
      bool clear = llvm::all_of(live, [&](Request *other) {
        return offset + request->bytes <= other->offset ||
               other->offset + other->bytes <= offset;
      });
      if (clear) {
        request->offset = offset;
        break;
      }
    }
    sharedBytes = std::max(sharedBytes, request->offset + request->bytes);
    if (auto alloc = dyn_cast<AllocSharedOp>(request->op))
      shared[alloc.getResult()].offset = request->offset;
    else
      scratch[request->op] = request->offset;
  }
  // TMA pipelines add their mbarriers (static shared memory) and the room
  // to align the dynamic block after them.
  int64_t needed = sharedBytes;
  for (auto &[op, pipeline] : pipelines)
    if (pipeline.tma)
      needed += 16 * pipeline.stages;
  needed += 8 * barrierCount;
  if (needed != sharedBytes)
    needed += kSharedAlignment;
  return needed;
}
