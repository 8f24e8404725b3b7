//===- Copies.cpp - Data movement and elementwise bodies on the GPU -------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.copy, tile.fill, tile.atomic_add and tile.parallel. A fragment side
// decides who moves what: each thread moves the elements its slots hold.
// Without a fragment, elements are dealt to threads round-robin in row-major
// order. Writes to shared memory are fenced by barriers on both sides.
//
//===----------------------------------------------------------------------===//

#include "KernelContext.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"
#include "tile/Layout/FragmentTransfer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

/// One side of a data movement: how to read or write an element at a
/// logical index of the tile.
struct Side {
  enum Kind { Global, Shared, Fragment } kind;
  Value value;                    // the original tile-level value
  SmallVector<Value> offsets;     // Global: the tile's origin
  const SharedStorage *sharedBuffer = nullptr;
  const FragmentStorage *fragment = nullptr;

  Type getElementType() const {
    if (sharedBuffer)
      return sharedBuffer->type.getElementType();
    if (fragment)
      return fragment->type.getElementType();
    return cast<ShapedType>(value.getType()).getElementType();
  }
};

Side describe(const KernelContext &k, OpBuilder &b, Location loc, Value value,
              ArrayRef<OpFoldResult> offsets) {
  Side side;
  side.value = value;
  if (const FragmentStorage *fragment = k.getFragment(value)) {
    side.kind = Side::Fragment;
    side.fragment = fragment;
  } else if (const SharedStorage *shared = k.getShared(value)) {
    side.kind = Side::Shared;
    side.sharedBuffer = shared;
  } else {
    side.kind = Side::Global;
    for (OpFoldResult offset : offsets)
      side.offsets.push_back(getValueOrCreateConstantIndexOp(b, loc, offset));
  }
  return side;
}

SmallVector<Value> globalIndex(OpBuilder &b, Location loc, const Side &side,
                               ValueRange index) {
  SmallVector<Value> result;
  for (auto [offset, i] : llvm::zip(side.offsets, index))
    result.push_back(arith::AddIOp::create(b, loc, offset, i));
  return result;
}

/// Reads the element at `index` of a global or shared side.
Value readMemory(const KernelContext &k, OpBuilder &b, Location loc,
                 const Side &side, ValueRange index, TypedAttr pad) {
  if (side.kind == Side::Shared)
    return memref::LoadOp::create(
        b, loc, side.sharedBuffer->memory,
        k.sharedOffset(b, loc, *side.sharedBuffer, index));
  return buildGuardedLoad(b, loc, side.value, globalIndex(b, loc, side, index),
                          /*guard=*/true, pad);
}

/// Writes `v` at `index` of a global or shared side.
void writeMemory(const KernelContext &k, OpBuilder &b, Location loc,
                 const Side &side, ValueRange index, Value v) {
  if (side.kind == Side::Shared) {
    memref::StoreOp::create(b, loc, v, side.sharedBuffer->memory,
                            k.sharedOffset(b, loc, *side.sharedBuffer, index));
    return;
  }
  SmallVector<Value> at = globalIndex(b, loc, side, index);
  buildGuardedWrite(b, loc, side.value, at, /*guard=*/true,
                    [&](OpBuilder &w, Location l) {
                      memref::StoreOp::create(w, l, v, side.value, at);
                    });
}

/// `layout` (a fragment) with each run of `width` innermost elements as one
/// element: failure unless every run sits in consecutive slots of one
/// thread.
FailureOr<Layout> rescaleSlotRuns(const Layout &layout, int64_t width) {
  Layout simple = layout.simplify();
  unsigned innermost = getFragmentRank(layout) - 1;
  ArrayRef<LayoutFactor> factors = simple.getDims()[innermost];
  if (factors.empty() || factors.back().outDim != kSlotAxis)
    return failure();
  return simple.rescale(innermost, width);
}

