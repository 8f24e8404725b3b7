//===- Copies.cpp - Data movement on the GPU ------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.copy, tile.fill and tile.atomic_add (and the pattern set of
// tile.parallel, Parallel.cpp). A fragment side decides who moves what: each
// thread moves the elements its slots hold. Without a fragment, elements are
// dealt to threads round-robin in row-major order. Writes to shared memory
// are fenced by barriers on both sides.
//
//===----------------------------------------------------------------------===//

#include "Copies.h"
#include "Strategies/PipelineStrategies.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"
#include "tile/Layout/FragmentTransfer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

/// The 32-bit type a shuffle moves `type` (32 bits at most) in.
Type getShuffleType(Type type) {
  if (isa<FloatType>(type))
    return Float32Type::get(type.getContext());
  return IntegerType::get(type.getContext(), 32);
}

/// The scratch a copy goes through (between fragments, or from a fragment
/// to global memory): the tile in the destination's element type, rows
/// padded by 16 bytes against bank conflicts.
SharedStorage getCopyScratch(CopyOp op) {
  auto type = cast<ShapedType>(op.getTile().getType());
  ArrayRef<int64_t> shape = type.getShape();
  Type element = cast<ShapedType>(op.getDest().getType()).getElementType();
  int64_t pad = 16 / elementBytes(element);
  SmallVector<Layout::DimFactors> dims;
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    dims.insert(dims.begin(), Layout::DimFactors{{shape[d], 0, stride}});
    stride *= shape[d] + (d + 1 == int64_t(shape.size()) && shape.size() > 1
                              ? pad
                              : 0);
  }
  SharedStorage scratch;
  scratch.layout = Layout(dims, 1);
  scratch.type = MemRefType::get(shape, element);
  scratch.stageElements = scratch.layout.getOutExtents()[0];
  return scratch;
}

/// The scratch a staged store of `op` writes its fragment into: for a TMA
/// store (`tmaStore`), the tile in 128-byte swizzled panels (the boxes TMA
/// reads, and rows of one panel apart in distinct banks); else
/// getCopyScratch's padded rows.
SharedStorage getStoreScratch(CopyOp op, bool tmaStore) {
  if (!tmaStore)
    return getCopyScratch(op);
  auto type = cast<ShapedType>(op.getTile().getType());
  Type element = cast<ShapedType>(op.getDest().getType()).getElementType();
  FailureOr<Layout> layout = SwizzleLayoutAttr::get(op.getContext(), 128)
                                 .getLayout(type.getShape(), element,
                                            [&] { return op.emitOpError(); });
  assert(succeeded(layout) && "isTmaStore checked the swizzle");
  SharedStorage scratch;
  scratch.layout = *layout;
  scratch.type = MemRefType::get(type.getShape(), element);
  scratch.stageElements = type.getNumElements();
  return scratch;
}

