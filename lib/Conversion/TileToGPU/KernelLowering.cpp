//===- KernelLowering.cpp - One tile.kernel to one gpu.launch -------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

/// Shared buffers start at multiples of this (what TMA's 128-byte swizzle
/// needs of absolute addresses).
static constexpr int64_t kSharedAlignment = 1024;

KernelLowering::KernelLowering(RewriterBase &rewriter, KernelOp kernel,
                               const TargetInfo &target)
    : rewriter(rewriter), kernel(kernel), target(target),
      threads(kernel.getThreadsAttr().getInt()) {}

Value KernelLowering::constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

void KernelLowering::barrier(OpBuilder &b, Location loc) {
  gpu::BarrierOp::create(b, loc);
}

//===----------------------------------------------------------------------===//
// Layout arithmetic
//===----------------------------------------------------------------------===//

namespace {
/// The thread digits of a fragment layout (logical dims and replicas).
SmallVector<LayoutFactor> threadFactors(const Layout &layout) {
  SmallVector<LayoutFactor> result;
  for (const Layout::DimFactors &dim : layout.getDims())
    for (const LayoutFactor &f : dim)
      if (f.outDim == kThreadAxis && f.size > 1)
        result.push_back(f);
  return result;
}

/// The threads of a layout form the box [0, extent) (no holes).
bool threadsAreCompact(const Layout &layout) {
  SmallVector<LayoutFactor> factors = threadFactors(layout);
  llvm::sort(factors, [](const LayoutFactor &a, const LayoutFactor &b) {
    return a.stride < b.stride;
  });
  int64_t expected = 1;
  for (const LayoutFactor &f : factors) {
    if (f.stride != expected)
      return false;
    expected *= f.size;
  }
  return true;
}

/// The value of one digit of `value` (a thread id or a slot).
int64_t digitOf(int64_t value, const LayoutFactor &f) {
  return (value / f.stride) % f.size;
}

/// Whether `value` is exactly representable by the factors on `axis`
/// (including replicas when `axis` is the thread axis).
bool reconstructs(const Layout &layout, unsigned axis, int64_t value) {
  int64_t sum = 0;
  for (const Layout::DimFactors &dim : layout.getDims())
    for (const LayoutFactor &f : dim)
      if (f.outDim == axis && f.size > 1)
        sum += digitOf(value, f) * f.stride;
  return sum == value;
}

/// Logical index (and copy) held at (thread, slot), evaluated statically.
SmallVector<int64_t> evalIndex(const Layout &layout, int64_t thread,
                               int64_t slot) {
  SmallVector<int64_t> index;
  for (const Layout::DimFactors &dim : layout.getDims()) {
    int64_t value = 0, position = 1;
    for (const LayoutFactor &f : llvm::reverse(dim)) {
      int64_t digit =
          f.outDim == kThreadAxis ? digitOf(thread, f) : digitOf(slot, f);
      value += digit * position;
      position *= f.size;
    }
    index.push_back(value);
  }
  return index;
}
} // namespace

SmallVector<Value> KernelLowering::fragmentIndex(OpBuilder &b, Location loc,
                                                 const Layout &fragment,
                                                 int64_t slot, Value thread) {
  if (!thread)
    thread = threadId;
  int64_t threadCount = thread == threadId ? threads : getThreadExtent(fragment);
  SmallVector<Value> index;
  for (const Layout::DimFactors &dim : fragment.getDims().drop_back()) {
    int64_t staticPart = 0, position = 1;
    Value dynamicPart;
    for (const LayoutFactor &f : llvm::reverse(dim)) {
      if (f.outDim == kSlotAxis) {
        staticPart += digitOf(slot, f) * position;
      } else if (f.size > 1) {
        Value digit = thread;
        if (f.stride != 1)
          digit = arith::DivUIOp::create(b, loc, digit,
                                         constant(b, loc, f.stride));
        if (f.stride * f.size < threadCount)
          digit = arith::RemUIOp::create(b, loc, digit,
                                         constant(b, loc, f.size));
        if (position != 1)
          digit = arith::MulIOp::create(b, loc, digit,
                                        constant(b, loc, position));
        dynamicPart = dynamicPart
                          ? arith::AddIOp::create(b, loc, dynamicPart, digit)
                                .getResult()
                          : digit;
      }
      position *= f.size;
    }
    Value value = constant(b, loc, staticPart);
    if (dynamicPart)
      value = staticPart ? arith::AddIOp::create(b, loc, dynamicPart, value)
                               .getResult()
                         : dynamicPart;
    index.push_back(value);
  }
  return index;
}