/// Whether runs of `width` elements along the innermost dim of `side` can
/// be moved as one vector (ignoring the alignment of global addresses,
/// which buildAlignmentCheck tests at run time).
bool allowsVectors(const Side &side, int64_t width) {
  switch (side.kind) {
  case Side::Shared:
    return succeeded(side.sharedBuffer->layout.rescale(
        side.sharedBuffer->layout.getInRank() - 1, width));
  case Side::Fragment:
    return succeeded(rescaleSlotRuns(side.fragment->layout, width));
  case Side::Global: {
    auto type = cast<MemRefType>(side.value.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    return succeeded(type.getStridesAndOffset(strides, offset)) &&
           !strides.empty() && strides.back() == 1;
  }
  }
  return false;
}

/// The widest vector (at most 16 bytes) that divides the innermost extent
/// and that every side allows; 1 when there is none. Vectors between
/// memories need equal element types; a fragment side converts element by
/// element (its slots are registers), and the memory side sets the width.
int64_t chooseVectorWidth(ArrayRef<const Side *> sides,
                          ArrayRef<int64_t> shape) {
  Type type;
  for (const Side *side : sides) {
    if (side->kind == Side::Fragment)
      continue;
    if (type && side->getElementType() != type)
      return 1;
    type = side->getElementType();
  }
  if (!type)
    type = sides.front()->getElementType();
  for (int64_t width = 16 / elementBytes(type); width > 1; width /= 2) {
    if (shape.back() % width != 0)
      continue;
    if (llvm::all_of(sides,
                     [&](const Side *side) { return allowsVectors(*side, width); }))
      return width;
  }
  return 1;
}

/// i1: every run of `width` elements of the global side starts at an
/// address aligned to the run's size (base pointer, offset, strides and the
/// tile's origin); uniform over the block.
Value buildAlignmentCheck(const KernelContext &k, OpBuilder &b, Location loc,
                          const Side &global, int64_t width) {
  Value rows = areRowsAligned(b, loc, global.value, width);
  Value origin = isMultipleOf(b, loc, global.offsets.back(), width);
  return arith::AndIOp::create(b, loc, rows, origin);
}

/// i1: the `width` elements from `index` along the innermost dim are all
/// inside the global memref.
Value wholeVectorInBounds(const KernelContext &k, OpBuilder &b, Location loc,
                          Value memref, ValueRange index, int64_t width) {
  SmallVector<Value> last(index);
  last.back() = arith::AddIOp::create(b, loc, last.back(),
                                      k.constant(b, loc, width - 1));
  Value inside = buildInBounds(b, loc, memref, last);
  // The first element is inside when the last one is (same row, larger
  // column; unsigned compares).
  return inside ? inside
                : arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1)
                      .getResult();
}

/// Reads `width` elements from `index` on a shared or global side.
Value readVector(const KernelContext &k, OpBuilder &b, Location loc,
                 const Side &side, ValueRange index, int64_t width,
                 TypedAttr pad) {
  auto type = VectorType::get({width}, side.getElementType());
  if (side.kind == Side::Shared)
    return vectorLoad(b, loc, type, side.sharedBuffer->memory,
                      k.sharedOffset(b, loc, *side.sharedBuffer, index));
  SmallVector<Value> at = globalIndex(b, loc, side, index);
  Value whole = wholeVectorInBounds(k, b, loc, side.value, at, width);
  auto ifOp = scf::IfOp::create(
      b, loc, whole,
      [&](OpBuilder &then, Location l) {
        scf::YieldOp::create(then, l,
                             ValueRange{vectorLoad(then, l, type, side.value, at)});
      },
      [&](OpBuilder &otherwise, Location l) {
        SmallVector<Value> elements;
        for (int64_t i = 0; i < width; ++i) {
          SmallVector<Value> element(at);
          element.back() = arith::AddIOp::create(otherwise, l, element.back(),
                                                 k.constant(otherwise, l, i));
          elements.push_back(buildGuardedLoad(otherwise, l, side.value,
                                              element, /*guard=*/true, pad));
        }
        scf::YieldOp::create(
            otherwise, l,
            ValueRange{vector::FromElementsOp::create(otherwise, l, type,
                                                      elements)});
      });
  return ifOp.getResult(0);
}

