//===- MemoryAccess.cpp - Sides of a data movement ------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// How the data-movement lowerings read and write global and shared memory: a
// side of a copy (global, shared or fragment), its elements and 16-byte
// vectors at a logical index of the tile (guarded where they may fall outside
// a global tensor), and the vector width and run-time alignment checks that
// decide between vectors and scalars.
//
//===----------------------------------------------------------------------===//

#include "Copies.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

Side mlir::tile::gpu_lowering::describe(const KernelContext &k, OpBuilder &b,
                                        Location loc, Value value,
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
Side mlir::tile::gpu_lowering::sharedSide(const SharedStorage &shared) {
  Side side;
  side.kind = Side::Shared;
  side.sharedBuffer = &shared;
  return side;
}

SmallVector<Value> mlir::tile::gpu_lowering::globalIndex(OpBuilder &b,
                                                         Location loc,
                                                         const Side &side,
                                                         ValueRange index) {
  SmallVector<Value> result;
  for (auto [offset, i] : llvm::zip(side.offsets, index))
    result.push_back(arith::AddIOp::create(b, loc, offset, i));
  return result;
}

Value mlir::tile::gpu_lowering::readMemory(const KernelContext &k, OpBuilder &b,
                                           Location loc, const Side &side,
                                           ValueRange index, TypedAttr pad) {
  if (side.kind == Side::Shared)
    return memref::LoadOp::create(
        b, loc, side.sharedBuffer->memory,
        k.sharedOffset(b, loc, *side.sharedBuffer, index));
  return buildGuardedLoad(b, loc, side.value, globalIndex(b, loc, side, index),
                          /*guard=*/true, pad);
}

void mlir::tile::gpu_lowering::writeMemory(const KernelContext &k, OpBuilder &b,
                                           Location loc, const Side &side,
                                           ValueRange index, Value v) {
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
FailureOr<Layout>
mlir::tile::gpu_lowering::rescaleSlotRuns(const Layout &layout, int64_t width) {
  Layout simple = layout.simplify();
  unsigned innermost = getFragmentRank(layout) - 1;
  ArrayRef<LayoutFactor> factors = simple.getDims()[innermost];
  if (factors.empty() || factors.back().outDim != kSlotAxis)
    return failure();
  return simple.rescale(innermost, width);
}

bool mlir::tile::gpu_lowering::allowsVectors(const Side &side, int64_t width) {
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
int64_t
mlir::tile::gpu_lowering::chooseVectorWidth(ArrayRef<const Side *> sides,
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
    if (llvm::all_of(sides, [&](const Side *side) {
          return allowsVectors(*side, width);
        }))
      return width;
  }
  return 1;
}

/// i1: every run of `width` elements of the global side starts at an
/// address aligned to the run's size (base pointer, offset, strides and the
/// tile's origin); uniform over the block.
static Value buildAlignmentCheck(const KernelContext &k, OpBuilder &b,
                                 Location loc, const Side &global,
                                 int64_t width) {
  Value rows = areRowsAligned(b, loc, global.value, width);
  Value origin = isMultipleOf(b, loc, global.offsets.back(), width);
  return arith::AndIOp::create(b, loc, rows, origin);
}

/// i1: the `width` elements from `index` along the innermost dim are all
/// inside the global memref.
static Value wholeVectorInBounds(const KernelContext &k, OpBuilder &b,
                                 Location loc, Value memref, ValueRange index,
                                 int64_t width) {
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

Value mlir::tile::gpu_lowering::readVector(const KernelContext &k, OpBuilder &b,
                                           Location loc, const Side &side,
                                           ValueRange index, int64_t width,
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
        scf::YieldOp::create(
            then, l, ValueRange{vectorLoad(then, l, type, side.value, at)});
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

/// Writes the vector `v` at `index` of a global side with `write`, called
/// once with the vector where it is inside the memref, else with each
/// element in bounds (a scalar and its index).
static void writeGlobalVector(
    const KernelContext &k, OpBuilder &b, Location loc, const Side &side,
    ValueRange index, Value v,
    function_ref<void(OpBuilder &, Location, Value, ValueRange)> write) {
  int64_t width = cast<VectorType>(v.getType()).getNumElements();
  SmallVector<Value> at = globalIndex(b, loc, side, index);
  Value whole = wholeVectorInBounds(k, b, loc, side.value, at, width);
  scf::IfOp::create(
      b, loc, whole,
      [&](OpBuilder &then, Location l) {
        write(then, l, v, at);
        scf::YieldOp::create(then, l);
      },
      [&](OpBuilder &otherwise, Location l) {
        for (int64_t i = 0; i < width; ++i) {
          SmallVector<Value> element(at);
          element.back() = arith::AddIOp::create(otherwise, l, element.back(),
                                                 k.constant(otherwise, l, i));
          Value x = vector::ExtractOp::create(otherwise, l, v, i);
          buildGuardedWrite(
              otherwise, l, side.value, element, /*guard=*/true,
              [&](OpBuilder &w, Location wl) { write(w, wl, x, element); });
        }
        scf::YieldOp::create(otherwise, l);
      });
}

void mlir::tile::gpu_lowering::writeVector(const KernelContext &k, OpBuilder &b,
                                           Location loc, const Side &side,
                                           ValueRange index, Value v) {
  if (side.kind == Side::Shared) {
    vectorStore(b, loc, v, side.sharedBuffer->memory,
                k.sharedOffset(b, loc, *side.sharedBuffer, index));
    return;
  }
  writeGlobalVector(k, b, loc, side, index, v,
                    [&](OpBuilder &w, Location l, Value x, ValueRange at) {
                      if (isa<VectorType>(x.getType()))
                        vectorStore(w, l, x, side.value, at);
                      else
                        memref::StoreOp::create(w, l, x, side.value, at);
                    });
}

void mlir::tile::gpu_lowering::atomicAddVector(const KernelContext &k,
                                               OpBuilder &b, Location loc,
                                               const Side &side,
                                               ValueRange index, Value v) {
  writeGlobalVector(k, b, loc, side, index, v,
                    [&](OpBuilder &w, Location l, Value x, ValueRange at) {
                      if (isa<VectorType>(x.getType()))
                        k.codegen.buildAtomicAddVector(w, l, side.value, at, x);
                      else
                        memref::AtomicRMWOp::create(w, l,
                                                    arith::AtomicRMWKind::addf,
                                                    x, side.value, at);
                    });
}

void mlir::tile::gpu_lowering::withAlignment(
    OpBuilder &b, Location loc, Value aligned,
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

Value mlir::tile::gpu_lowering::alignmentOfSides(const KernelContext &k,
                                                 OpBuilder &b, Location loc,
                                                 ArrayRef<const Side *> sides,
                                                 int64_t width) {
  Value all;
  for (const Side *side : sides) {
    if (side->kind != Side::Global)
      continue;
    Value ok = buildAlignmentCheck(k, b, loc, *side, width);
    all = all ? arith::AndIOp::create(b, loc, all, ok).getResult() : ok;
  }
  return all;
}