bool KernelLowering::isSlotUsed(const Layout &fragment, int64_t slot) {
  return reconstructs(fragment, kSlotAxis, slot);
}

Value KernelLowering::ownsSlot(OpBuilder &b, Location loc,
                               const Layout &fragment, int64_t slot,
                               bool firstCopyOnly) {
  Value guard;
  auto conjoin = [&](Value condition) {
    guard = guard ? arith::AndIOp::create(b, loc, guard, condition).getResult()
                  : condition;
  };
  int64_t extent = getThreadExtent(fragment);
  if (threadsAreCompact(fragment)) {
    if (extent < threads)
      conjoin(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                    threadId, constant(b, loc, extent)));
  } else {
    // Rebuild the thread id from its digits: holes do not.
    Value sum = constant(b, loc, 0);
    for (const LayoutFactor &f : threadFactors(fragment)) {
      Value digit = arith::RemUIOp::create(
          b, loc,
          arith::DivUIOp::create(b, loc, threadId, constant(b, loc, f.stride)),
          constant(b, loc, f.size));
      sum = arith::AddIOp::create(
          b, loc, sum,
          arith::MulIOp::create(b, loc, digit, constant(b, loc, f.stride)));
    }
    conjoin(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, sum,
                                  threadId));
  }
  if (firstCopyOnly) {
    for (const LayoutFactor &f : fragment.getDims().back()) {
      if (f.size <= 1 || f.outDim != kThreadAxis)
        continue;
      Value digit = arith::RemUIOp::create(
          b, loc,
          arith::DivUIOp::create(b, loc, threadId, constant(b, loc, f.stride)),
          constant(b, loc, f.size));
      conjoin(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, digit,
                                    constant(b, loc, 0)));
    }
  }
  return guard;
}

std::optional<int64_t> KernelLowering::mapSlot(const Layout &source,
                                               int64_t sourceSlot,
                                               const Layout &target,
                                               ArrayRef<unsigned> dims) {
  std::optional<int64_t> result;
  int64_t copies = target.getInShape().back();
  for (int64_t t = 0; t < threads; ++t) {
    if (!reconstructs(source, kThreadAxis, t) ||
        t >= getThreadExtent(source))
      continue;
    SmallVector<int64_t> index = evalIndex(source, t, sourceSlot);
    SmallVector<int64_t> projected;
    for (unsigned d : dims)
      projected.push_back(index[d]);
    projected.push_back(0);
    std::optional<int64_t> slot;
    for (int64_t c = 0; c < copies && !slot; ++c) {
      projected.back() = c;
      SmallVector<int64_t> out = target.apply(projected);
      if (out[kThreadAxis] == t)
        slot = out[kSlotAxis];
    }
    if (!slot || (result && *result != *slot))
      return std::nullopt;
    result = slot;
  }
  return result;
}

Value KernelLowering::isMultipleOf(OpBuilder &b, Location loc, Value v,
                                   int64_t n) {
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, v, constant(b, loc, n)),
      constant(b, loc, 0));
}

Value KernelLowering::areRowsAligned(OpBuilder &b, Location loc, Value memref,
                                     int64_t elements) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t bytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value start = arith::AddIOp::create(
      b, loc, base,
      arith::MulIOp::create(b, loc, metadata.getOffset(),
                            constant(b, loc, bytes)));
  Value ok = isMultipleOf(b, loc, start, elements * bytes);
  for (Value stride : metadata.getStrides().drop_back())
    ok = arith::AndIOp::create(b, loc, ok, isMultipleOf(b, loc, stride, elements));
  return ok;
}