/// Writes the vector `v` at `index` of a shared or global side.
void writeVector(const KernelContext &k, OpBuilder &b, Location loc,
                 const Side &side, ValueRange index, Value v) {
  int64_t width = cast<VectorType>(v.getType()).getNumElements();
  if (side.kind == Side::Shared) {
    vectorStore(b, loc, v, side.sharedBuffer->memory,
                k.sharedOffset(b, loc, *side.sharedBuffer, index));
    return;
  }
  SmallVector<Value> at = globalIndex(b, loc, side, index);
  Value whole = wholeVectorInBounds(k, b, loc, side.value, at, width);
  scf::IfOp::create(
      b, loc, whole,
      [&](OpBuilder &then, Location l) {
        vectorStore(then, l, v, side.value, at);
        scf::YieldOp::create(then, l);
      },
      [&](OpBuilder &otherwise, Location l) {
        for (int64_t i = 0; i < width; ++i) {
          SmallVector<Value> element(at);
          element.back() = arith::AddIOp::create(otherwise, l, element.back(),
                                                 k.constant(otherwise, l, i));
          Value x = vector::ExtractOp::create(otherwise, l, v, i);
          buildGuardedWrite(otherwise, l, side.value, element, /*guard=*/true,
                            [&](OpBuilder &w, Location wl) {
                              memref::StoreOp::create(w, wl, x, side.value,
                                                      element);
                            });
        }
        scf::YieldOp::create(otherwise, l);
      });
}

/// Runs `vectorBody` when `aligned` holds (always when null), else
/// `scalarBody`.
void withAlignment(OpBuilder &b, Location loc, Value aligned,
                   function_ref<void(OpBuilder &)> vectorBody,
                   function_ref<void(OpBuilder &)> scalarBody) {
  if (!aligned) {
    vectorBody(b);
    return;
  }
  scf::IfOp::create(
      b, loc, aligned,
      [&](OpBuilder &then, Location l) {
        vectorBody(then);
        scf::YieldOp::create(then, l);
      },
      [&](OpBuilder &otherwise, Location l) {
        scalarBody(otherwise);
        scf::YieldOp::create(otherwise, l);
      });
}

/// The alignment check of whichever sides are global (null if none is).
Value alignmentOfSides(const KernelContext &k, OpBuilder &b, Location loc,
                       ArrayRef<const Side *> sides, int64_t width) {
  Value all;
  for (const Side *side : sides) {
    if (side->kind != Side::Global)
      continue;
    Value ok = buildAlignmentCheck(k, b, loc, *side, width);
    all = all ? arith::AndIOp::create(b, loc, all, ok).getResult() : ok;
  }
  return all;
}

/// Slot `slot`, plus `offset` when given (a run-time slot offset: the
/// private array is then indexed dynamically).
static Value slotIndex(OpBuilder &b, Location loc, int64_t slot,
                       Value offset) {
  Value index = arith::ConstantIndexOp::create(b, loc, slot);
  return offset ? arith::AddIOp::create(b, loc, index, offset).getResult()
                : index;
}

Value loadSlot(OpBuilder &b, Location loc, const FragmentStorage &fragment,
               int64_t slot, Value offset = Value()) {
  return memref::LoadOp::create(b, loc, fragment.slots,
                                ValueRange{slotIndex(b, loc, slot, offset)});
}

void storeSlot(OpBuilder &b, Location loc, const FragmentStorage &fragment,
               int64_t slot, Value v, Value offset = Value()) {
  memref::StoreOp::create(b, loc, v, fragment.slots,
                          ValueRange{slotIndex(b, loc, slot, offset)});
}

/// The slot offset of the uniformly indexed dims of an element access
/// (kUniformDim in `dims`): their indices' slot digits in the fragment's
/// layout; null when there are none.
static Value uniformSlotOffset(OpBuilder &b, Location loc,
                               const FragmentStorage &fragment,
                               ValueRange indices, ArrayRef<unsigned> dims) {
  if (!llvm::is_contained(dims, kUniformDim))
    return Value();
  SmallVector<Value> index;
  for (auto [d, value] : llvm::zip(dims, indices))
    index.push_back(d == kUniformDim ? value : constantIndex(b, loc, 0));
  return applyLayout(b, loc, fragment.layout, index, kSlotAxis);
}

