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

#include "KernelLowering.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

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

Side describe(KernelLowering &k, OpBuilder &b, Location loc, Value value,
              ArrayRef<OpFoldResult> offsets) {
  Side side;
  side.value = value;
  if (auto it = k.fragments.find(value); it != k.fragments.end()) {
    side.kind = Side::Fragment;
    side.fragment = &it->second;
  } else if (auto it = k.shared.find(value); it != k.shared.end()) {
    side.kind = Side::Shared;
    side.sharedBuffer = &it->second;
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
Value readMemory(KernelLowering &k, OpBuilder &b, Location loc,
                 const Side &side, ValueRange index, TypedAttr pad) {
  if (side.kind == Side::Shared)
    return memref::LoadOp::create(
        b, loc, side.sharedBuffer->memory,
        k.sharedOffset(b, loc, *side.sharedBuffer, index));
  return buildGuardedLoad(b, loc, side.value, globalIndex(b, loc, side, index),
                          /*guard=*/true, pad);
}

/// Writes `v` at `index` of a global or shared side.
void writeMemory(KernelLowering &k, OpBuilder &b, Location loc,
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

/// Runs `body` under `guard` (directly when it is null).
void guarded(OpBuilder &b, Location loc, Value guard,
             function_ref<void(OpBuilder &)> body) {
  if (!guard) {
    body(b);
    return;
  }
  scf::IfOp::create(b, loc, guard, [&](OpBuilder &then, Location l) {
    body(then);
    scf::YieldOp::create(then, l);
  });
}

/// Calls `body` with this thread's logical indices of a tile of `shape`,
/// elements dealt round-robin over the block's threads.
void forEachDealtElement(
    KernelLowering &k, OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  int64_t elements = 1;
  for (int64_t s : shape)
    elements *= s;
  int64_t rounds = llvm::divideCeil(elements, k.threads);
  auto loop = scf::ForOp::create(b, loc, k.constant(b, loc, 0),
                                 k.constant(b, loc, rounds),
                                 k.constant(b, loc, 1));
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
  guarded(b, loc, guard, [&](OpBuilder &inner) {
    SmallVector<Value> index(shape.size());
    Value rest = linear;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      Value size = k.constant(inner, loc, shape[d]);
      index[d] = d == 0 ? rest
                        : arith::RemUIOp::create(inner, loc, rest, size)
                              .getResult();
      if (d > 0)
        rest = arith::DivUIOp::create(inner, loc, rest, size);
    }
    body(inner, loc, index);
  });
}

Value loadSlot(OpBuilder &b, Location loc, const FragmentStorage &fragment,
               int64_t slot) {
  return memref::LoadOp::create(
      b, loc, fragment.slots,
      ValueRange{arith::ConstantIndexOp::create(b, loc, slot)});
}

void storeSlot(OpBuilder &b, Location loc, const FragmentStorage &fragment,
               int64_t slot, Value v) {
  memref::StoreOp::create(
      b, loc, v, fragment.slots,
      ValueRange{arith::ConstantIndexOp::create(b, loc, slot)});
}

SmallVector<unsigned> identityDims(unsigned rank) {
  SmallVector<unsigned> dims(rank);
  std::iota(dims.begin(), dims.end(), 0);
  return dims;
}

/// Each thread writes its elements (copy 0) of `fragment` to `dst`.
void storeFragment(KernelLowering &k, OpBuilder &b, Location loc,
                   const FragmentStorage &fragment, const Side &dst) {
  const Layout &layout = fragment.layout;
  Type type = dst.getElementType();
  for (int64_t slot = 0, e = getSlotExtent(layout); slot < e; ++slot) {
    if (!k.isSlotUsed(layout, slot))
      continue;
    Value guard = k.ownsSlot(b, loc, layout, slot, /*firstCopyOnly=*/true);
    guarded(b, loc, guard, [&](OpBuilder &inner) {
      SmallVector<Value> index = k.fragmentIndex(inner, loc, layout, slot);
      Value v = loadSlot(inner, loc, fragment, slot);
      writeMemory(k, inner, loc, dst, index, convertScalar(inner, loc, v, type));
    });
  }
}

/// Each thread fills every slot of `fragment` from `src`.
void loadFragment(KernelLowering &k, OpBuilder &b, Location loc,
                  const Side &src, const FragmentStorage &fragment,
                  TypedAttr pad) {
  const Layout &layout = fragment.layout;
  Type type = fragment.type.getElementType();
  for (int64_t slot = 0, e = getSlotExtent(layout); slot < e; ++slot) {
    if (!k.isSlotUsed(layout, slot))
      continue;
    Value guard = k.ownsSlot(b, loc, layout, slot, /*firstCopyOnly=*/false);
    guarded(b, loc, guard, [&](OpBuilder &inner) {
      SmallVector<Value> index = k.fragmentIndex(inner, loc, layout, slot);
      Value v = readMemory(k, inner, loc, src, index, pad);
      storeSlot(inner, loc, fragment, slot, convertScalar(inner, loc, v, type));
    });
  }
}

Side sharedSide(const SharedStorage &shared) {
  Side side;
  side.kind = Side::Shared;
  side.sharedBuffer = &shared;
  return side;
}

} // namespace

void mlir::tile::gpu_lowering::storeFragmentToShared(
    KernelLowering &k, OpBuilder &b, Location loc,
    const FragmentStorage &fragment, const SharedStorage &shared) {
  storeFragment(k, b, loc, fragment, sharedSide(shared));
}

void mlir::tile::gpu_lowering::loadFragmentFromShared(
    KernelLowering &k, OpBuilder &b, Location loc, const SharedStorage &shared,
    const FragmentStorage &fragment) {
  loadFragment(k, b, loc, sharedSide(shared), fragment, {});
}

LogicalResult mlir::tile::gpu_lowering::lowerCopy(KernelLowering &k,
                                                  CopyOp op) {
  OpBuilder &b = k.rewriter;
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
    const Layout &from = src.fragment->layout, &to = dst.fragment->layout;
    SmallVector<unsigned> dims = identityDims(getFragmentRank(to));
    for (int64_t slot = 0, e = getSlotExtent(to); slot < e; ++slot) {
      if (!k.isSlotUsed(to, slot))
        continue;
      std::optional<int64_t> fromSlot = k.mapSlot(to, slot, from, dims);
      if (!fromSlot)
        return op.emitOpError("copies between fragments whose layouts put an "
                              "element on different threads; this needs a "
                              "trip through shared memory, which the GPU "
                              "lowering does not do yet");
      Value v = loadSlot(b, loc, *src.fragment, *fromSlot);
      storeSlot(b, loc, *dst.fragment, slot, convertScalar(b, loc, v, dstType));
    }
  } else if (src.kind == Side::Fragment) {
    // Each thread writes the elements it holds, once per element.
    storeFragment(k, b, loc, *src.fragment, dst);
  } else if (dst.kind == Side::Fragment) {
    // Every copy of every element is filled by its own thread.
    loadFragment(k, b, loc, src, *dst.fragment, op.getPadAttr());
  } else {
    ArrayRef<int64_t> shape =
        cast<ShapedType>(op.getTile().getType()).getShape();
    forEachDealtElement(k, b, loc, shape,
                        [&](OpBuilder &inner, Location l, ValueRange index) {
                          Value v = readMemory(k, inner, l, src, index,
                                               op.getPadAttr());
                          writeMemory(k, inner, l, dst, index,
                                      convertScalar(inner, l, v, dstType));
                        });
  }
  if (writesShared)
    k.barrier(b, loc);
  k.rewriter.eraseOp(op);
  return success();
}