SmallVector<Value> KernelLowering::delinearize(OpBuilder &b, Location loc,
                                               Value linear,
                                               ArrayRef<int64_t> shape) {
  SmallVector<Value> index(shape.size());
  if (shape.empty())
    return index;
  for (int64_t d = shape.size() - 1; d > 0; --d) {
    Value size = constant(b, loc, shape[d]);
    index[d] = arith::RemUIOp::create(b, loc, linear, size);
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  index[0] = linear;
  return index;
}

Value KernelLowering::applyLayout(OpBuilder &b, Location loc,
                                  const Layout &layout, ValueRange index,
                                  unsigned outDim) {
  Value offset;
  int64_t staticOffset = 0;
  for (auto [d, value] : llvm::enumerate(index)) {
    ArrayRef<LayoutFactor> factors = layout.getFactors(d);
    std::optional<int64_t> constantValue = getConstantIntValue(value);
    int64_t position = 1;
    for (size_t i = factors.size(); i-- > 0;) {
      const LayoutFactor &f = factors[i];
      if (f.size > 1 && f.stride != 0 && f.outDim == outDim) {
        if (constantValue) {
          staticOffset += ((*constantValue / position) % f.size) * f.stride;
        } else {
          Value digit = value;
          if (position != 1)
            digit = arith::DivUIOp::create(b, loc, digit,
                                           constant(b, loc, position));
          if (i != 0) // The outermost digit needs no wrap-around.
            digit = arith::RemUIOp::create(b, loc, digit,
                                           constant(b, loc, f.size));
          if (f.stride != 1)
            digit = arith::MulIOp::create(b, loc, digit,
                                          constant(b, loc, f.stride));
          offset = offset ? arith::AddIOp::create(b, loc, offset, digit)
                                .getResult()
                          : digit;
        }
      }
      position *= f.size;
    }
  }
  Value result = constant(b, loc, staticOffset);
  if (offset)
    result = staticOffset
                 ? arith::AddIOp::create(b, loc, offset, result).getResult()
                 : offset;
  return result;
}

Value KernelLowering::fragmentThread(OpBuilder &b, Location loc,
                                     const Layout &fragment, ValueRange index,
                                     int64_t replica) {
  SmallVector<Value> point(index);
  point.push_back(constant(b, loc, replica));
  return applyLayout(b, loc, fragment, point, kThreadAxis);
}

Value KernelLowering::sharedOffset(OpBuilder &b, Location loc,
                                   const SharedStorage &buffer,
                                   ValueRange index) {
  const Layout &layout = buffer.layout;
  Value result = applyLayout(b, loc, layout, index, /*outDim=*/0);
  if (std::optional<Swizzle> swizzle = layout.getSwizzle()) {
    int64_t mask = ((int64_t(1) << swizzle->bits) - 1)
                   << (swizzle->base + swizzle->shift);
    Value bits = arith::AndIOp::create(b, loc, result, constant(b, loc, mask));
    Value moved = arith::ShRUIOp::create(b, loc, bits,
                                         constant(b, loc, swizzle->shift));
    result = arith::XOrIOp::create(b, loc, result, moved);
  }
  if (buffer.stageOffset)
    result = arith::AddIOp::create(b, loc, result, buffer.stageOffset);
  return result;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

Value KernelLowering::scratchView(OpBuilder &b, Location loc,
                                  int64_t byteOffset, int64_t count,
                                  Type type) {
  auto viewType = MemRefType::get(
      {count}, type, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::AddressSpace::Workgroup));
  return memref::ViewOp::create(b, loc, viewType, dynamicShared,
                                constant(b, loc, byteOffset), ValueRange());
}

/// Largest dynamic shared memory per block, in bytes.
static int64_t getSharedMemoryLimit(const TargetInfo &target) {
  if (target.isNVIDIA())
    return target.version >= 90 ? 232448 : target.version >= 80 ? 166912
                                                                 : 49152;
  return 65536;
}

FailureOr<Layout> KernelLowering::getSharedLayout(AllocSharedOp alloc) {
  MemRefType type = alloc.getType();
  LayoutAttrInterface attr = alloc.getLayoutAttr();
  if (!attr)
    attr = LinearLayoutAttr::get(alloc.getContext());
  return attr.getLayout(type.getShape(), type.getElementType(),
                        [&] { return alloc.emitOpError(); });
}

LogicalResult KernelLowering::planSharedMemory() {
  // Pipelines decide which shared buffers are multi-buffered.
  llvm::DenseMap<Value, int64_t> stagesOf;
  WalkResult planned = kernel.walk([&](PipelinedOp loop) {
    FailureOr<PipelinePlan> plan = planPipeline(*this, loop);
    if (failed(plan))
      return WalkResult::interrupt();
    for (CopyOp copy : plan->producers)
      stagesOf[copy.getDest()] = plan->stages;
    pipelines[loop] = std::move(*plan);
    return WalkResult::advance();
  });
  if (planned.wasInterrupted())
    return failure();
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
  SmallVector<Request> requests;
  WalkResult result = kernel.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
      MemRefType type = alloc.getType();
      FailureOr<Layout> layout = getSharedLayout(alloc);
      if (failed(layout))
        return WalkResult::interrupt();
      int64_t elements = layout->getOutExtents()[0];
      int64_t stages = stagesOf.lookup(alloc.getResult());
      stages = std::max<int64_t>(stages, 1);
      int64_t bytes = stages * elements *
                      llvm::divideCeil(type.getElementTypeBitWidth(), 8);
      shared[alloc.getResult()] = {Value(), *layout, type, stages, elements,
                                   Value()};
      // Live from its first use to its last (allocation is free).
      Request request{op, bytes, positionOf(op), positionOf(op)};
      for (auto [i, user] : llvm::enumerate(alloc->getUsers())) {
        int64_t at = positionOf(user);
        request.first = i == 0 ? at : std::min(request.first, at);
        request.last = i == 0 ? at : std::max(request.last, at);
      }
      requests.push_back(request);
      return WalkResult::advance();
    }
    int64_t scratch = 0;
    if (auto reduce = dyn_cast<ReduceOp>(op))
      scratch = getReduceScratchBytes(*this, reduce);
    else if (auto cumsum = dyn_cast<CumSumOp>(op))
      scratch = getCumSumScratchBytes(*this, cumsum);
    else if (auto copy = dyn_cast<CopyOp>(op))
      scratch = getCopyScratchBytes(*this, copy);
    if (scratch > 0)
      requests.push_back({op, scratch, positionOf(op), positionOf(op)});
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();

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
    request->op->setAttr(isa<AllocSharedOp>(request->op) ? "tile.offset"
                                                          : "tile.scratch",
                         rewriter.getI64IntegerAttr(request->offset));
  }
  int64_t limit = getSharedMemoryLimit(target);
  if (sharedBytes > limit)
    return kernel.emitOpError("needs ")
           << sharedBytes << " bytes of shared memory; " << target.chip
           << " allows " << limit;
  return success();
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::run() {
  // Fragments and loops need their layouts: the GPU code derives from them.
  WalkResult missing = kernel.walk([&](Operation *op) {
    auto fragment = dyn_cast<FragmentOp>(op);
    auto loop = dyn_cast<ParallelOp>(op);
    if ((fragment && !isa_and_nonnull<FragmentLayoutAttr>(
                         fragment.getLayoutAttr())) ||
        (loop && !isa_and_nonnull<FragmentLayoutAttr>(loop.getLayoutAttr()))) {
      op->emitOpError("has no layout; run tile-infer-layouts before lowering "
                      "to the GPU");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (missing.wasInterrupted() || failed(planSharedMemory()))
    return failure();

  Location loc = kernel.getLoc();
  rewriter.setInsertionPoint(kernel);
  SmallVector<Value> grid;
  for (OpFoldResult size : kernel.getMixedGrid())
    grid.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, size));
  Value one = constant(rewriter, loc, 1);
  while (grid.size() < 3)
    grid.push_back(one);
  Value sharedSize = arith::ConstantIntOp::create(
      rewriter, loc, rewriter.getI32Type(), sharedBytes);
  auto launch = gpu::LaunchOp::create(rewriter, loc, grid[0], grid[1], grid[2],
                                      constant(rewriter, loc, threads), one,
                                      one, sharedSize);
  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToEnd(&body);
  auto terminator = gpu::TerminatorOp::create(rewriter, loc);
  rewriter.setInsertionPoint(terminator);

  threadId = launch.getThreadIds().x;
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  SmallVector<Value> launchIds =
      SmallVector<Value>{blockIds.x, blockIds.y, blockIds.z};
  launchIds.resize(kernel.getGridRank());
  SmallVector<Value> gridSizes(grid.begin(), grid.begin() + launchIds.size());
  SmallVector<Value> ids = getBlockIds(rewriter, loc, launchIds, gridSizes,
                                       kernel.getRasterAttr());
  auto dynamicType = MemRefType::get(
      {ShapedType::kDynamic}, rewriter.getI8Type(), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                 gpu::AddressSpace::Workgroup));
  dynamicShared = gpu::DynamicSharedMemoryOp::create(rewriter, loc, dynamicType);

  // Move the body in, then give buffers their storage.
  rewriter.inlineBlockBefore(&kernel.getBody().front(), terminator, ids);
  SmallVector<Operation *> allocations;
  body.walk([&](Operation *op) {
    if (isa<AllocSharedOp, FragmentOp>(op))
      allocations.push_back(op);
  });
  for (Operation *op : allocations) {
    rewriter.setInsertionPoint(op);
    if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
      SharedStorage &storage = shared[alloc.getResult()];
      int64_t offset = cast<IntegerAttr>(op->getAttr("tile.offset")).getInt();
      storage.memory =
          scratchView(rewriter, op->getLoc(), offset,
                      storage.stages * storage.stageElements,
                      storage.type.getElementType());
    } else {
      auto fragment = cast<FragmentOp>(op);
      Layout layout =
          cast<FragmentLayoutAttr>(fragment.getLayoutAttr()).toLayout();
      int64_t slots = getSlotExtent(layout);
      auto type = MemRefType::get({slots}, fragment.getType().getElementType());
      Value storage = memref::AllocaOp::create(rewriter, op->getLoc(), type);
      fragments[fragment.getResult()] = {storage, layout, fragment.getType()};
    }
  }
  if (failed(lowerOps(body)))
    return failure();
  for (Operation *op : allocations)
    rewriter.eraseOp(op);
  rewriter.eraseOp(kernel);
  return success();
}