/// A copy between fragments: register moves where every element stays on
/// its thread, shuffles where it stays in its warp, else a trip through
/// shared scratch.
LogicalResult copyBetweenFragments(const KernelContext &k, OpBuilder &b,
                                   Location loc, CopyOp op,
                                   const FragmentStorage &src,
                                   const FragmentStorage &dst) {
  Type dstType = dst.type.getElementType();
  const FragmentTransfer &transfer = k.getTransfer(op);
  if (transfer.kind == TransferKind::SharedMemory) {
    SharedStorage scratch = getCopyScratch(op);
    scratch.memory =
        k.getScratch(b, loc, op, scratch.stageElements, dstType);
    k.barrier(b, loc);
    storeFragmentToShared(k, b, loc, src, scratch);
    k.barrier(b, loc);
    loadFragmentFromShared(k, b, loc, scratch, dst);
    return success();
  }
  Type srcType = src.type.getElementType();
  // f32 -> 16-bit floats two at a time (one cvt.rn.f16x2.f32 on NVIDIA):
  // pairs of destination slots whose sources are on the thread.
  ArrayRef<int64_t> sources = transfer.sourceSlot;
  auto inThread = [&](int64_t slot) {
    return sources[slot] >= 0 && transfer.sourceReplica[slot] < 0;
  };
  bool pairs = srcType.isF32() && (dstType.isF16() || dstType.isBF16());
  llvm::SmallBitVector done(sources.size());
  for (int64_t slot = 0; pairs && slot + 1 < int64_t(sources.size());
       slot += 2) {
    if (!inThread(slot) || !inThread(slot + 1))
      continue;
    Value pair = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, srcType),
        ValueRange{src.load(b, loc, sources[slot]),
                   src.load(b, loc, sources[slot + 1])});
    Value narrow =
        arith::TruncFOp::create(b, loc, VectorType::get({2}, dstType), pair);
    for (int64_t i = 0; i < 2; ++i)
      dst.store(
          b, loc, slot + i,
          vector::ExtractOp::create(b, loc, narrow, ArrayRef<int64_t>{i}));
    done.set(slot, slot + 2);
  }
  for (auto [slot, from] : llvm::enumerate(transfer.sourceSlot)) {
    if (from < 0 || done.test(slot))
      continue;
    Value v = src.load(b, loc, from);
    int64_t replica = transfer.sourceReplica[slot];
    if (replica >= 0) {
      // Every lane reads the replica's owner, in its own warp.
      Type wide = getShuffleType(srcType);
      SmallVector<Value> index = k.fragmentIndex(b, loc, dst.layout, slot);
      Value thread = fragmentThread(b, loc, src.layout, index, replica);
      Value lane = arith::IndexCastUIOp::create(
          b, loc, b.getI32Type(),
          arith::RemUIOp::create(b, loc, thread,
                                 k.constant(b, loc, k.target.warpSize)));
      Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                 k.target.warpSize);
      v = gpu::ShuffleOp::create(b, loc, convertScalar(b, loc, v, wide), lane,
                                 width, gpu::ShuffleMode::IDX)
              .getShuffleResult();
    }
    dst.store(b, loc, slot, convertScalar(b, loc, v, dstType));
  }
  return success();
}

/// A copy between shared and global memory: elements dealt to threads in
/// row-major order, 16-byte vectors where the tile and the tensors allow
/// them (checked at run time for global alignment).
void copyMemory(const KernelContext &k, OpBuilder &b, Location loc,
                const Side &src, const Side &dst, ArrayRef<int64_t> shape,
                TypedAttr pad) {
  Type dstType = dst.getElementType();
  auto scalar = [&](OpBuilder &ib) {
    forEachDealtElement(k, ib, loc, shape,
                        [&](OpBuilder &inner, Location l, ValueRange index) {
                          Value v = readMemory(k, inner, l, src, index, pad);
                          writeMemory(k, inner, l, dst, index,
                                      convertScalar(inner, l, v, dstType));
                        });
  };
  int64_t width = chooseVectorWidth({&src, &dst}, shape);
  if (width == 1)
    return scalar(b);
  withAlignment(
      b, loc, alignmentOfSides(k, b, loc, {&src, &dst}, width),
      [&](OpBuilder &ib) {
        forEachDealtElement(
            k, ib, loc, shape,
            [&](OpBuilder &inner, Location l, ValueRange index) {
              writeVector(k, inner, l, dst, index,
                          readVector(k, inner, l, src, index, width, pad));
            },
            width);
      },
      scalar);
}

} // namespace

/// Bytes of shared scratch a copy between fragments needs whose threads
/// exchange elements across warps (0: none).
static int64_t getCopyScratchBytes(const KernelPlan &plan, CopyOp op) {
  auto transfer = plan.transfers.find(op);
  if (transfer == plan.transfers.end() ||
      transfer->second.kind != TransferKind::SharedMemory)
    return 0;
  SharedStorage scratch = getCopyScratch(op);
  return scratch.stageElements * elementBytes(scratch.type.getElementType());
}