/// Slot runs of `fragment` that hold `width` consecutive innermost elements:
/// calls `body` with the run's first slot and the logical index of its first
/// element, under the thread's ownership guard.
void forEachSlotRun(const KernelContext &k, OpBuilder &b, Location loc,
                    const Layout &layout, int64_t width, bool firstCopyOnly,
                    function_ref<void(OpBuilder &, int64_t, ValueRange)> body) {
  Layout runs = width > 1 ? *rescaleSlotRuns(layout, width) : layout;
  for (int64_t run = 0, e = getSlotExtent(runs); run < e; ++run) {
    if (!isSlotUsed(runs, run))
      continue;
    Value guard = k.ownsSlot(b, loc, runs, run, firstCopyOnly);
    buildGuarded(b, loc, guard, [&](OpBuilder &inner) {
      SmallVector<Value> index = k.fragmentIndex(inner, loc, runs, run);
      if (width > 1)
        index.back() = arith::MulIOp::create(inner, loc, index.back(),
                                             k.constant(inner, loc, width));
      body(inner, run * width, index);
    });
  }
}

/// Each thread writes its elements (copy 0) of `fragment` to `dst`.
void storeFragment(const KernelContext &k, OpBuilder &b, Location loc,
                   const FragmentStorage &fragment, const Side &dst) {
  Type type = dst.getElementType();
  Side self;
  self.kind = Side::Fragment;
  self.fragment = &fragment;
  int64_t width = chooseVectorWidth({&self, &dst}, fragment.type.getShape());
  auto move = [&](OpBuilder &ib, int64_t runWidth) {
    forEachSlotRun(
        k, ib, loc, fragment.layout, runWidth, /*firstCopyOnly=*/true,
        [&](OpBuilder &inner, int64_t slot, ValueRange index) {
          if (runWidth == 1) {
            Value v = loadSlot(inner, loc, fragment, slot);
            writeMemory(k, inner, loc, dst, index,
                        convertScalar(inner, loc, v, type));
            return;
          }
          SmallVector<Value> elements;
          for (int64_t i = 0; i < runWidth; ++i)
            elements.push_back(convertScalar(
                inner, loc, loadSlot(inner, loc, fragment, slot + i), type));
          Value v = vector::FromElementsOp::create(
              inner, loc, VectorType::get({runWidth}, type), elements);
          writeVector(k, inner, loc, dst, index, v);
        });
  };
  if (width == 1)
    return move(b, 1);
  withAlignment(
      b, loc, alignmentOfSides(k, b, loc, {&dst}, width),
      [&](OpBuilder &ib) { move(ib, width); },
      [&](OpBuilder &ib) { move(ib, 1); });
}

/// Each thread fills every slot of `fragment` from `src`.
void loadFragment(const KernelContext &k, OpBuilder &b, Location loc,
                  const Side &src, const FragmentStorage &fragment,
                  TypedAttr pad) {
  Type type = fragment.type.getElementType();
  Side self;
  self.kind = Side::Fragment;
  self.fragment = &fragment;
  int64_t width = chooseVectorWidth({&src, &self}, fragment.type.getShape());
  auto move = [&](OpBuilder &ib, int64_t runWidth) {
    forEachSlotRun(
        k, ib, loc, fragment.layout, runWidth, /*firstCopyOnly=*/false,
        [&](OpBuilder &inner, int64_t slot, ValueRange index) {
          if (runWidth == 1) {
            Value v = readMemory(k, inner, loc, src, index, pad);
            storeSlot(inner, loc, fragment, slot,
                      convertScalar(inner, loc, v, type));
            return;
          }
          Value v = readVector(k, inner, loc, src, index, runWidth, pad);
          for (int64_t i = 0; i < runWidth; ++i)
            storeSlot(inner, loc, fragment, slot + i,
                      convertScalar(inner, loc,
                                    vector::ExtractOp::create(inner, loc, v, i),
                                    type));
        });
  };
  if (width == 1)
    return move(b, 1);
  withAlignment(
      b, loc, alignmentOfSides(k, b, loc, {&src}, width),
      [&](OpBuilder &ib) { move(ib, width); },
      [&](OpBuilder &ib) { move(ib, 1); });
}