LogicalResult KernelLowering::lowerOps(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isa<AllocSharedOp, FragmentOp>(op))
      continue;
    if (failed(lowerOp(&op)))
      return failure();
  }
  return success();
}

LogicalResult KernelLowering::lowerOp(Operation *op) {
  if (auto pipelined = dyn_cast<PipelinedOp>(op))
    return lowerPipelined(*this, pipelined);
  if (auto copy = dyn_cast<CopyOp>(op))
    return lowerCopy(*this, copy);
  if (auto fill = dyn_cast<FillOp>(op))
    return lowerFill(*this, fill);
  if (auto atomic = dyn_cast<AtomicAddOp>(op))
    return lowerAtomicAdd(*this, atomic);
  if (auto parallel = dyn_cast<ParallelOp>(op))
    return lowerParallel(*this, parallel);
  if (auto gemm = dyn_cast<GemmOp>(op))
    return lowerGemm(*this, gemm);
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return lowerReduce(*this, reduce);
  if (auto cumsum = dyn_cast<CumSumOp>(op))
    return lowerCumSum(*this, cumsum);
  if (isa<LoadOp, StoreOp>(op))
    return op->emitOpError("must be nested in a 'tile.parallel' body");
  // Other ops stay; tile ops inside their regions are lowered in place.
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (failed(lowerOps(block)))
        return failure();
  return success();
}