LogicalResult mlir::tile::gpu_lowering::lowerFill(KernelLowering &k,
                                                  FillOp op) {
  OpBuilder &b = k.rewriter;
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value value = op.getValue();
  if (auto it = k.fragments.find(op.getDest()); it != k.fragments.end()) {
    const FragmentStorage &fragment = it->second;
    for (int64_t slot = 0, e = getSlotExtent(fragment.layout); slot < e; ++slot)
      if (k.isSlotUsed(fragment.layout, slot))
        storeSlot(b, loc, fragment, slot, value);
  } else {
    Side dst = describe(k, b, loc, op.getDest(), {});
    k.barrier(b, loc);
    forEachDealtElement(k, b, loc,
                        cast<ShapedType>(op.getDest().getType()).getShape(),
                        [&](OpBuilder &inner, Location l, ValueRange index) {
                          writeMemory(k, inner, l, dst, index, value);
                        });
    k.barrier(b, loc);
  }
  k.rewriter.eraseOp(op);
  return success();
}

LogicalResult mlir::tile::gpu_lowering::lowerAtomicAdd(KernelLowering &k,
                                                       AtomicAddOp op) {
  OpBuilder &b = k.rewriter;
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
      if (!k.isSlotUsed(layout, slot))
        continue;
      // One add per element: only the thread holding copy 0.
      Value guard = k.ownsSlot(b, loc, layout, slot, /*firstCopyOnly=*/true);
      guarded(b, loc, guard, [&](OpBuilder &inner) {
        add(inner, loc, k.fragmentIndex(inner, loc, layout, slot),
            loadSlot(inner, loc, *src.fragment, slot));
      });
    }
  } else {
    forEachDealtElement(
        k, b, loc, cast<ShapedType>(op.getSource().getType()).getShape(),
        [&](OpBuilder &inner, Location l, ValueRange index) {
          add(inner, l, index, readMemory(k, inner, l, src, index, {}));
        });
  }
  k.rewriter.eraseOp(op);
  return success();
}