/// Bytes of shared scratch through which a fragment-to-global copy would
/// store whole 16-byte vectors instead of its threads' narrower runs (0: no
/// gain). Optional: planned only in memory the block needs anyway.
static int64_t getStagedStoreBytes(const KernelPlan &plan, CopyOp op) {
  Value src = op.getSource(), dst = op.getDest();
  if (!plan.target.isNVIDIA() || !plan.fragments.count(src) ||
      plan.fragments.count(dst) || plan.shared.count(dst))
    return 0;
  // Only where the fragment's own runs make narrower stores than 16 bytes
  // and 16-byte vectors fit the tile's rows and the tensor's layout.
  Side global;
  global.kind = Side::Global;
  global.value = dst;
  int64_t bytes = elementBytes(global.getElementType());
  ArrayRef<int64_t> shape = cast<ShapedType>(src.getType()).getShape();
  int64_t width = 16 / bytes;
  if (16 % bytes != 0 || shape.back() % width != 0 ||
      !allowsVectors(global, width) ||
      succeeded(rescaleSlotRuns(plan.getFragmentLayout(src), width)))
    return 0;
  // Every thread stores at least one vector.
  if (ShapedType::getNumElements(shape) * bytes < getThreadCount(op) * 16)
    return 0;
  SharedStorage scratch = getStoreScratch(op, isTmaStore(plan, op));
  return scratch.stageElements * bytes;
}

void mlir::tile::gpu_lowering::forEachDealtElement(
    const KernelContext &k, OpBuilder &b, Location loc,
    ArrayRef<int64_t> fullShape,
    function_ref<void(OpBuilder &, Location, ValueRange)> body,
    int64_t width) {
  // With `width`, units are runs of `width` innermost elements.
  SmallVector<int64_t> shape(fullShape);
  if (width > 1)
    shape.back() /= width;
  int64_t elements = 1;
  for (int64_t s : shape)
    elements *= s;
  int64_t rounds = llvm::divideCeil(elements, k.threads);
  Value lower = k.constant(b, loc, 0);
  Value upper = k.constant(b, loc, rounds);
  Value step = k.constant(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, lower, upper, step);
  OpBuilder::InsertionGuard insertion(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, loop.getInductionVar(),
                            k.constant(b, loc, k.threads)),
      k.threadId);
  Value guard;
  if (elements % k.threads != 0)
    guard = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, linear,
                                  k.constant(b, loc, elements));
  buildGuarded(b, loc, guard, [&](OpBuilder &inner) {
    SmallVector<Value> index = delinearize(inner, loc, linear, shape);
    if (width > 1)
      index.back() = arith::MulIOp::create(inner, loc, index.back(),
                                           k.constant(inner, loc, width));
    body(inner, loc, index);
  });
}