Side sharedSide(const SharedStorage &shared) {
  Side side;
  side.kind = Side::Shared;
  side.sharedBuffer = &shared;
  return side;
}


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
        ValueRange{loadSlot(b, loc, src, sources[slot]),
                   loadSlot(b, loc, src, sources[slot + 1])});
    Value narrow =
        arith::TruncFOp::create(b, loc, VectorType::get({2}, dstType), pair);
    for (int64_t i = 0; i < 2; ++i)
      storeSlot(
          b, loc, dst, slot + i,
          vector::ExtractOp::create(b, loc, narrow, ArrayRef<int64_t>{i}));
    done.set(slot, slot + 2);
  }
  for (auto [slot, from] : llvm::enumerate(transfer.sourceSlot)) {
    if (from < 0 || done.test(slot))
      continue;
    Value v = loadSlot(b, loc, src, from);
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
    storeSlot(b, loc, dst, slot, convertScalar(b, loc, v, dstType));
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

int64_t mlir::tile::gpu_lowering::getCopyScratchBytes(const KernelPlan &plan,
                                                      CopyOp op) {
  auto transfer = plan.transfers.find(op);
  if (transfer == plan.transfers.end() ||
      transfer->second.kind != TransferKind::SharedMemory)
    return 0;
  SharedStorage scratch = getCopyScratch(op);
  return scratch.stageElements * elementBytes(scratch.type.getElementType());
}

int64_t mlir::tile::gpu_lowering::getStagedStoreBytes(const KernelPlan &plan,
                                                      CopyOp op) {
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
  if (ShapedType::getNumElements(shape) * bytes < plan.threads * 16)
    return 0;
  SharedStorage scratch = getStoreScratch(op, isTmaStore(plan, op));
  return scratch.stageElements * bytes;
}

void mlir::tile::gpu_lowering::forEachDealtElement(
    const KernelContext &k, OpBuilder &b, Location loc, ArrayRef<int64_t> fullShape,
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

void mlir::tile::gpu_lowering::storeFragmentToShared(
    const KernelContext &k, OpBuilder &b, Location loc,
    const FragmentStorage &fragment, const SharedStorage &shared) {
  storeFragment(k, b, loc, fragment, sharedSide(shared));
}

void mlir::tile::gpu_lowering::loadFragmentFromShared(
    const KernelContext &k, OpBuilder &b, Location loc, const SharedStorage &shared,
    const FragmentStorage &fragment) {
  loadFragment(k, b, loc, sharedSide(shared), fragment, {});
}

static LogicalResult lowerCopy(const KernelContext &k, PatternRewriter &rewriter,
                               CopyOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets();
  Side src = describe(k, b, loc, op.getSource(), offsets);
  Side dst = describe(k, b, loc, op.getDest(), offsets);
  Type dstType = dst.getElementType();
  bool writesShared = dst.kind == Side::Shared;
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
    bool tmaStore = k.tmaReady.count(planned);
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
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      k.barrier(b, loc);
      SmallVector<Value> origin =
          llvm::map_to_vector(op.getMixedOffsets(), [&](OpFoldResult offset) {
            return getValueOrCreateConstantIndexOp(b, loc, offset);
          });
      auto ready = scf::IfOp::create(b, loc, k.tmaReady.lookup(planned),
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

static LogicalResult lowerFill(const KernelContext &k, PatternRewriter &rewriter,
                               FillOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value value = op.getValue();
  if (const FragmentStorage *dstFragment = k.getFragment(op.getDest())) {
    const FragmentStorage &fragment = *dstFragment;
    for (int64_t slot = 0, e = getSlotExtent(fragment.layout); slot < e; ++slot)
      if (isSlotUsed(fragment.layout, slot))
        storeSlot(b, loc, fragment, slot, value);
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

static LogicalResult lowerAtomicAdd(const KernelContext &k, PatternRewriter &rewriter,
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
        Value v = loadSlot(inner, loc, *src.fragment, slot);
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

static LogicalResult lowerParallel(const KernelContext &k, PatternRewriter &rewriter,
                                   ParallelOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  const Layout &loop = k.getLoopLayout(op);
  Block &body = op.getBody().front();

  // Element accesses, and for fragments the loop dim each of their dims
  // reads.
  struct Access {
    Operation *op;
    SmallVector<unsigned> dims;
  };
  SmallVector<Access> accesses;
  bool storesToShared = false;
  body.walk([&](Operation *nested) {
    if (!isa<LoadOp, StoreOp>(nested))
      return;
    Access access{nested, {}};
    Value buffer = isa<LoadOp>(nested) ? cast<LoadOp>(nested).getBuffer()
                                       : cast<StoreOp>(nested).getBuffer();
    ValueRange indices = isa<LoadOp>(nested)
                             ? cast<LoadOp>(nested).getIndices()
                             : cast<StoreOp>(nested).getIndices();
    if (isa<FragmentType>(buffer.getType()))
      access.dims = getFragmentAccessDims(op, indices);
    storesToShared |= isa<StoreOp>(nested) && k.getShared(buffer);
    accesses.push_back(std::move(access));
  });

  b.setInsertionPoint(op);
  if (storesToShared)
    k.barrier(b, loc);
  for (int64_t slot = 0, e = getSlotExtent(loop); slot < e; ++slot) {
    if (!isSlotUsed(loop, slot))
      continue;
    Value guard = k.ownsSlot(b, loc, loop, slot, /*firstCopyOnly=*/false);
    LogicalResult status = success();
    buildGuarded(b, loc, guard, [&](OpBuilder &inner) {
      IRMapping mapping;
      SmallVector<Value> index = k.fragmentIndex(inner, loc, loop, slot);
      for (auto [iv, value] : llvm::zip(body.getArguments(), index))
        mapping.map(iv, value);
      for (Operation &nested : body)
        rewriter.clone(nested, mapping);
      OpBuilder::InsertionGuard insertion(rewriter);
      for (const Access &access : accesses) {
        Operation *clone = mapping.lookup(access.op);
        rewriter.setInsertionPoint(clone);
        OpBuilder &at = rewriter;
        Location l = clone->getLoc();
        if (auto load = dyn_cast<LoadOp>(clone)) {
          Value v;
          if (const FragmentStorage *fragment = k.getFragment(load.getBuffer())) {
            std::optional<int64_t> from =
                k.mapSlot(loop, slot, fragment->layout, access.dims);
            if (!from) {
              status = load.emitOpError("reads a fragment element that the "
                                        "thread running this iteration "
                                        "does not hold in a fixed slot");
              return;
            }
            v = loadSlot(at, l, *fragment, *from,
                         uniformSlotOffset(at, l, *fragment,
                                           load.getIndices(), access.dims));
          } else {
            Side side = describe(k, at, l, load.getBuffer(), {});
            side.offsets.assign(load.getIndices().size(),
                                k.constant(at, l, 0));
            v = readMemory(k, at, l, side, load.getIndices(),
                           load.getPadAttr());
          }
          rewriter.replaceOp(load, v);
          continue;
        }
        auto store = cast<StoreOp>(clone);
        if (const FragmentStorage *fragment =
                k.getFragment(store.getBuffer())) {
          std::optional<int64_t> to =
              k.mapSlot(loop, slot, fragment->layout, access.dims);
          if (!to) {
            status = store.emitOpError("writes a fragment element that the "
                                       "thread running this iteration does "
                                       "not hold in a fixed slot");
            return;
          }
          storeSlot(at, l, *fragment, *to, store.getValue(),
                    uniformSlotOffset(at, l, *fragment, store.getIndices(),
                                      access.dims));
        } else {
          Side side = describe(k, at, l, store.getBuffer(), {});
          side.offsets.assign(store.getIndices().size(),
                              k.constant(at, l, 0));
          writeMemory(k, at, l, side, store.getIndices(), store.getValue());
        }
        rewriter.eraseOp(store);
      }
    });
    if (failed(status))
      return failure();
  }
  if (storesToShared)
    k.publishShared(b, loc);
  rewriter.eraseOp(op);
  return success();
}


namespace {

struct CopyLowering
    : public GpuLoweringOpInterface::ExternalModel<CopyLowering, CopyOp> {
  /// A copy between fragments: how its elements move (FragmentTransfer).
  LogicalResult plan(Operation *op, KernelPlan &kernel) const {
    auto copy = cast<CopyOp>(op);
    if (!kernel.fragments.count(copy.getSource()) ||
        !kernel.fragments.count(copy.getDest()))
      return success();
    unsigned bits =
        cast<FragmentType>(copy.getSource().getType()).getElementTypeBitWidth();
    kernel.transfers[op] = planFragmentTransfer(
        kernel.getFragmentLayout(copy.getSource()),
        kernel.getFragmentLayout(copy.getDest()), bits, kernel.threads,
        kernel.target.warpSize);
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