LogicalResult mlir::tile::gpu_lowering::lowerParallel(KernelLowering &k,
                                                      ParallelOp op) {
  OpBuilder &b = k.rewriter;
  Location loc = op.getLoc();
  Layout loop = cast<FragmentLayoutAttr>(op.getLayoutAttr()).toLayout();
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
      for (Value index : indices)
        access.dims.push_back(cast<BlockArgument>(index).getArgNumber());
    storesToShared |= isa<StoreOp>(nested) && k.shared.count(buffer);
    accesses.push_back(std::move(access));
  });

  b.setInsertionPoint(op);
  if (storesToShared)
    k.barrier(b, loc);
  for (int64_t slot = 0, e = getSlotExtent(loop); slot < e; ++slot) {
    if (!k.isSlotUsed(loop, slot))
      continue;
    Value guard = k.ownsSlot(b, loc, loop, slot, /*firstCopyOnly=*/false);
    LogicalResult status = success();
    guarded(b, loc, guard, [&](OpBuilder &inner) {
      IRMapping mapping;
      SmallVector<Value> index = k.fragmentIndex(inner, loc, loop, slot);
      for (auto [iv, value] : llvm::zip(body.getArguments(), index))
        mapping.map(iv, value);
      for (Operation &nested : body)
        inner.clone(nested, mapping);
      for (const Access &access : accesses) {
        Operation *clone = mapping.lookup(access.op);
        OpBuilder at(clone);
        Location l = clone->getLoc();
        if (auto load = dyn_cast<LoadOp>(clone)) {
          Value v;
          if (auto it = k.fragments.find(load.getBuffer());
              it != k.fragments.end()) {
            std::optional<int64_t> from =
                k.mapSlot(loop, slot, it->second.layout, access.dims);
            if (!from) {
              status = load.emitOpError("reads a fragment element that the "
                                        "thread running this iteration "
                                        "does not hold in a fixed slot");
              return;
            }
            v = loadSlot(at, l, it->second, *from);
          } else {
            Side side = describe(k, at, l, load.getBuffer(), {});
            side.offsets.assign(load.getIndices().size(),
                                k.constant(at, l, 0));
            v = readMemory(k, at, l, side, load.getIndices(),
                           load.getPadAttr());
          }
          load.replaceAllUsesWith(v);
          load->erase();
          continue;
        }
        auto store = cast<StoreOp>(clone);
        if (auto it = k.fragments.find(store.getBuffer());
            it != k.fragments.end()) {
          std::optional<int64_t> to =
              k.mapSlot(loop, slot, it->second.layout, access.dims);
          if (!to) {
            status = store.emitOpError("writes a fragment element that the "
                                       "thread running this iteration does "
                                       "not hold in a fixed slot");
            return;
          }
          storeSlot(at, l, it->second, *to, store.getValue());
        } else {
          Side side = describe(k, at, l, store.getBuffer(), {});
          side.offsets.assign(store.getIndices().size(),
                              k.constant(at, l, 0));
          writeMemory(k, at, l, side, store.getIndices(), store.getValue());
        }
        store->erase();
      }
    });
    if (failed(status))
      return failure();
  }
  if (storesToShared)
    k.barrier(b, loc);
  k.rewriter.eraseOp(op);
  return success();
}