static LogicalResult lowerCopy(const KernelContext &k,
                               PatternRewriter &rewriter, CopyOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets();
  Side src = describe(k, b, loc, op.getSource(), offsets);
  Side dst = describe(k, b, loc, op.getDest(), offsets);
  Type dstType = dst.getElementType();
  bool writesShared = dst.kind == Side::Shared;
  // A copy that signals a barrier by TMA, where the host found its tensor
  // aligned; else (and on other targets) the threads copy, done before
  // they arrive.
  if (Value ready = op.getBarrier() ? k.hopper.tmaReady.lookup(k.getPlanned(op))
                                    : Value()) {
    auto tma = scf::IfOp::create(b, loc, ready, /*withElseRegion=*/true);
    b.setInsertionPointToStart(tma.thenBlock());
    emitTmaBarrierLoad(k, b, loc, op);
    b.setInsertionPointToStart(tma.elseBlock());
  }
  if (writesShared)
    k.barrier(b, loc);

  if (src.kind == Side::Fragment && dst.kind == Side::Fragment) {
    if (failed(copyBetweenFragments(k, b, loc, op, *src.fragment,
                                    *dst.fragment)))
      return failure();
  } else if (src.kind == Side::Fragment && k.plan.scratch.count(op)) {
    // Staged: each thread writes its elements to shared scratch, then the
    // block stores whole 16-byte rows of it, coalesced, or one thread
    // stores it by TMA (when the destination's rows are aligned for it).
    // (createTensorMaps decided which stores are TMA stores, before the
    // kernel's body moved.)
    Operation *planned = k.getPlanned(op);
    bool tmaStore = k.hopper.tmaReady.count(planned);
    SharedStorage scratch = getStoreScratch(op, tmaStore);
    scratch.memory =
        k.getScratch(b, loc, op, scratch.stageElements, dstType);
    Side staged = sharedSide(scratch);
    // The last tile's stores may still be reading the scratch.
    if (tmaStore)
      waitForTmaStoreReads(k, b, loc, k.threadId);
    k.barrier(b, loc);
    storeFragment(k, b, loc, *src.fragment, staged);
    auto storeVectors = [&] {
      copyMemory(k, b, loc, staged, dst, src.fragment->type.getShape(),
                 TypedAttr());
    };
    if (tmaStore) {
      // The copy engine reads what the threads wrote: fenced into the
      // async proxy before the barrier.
      k.codegen.fenceSharedForAsyncProxy(b, loc);
      k.barrier(b, loc);
      SmallVector<Value> origin =
          llvm::map_to_vector(op.getMixedOffsets(), [&](OpFoldResult offset) {
            return getValueOrCreateConstantIndexOp(b, loc, offset);
          });
      auto ready = scf::IfOp::create(b, loc, k.hopper.tmaReady.lookup(planned),
                                     /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ready.thenBlock());
      emitTmaStores(k, b, loc, op, k.plan.scratch.lookup(planned), origin);
      b.setInsertionPointToStart(ready.elseBlock());
      storeVectors();
    } else {
      k.barrier(b, loc);
      storeVectors();
    }
  } else if (src.kind == Side::Fragment) {
    // Each thread writes the elements it holds, once per element.
    storeFragment(k, b, loc, *src.fragment, dst);
  } else if (dst.kind == Side::Fragment) {
    // Every copy of every element is filled by its own thread.
    loadFragment(k, b, loc, src, *dst.fragment, op.getPadAttr());
  } else {
    copyMemory(k, b, loc, src, dst,
               cast<ShapedType>(op.getTile().getType()).getShape(),
               op.getPadAttr());
  }
  if (writesShared)
    k.publishShared(b, loc);
  rewriter.eraseOp(op);
  return success();
}

static LogicalResult lowerFill(const KernelContext &k,
                               PatternRewriter &rewriter, FillOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value value = op.getValue();
  if (std::optional<ReduceKind> kind = getReducerKind(op.getDest())) {
    fillReducer(k, b, op, *kind);
  } else if (const FragmentStorage *dstFragment = k.getFragment(op.getDest())) {
    const FragmentStorage &fragment = *dstFragment;
    for (int64_t slot = 0, e = getSlotExtent(fragment.layout); slot < e; ++slot)
      if (isSlotUsed(fragment.layout, slot))
        fragment.store(b, loc, slot, value);
  } else {
    Side dst = describe(k, b, loc, op.getDest(), {});
    k.barrier(b, loc);
    forEachDealtElement(k, b, loc,
                        cast<ShapedType>(op.getDest().getType()).getShape(),
                        [&](OpBuilder &inner, Location l, ValueRange index) {
                          writeMemory(k, inner, l, dst, index, value);
                        });
    k.publishShared(b, loc);
  }
  rewriter.eraseOp(op);
  return success();
}

static LogicalResult lowerAtomicAdd(const KernelContext &k,
                                    PatternRewriter &rewriter,
                                    AtomicAddOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Side src = describe(k, b, loc, op.getSource(), {});
  Side dst = describe(k, b, loc, op.getDest(), op.getMixedOffsets());
  Type type = dst.getElementType();
  arith::AtomicRMWKind kind = isa<FloatType>(type)
                                  ? arith::AtomicRMWKind::addf
                                  : arith::AtomicRMWKind::addi;
  auto add = [&](OpBuilder &inner, Location l, ValueRange index, Value v) {
    SmallVector<Value> at = globalIndex(inner, l, dst, index);
    v = convertScalar(inner, l, v, type);
    buildGuardedWrite(inner, l, dst.value, at, /*guard=*/true,
                      [&](OpBuilder &w, Location wl) {
                        memref::AtomicRMWOp::create(w, wl, kind, v, dst.value,
                                                    at);
                      });
  };
  if (src.kind == Side::Fragment) {
    const Layout &layout = src.fragment->layout;
    for (int64_t slot = 0, e = getSlotExtent(layout); slot < e; ++slot) {
      if (!isSlotUsed(layout, slot))
        continue;
      // One add per element: only the thread holding copy 0.
      Value guard = k.ownsSlot(b, loc, layout, slot, /*firstCopyOnly=*/true);
      buildGuarded(b, loc, guard, [&](OpBuilder &inner) {
        SmallVector<Value> index = k.fragmentIndex(inner, loc, layout, slot);
        Value v = src.fragment->load(inner, loc, slot);
        add(inner, loc, index, v);
      });
    }
  } else {
    forEachDealtElement(
        k, b, loc, cast<ShapedType>(op.getSource().getType()).getShape(),
        [&](OpBuilder &inner, Location l, ValueRange index) {
          add(inner, l, index, readMemory(k, inner, l, src, index, {}));
        });
  }
  rewriter.eraseOp(op);
  return success();
}

namespace {

struct CopyLowering
    : public GpuLoweringOpInterface::ExternalModel<CopyLowering, CopyOp> {
  /// A copy between fragments: how its elements move (FragmentTransfer).
  LogicalResult plan(Operation *op, KernelPlan &kernel) const {
    auto copy = cast<CopyOp>(op);
    if (copy.getBarrier() && kernel.target.has(Feature::Tma) &&
        isTmaLoad(kernel, copy)) {
      kernel.tmaBarrierLoads.push_back(copy);
      kernel.asyncProxyUsesShared = true;
    }
    if (!kernel.fragments.count(copy.getSource()) ||
        !kernel.fragments.count(copy.getDest()))
      return success();
    unsigned bits =
        cast<FragmentType>(copy.getSource().getType()).getElementTypeBitWidth();
    kernel.transfers[op] =
        planFragmentTransfer(kernel.getFragmentLayout(copy.getSource()),
                             kernel.getFragmentLayout(copy.getDest()), bits,
                             getThreadCount(copy), kernel.target.warpSize);
    return success();
  }

  /// Scratch for an exchange between warps, or (with `staging`) for a
  /// store staged through shared memory, which a TMA store still reads
  /// after the copy.
  ScratchRequest getScratch(Operation *op, const KernelPlan &kernel,
                            bool staging) const {
    auto copy = cast<CopyOp>(op);
    int64_t bytes = std::max(getCopyScratchBytes(kernel, copy),
                             staging ? getStagedStoreBytes(kernel, copy) : 0);
    return {bytes, bytes != 0 && staging && isTmaStore(kernel, copy)};
  }

  LogicalResult lower(Operation *op, KernelContext &k,
                      PatternRewriter &rewriter) const {
    return lowerCopy(k, rewriter, cast<CopyOp>(op));
  }
};

} // namespace

void mlir::tile::gpu_lowering::attachCopyLowerings(MLIRContext *context) {
  CopyOp::attachInterface<CopyLowering>(*context);
  FillOp::attachInterface<LowerWith<FillOp, lowerFill>>(*context);
  AtomicAddOp::attachInterface<LowerWith<AtomicAddOp, lowerAtomicAdd>>(
      *context);
  ParallelOp::attachInterface<LowerWith<ParallelOp, lowerParallel>>(*context);
}
