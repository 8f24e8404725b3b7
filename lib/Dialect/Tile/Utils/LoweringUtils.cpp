//===- LoweringUtils.cpp - Helpers shared by the tile lowerings -----------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::tile;

SmallVector<Value> mlir::tile::getBlockIds(OpBuilder &b, Location loc,
                                           ValueRange launchIds,
                                           ValueRange gridSizes,
                                           RasterAttr raster) {
  if (!raster)
    return SmallVector<Value>(launchIds);
  assert(launchIds.size() == 2 && "rasterization needs a 2-d grid");
  // Walk panels along `major` (the dim the panel cuts), `minor` inside.
  bool rows = raster.getOrder() == RasterOrder::Row;
  Value majorSize = gridSizes[rows ? 0 : 1], minorSize = gridSizes[rows ? 1 : 0];
  Value panel = arith::ConstantIndexOp::create(b, loc, raster.getPanel());
  Value linear = arith::AddIOp::create(
      b, loc, launchIds[0],
      arith::MulIOp::create(b, loc, launchIds[1], gridSizes[0]));
  Value perPanel = arith::MulIOp::create(b, loc, panel, minorSize);
  Value panelIndex = arith::DivUIOp::create(b, loc, linear, perPanel);
  Value within = arith::RemUIOp::create(b, loc, linear, perPanel);
  Value panelStart = arith::MulIOp::create(b, loc, panelIndex, panel);
  // The last panel may be narrower.
  Value left = arith::SubIOp::create(b, loc, majorSize, panelStart);
  Value width = arith::MinUIOp::create(b, loc, panel, left);
  Value major = arith::AddIOp::create(
      b, loc, panelStart, arith::RemUIOp::create(b, loc, within, width));
  Value minor = arith::DivUIOp::create(b, loc, within, width);
  return rows ? SmallVector<Value>{major, minor}
              : SmallVector<Value>{minor, major};
}

unsigned mlir::tile::getBlockIdMask(KernelOp kernel, ValueRange values) {
  unsigned mask = 0;
  SmallVector<Value> worklist(values.begin(), values.end());
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == &kernel.getBody().front())
        mask |= 1u << arg.getArgNumber();
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (kernel->isAncestor(def))
      llvm::append_range(worklist, def->getOperands());
  }
  return mask;
}

SmallVector<Value> mlir::tile::getBlockIdsOfLinear(OpBuilder &b, Location loc,
                                                   Value linear,
                                                   ValueRange gridSizes,
                                                   RasterAttr raster) {
  SmallVector<Value> launchIds;
  for (auto [i, size] : llvm::enumerate(gridSizes)) {
    if (i + 1 == gridSizes.size()) {
      launchIds.push_back(linear);
      break;
    }
    launchIds.push_back(arith::RemUIOp::create(b, loc, linear, size));
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  return getBlockIds(b, loc, launchIds, gridSizes, raster);
}

Value mlir::tile::buildInBounds(OpBuilder &b, Location loc, Value memref,
                                ValueRange index) {
  auto type = cast<MemRefType>(memref.getType());
  Value all;
  for (auto [d, i] : llvm::enumerate(index)) {
    std::optional<int64_t> constIndex = getConstantIntValue(i);
    if (!type.isDynamicDim(d) && constIndex && *constIndex >= 0 &&
        *constIndex < type.getDimSize(d))
      continue;
    Value size = memref::DimOp::create(b, loc, memref, d);
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, size);
    all = all ? arith::AndIOp::create(b, loc, all, inside).getResult() : inside;
  }
  return all;
}

Value mlir::tile::buildThreadIndex(OpBuilder &b, Location loc, ThreadUnit unit,
                                   Value thread, int64_t warpSize) {
  if (unit == ThreadUnit::Thread)
    return thread;
  Value warp = arith::ConstantIndexOp::create(b, loc, warpSize);
  if (unit == ThreadUnit::Lane)
    return arith::RemUIOp::create(b, loc, thread, warp);
  return arith::DivUIOp::create(b, loc, thread, warp);
}

static LLVM::AtomicOrdering getOrdering(MemoryOrder order) {
  switch (order) {
  case MemoryOrder::Acquire:
    return LLVM::AtomicOrdering::acquire;
  case MemoryOrder::Release:
    return LLVM::AtomicOrdering::release;
  case MemoryOrder::AcqRel:
    return LLVM::AtomicOrdering::acq_rel;
  case MemoryOrder::SeqCst:
    return LLVM::AtomicOrdering::seq_cst;
  }
  llvm_unreachable("unknown memory order");
}

void mlir::tile::replaceFence(RewriterBase &rewriter, FenceOp fence,
                              StringRef syncScope) {
  rewriter.setInsertionPoint(fence);
  rewriter.replaceOpWithNewOp<LLVM::FenceOp>(
      fence, getOrdering(fence.getOrder()), syncScope);
}

void mlir::tile::lowerFences(RewriterBase &rewriter, Operation *root,
                             StringRef syncScope) {
  SmallVector<FenceOp> fences;
  root->walk([&](FenceOp fence) { fences.push_back(fence); });
  for (FenceOp fence : fences)
    replaceFence(rewriter, fence, syncScope);
}

Value mlir::tile::convertScalar(OpBuilder &b, Location loc, Value value,
                                Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  if (isa<FloatType>(from) && isa<FloatType>(to))
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? arith::ExtFOp::create(b, loc, to, value).getResult()
               : arith::TruncFOp::create(b, loc, to, value).getResult();
  if (isa<IntegerType>(from) && isa<IntegerType>(to))
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? arith::ExtSIOp::create(b, loc, to, value).getResult()
               : arith::TruncIOp::create(b, loc, to, value).getResult();
  if (isa<IntegerType>(from))
    return arith::SIToFPOp::create(b, loc, to, value);
  return arith::FPToSIOp::create(b, loc, to, value);
}

Value mlir::tile::buildReduceIdentity(OpBuilder &b, Location loc,
                                      ReduceKind kind, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    APFloat value = APFloat::getZero(sem);
    if (kind == ReduceKind::Max)
      value = APFloat::getInf(sem, /*Negative=*/true);
    else if (kind == ReduceKind::Min)
      value = APFloat::getInf(sem, /*Negative=*/false);
    return arith::ConstantOp::create(b, loc, type,
                                     b.getFloatAttr(floatType, value));
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  APInt value = APInt::getZero(bits);
  if (kind == ReduceKind::Max)
    value = APInt::getSignedMinValue(bits);
  else if (kind == ReduceKind::Min)
    value = APInt::getSignedMaxValue(bits);
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
}

Value mlir::tile::buildReduceMerge(OpBuilder &b, Location loc, ReduceKind kind,
                                   Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::AbsSum:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case ReduceKind::Max:
  case ReduceKind::AbsMax:
    return isFloat ? arith::MaximumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MaxSIOp::create(b, loc, lhs, rhs).getResult();
  case ReduceKind::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MinSIOp::create(b, loc, lhs, rhs).getResult();
  }
  llvm_unreachable("unknown reduce kind");
}

Value mlir::tile::buildReduceCombine(OpBuilder &b, Location loc,
                                     ReduceKind kind, Value acc, Value value) {
  if (kind == ReduceKind::AbsMax || kind == ReduceKind::AbsSum)
    value = isa<FloatType>(value.getType())
                ? math::AbsFOp::create(b, loc, value).getResult()
                : math::AbsIOp::create(b, loc, value).getResult();
  return buildReduceMerge(b, loc, kind, acc, value);
}

Value mlir::tile::buildMulAdd(OpBuilder &b, Location loc, Value lhs, Value rhs,
                              Value acc) {
  Type type = acc.getType();
  lhs = convertScalar(b, loc, lhs, type);
  rhs = convertScalar(b, loc, rhs, type);
  if (isa<FloatType>(type))
    return math::FmaOp::create(b, loc, lhs, rhs, acc);
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, lhs, rhs));
}

Value mlir::tile::buildPadValue(OpBuilder &b, Location loc, TypedAttr pad,
                                Type type) {
  if (pad)
    return arith::ConstantOp::create(b, loc, pad);
  return arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
}

Value mlir::tile::buildGuardedLoad(OpBuilder &b, Location loc, Value memref,
                                   ValueRange index, bool guard,
                                   TypedAttr pad) {
  Value inBounds = guard ? buildInBounds(b, loc, memref, index) : Value();
  if (!inBounds)
    return memref::LoadOp::create(b, loc, memref, index);
  Type type = cast<MemRefType>(memref.getType()).getElementType();
  auto ifOp = scf::IfOp::create(
      b, loc, inBounds,
      [&](OpBuilder &then, Location l) {
        scf::YieldOp::create(
            then, l, ValueRange{memref::LoadOp::create(then, l, memref, index)});
      },
      [&](OpBuilder &otherwise, Location l) {
        scf::YieldOp::create(otherwise, l,
                             ValueRange{buildPadValue(otherwise, l, pad, type)});
      });
  return ifOp.getResult(0);
}

void mlir::tile::buildGuarded(OpBuilder &b, Location loc, Value guard,
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

void mlir::tile::buildGuardedWrite(
    OpBuilder &b, Location loc, Value memref, ValueRange index, bool guard,
    function_ref<void(OpBuilder &, Location)> write) {
  Value inBounds = guard ? buildInBounds(b, loc, memref, index) : Value();
  buildGuarded(b, loc, inBounds, [&](OpBuilder &w) { write(w, loc); });
}

Im2ColIndex mlir::tile::buildIm2ColIndex(OpBuilder &b, Location loc,
                                         Im2ColOp op, Value image,
                                         Value pixelBlock, Value kBlock,
                                         Value row, Value column) {
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto dim = [&](int64_t d) -> Value {
    return b.createOrFold<memref::DimOp>(loc, image, d);
  };
  auto add = [&](Value x, Value y) -> Value {
    return b.createOrFold<arith::AddIOp>(loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return b.createOrFold<arith::MulIOp>(loc, x, y);
  };
  auto div = [&](Value x, Value y) -> Value {
    return b.createOrFold<arith::DivUIOp>(loc, x, y);
  };
  auto rem = [&](Value x, Value y) -> Value {
    return b.createOrFold<arith::RemUIOp>(loc, x, y);
  };
  auto below = [&](Value x, Value bound) -> Value {
    return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, x,
                                         bound);
  };
  int64_t kernel = op.getKernel(), stride = op.getStride(),
          dilation = op.getDilation(), padding = op.getPadding();
  ArrayRef<int64_t> shape = op.getCol().getType().getShape();
  Value n = dim(0), h = dim(1), w = dim(2), c = dim(3);
  // Output extents, at least 1 as divisors (an image smaller than the
  // filter has no output pixel: `n < N` then fails for every pixel, since
  // the pixel index divided by one is the pixel index).
  auto outputExtent = [&](Value extent) -> Value {
    Value span =
        add(extent, constant(2 * padding - dilation * (kernel - 1) - 1));
    Value out =
        add(b.createOrFold<arith::FloorDivSIOp>(loc, span, constant(stride)),
            constant(1));
    return b.createOrFold<arith::MaxSIOp>(loc, out, constant(1));
  };
  Value oh = outputExtent(h), ow = outputExtent(w);
  Value channels = b.createOrFold<arith::MaxSIOp>(loc, c, constant(1));
  Value pixel = add(mul(pixelBlock, constant(shape[0])), row);
  Value q = add(mul(kBlock, constant(shape[1])), column);
  Value x = rem(pixel, ow);
  Value y = rem(div(pixel, ow), oh);
  Value picture = div(pixel, mul(ow, oh));
  Value channel = rem(q, channels);
  Value kw = rem(div(q, channels), constant(kernel));
  Value kh = div(q, mul(channels, constant(kernel)));
  auto input = [&](Value out, Value tap) {
    return add(add(mul(out, constant(stride)), constant(-padding)),
               mul(tap, constant(dilation)));
  };
  Value inY = input(y, kh), inX = input(x, kw);
  // Unsigned compares: a negative row or column (the padding) is outside.
  Value inside = b.createOrFold<arith::AndIOp>(
      loc,
      b.createOrFold<arith::AndIOp>(loc, below(picture, n),
                                    below(kh, constant(kernel))),
      b.createOrFold<arith::AndIOp>(loc, below(inY, h), below(inX, w)));
  return {inside, {picture, inY, inX, channel}};
}

Value mlir::tile::buildMemoryBarrierArrive(OpBuilder &b, Location loc,
                                           Value state, Value index,
                                           Value count) {
  Type i64 = b.getI64Type();
  auto rmw = memref::GenericAtomicRMWOp::create(b, loc, state, index);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rmw.getBody());
    Value word = rmw.getCurrentValue();
    auto constant = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    // Arrivals + 1 == count: the next phase, no arrivals; else one more.
    Value arrivals = arith::AndIOp::create(b, loc, word, constant(0xffffffff));
    Value plusOne = arith::AddIOp::create(b, loc, arrivals, constant(1));
    Value completes =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, plusOne, count);
    Value phases = arith::ShRUIOp::create(b, loc, word, constant(32));
    Value next = arith::ShLIOp::create(
        b, loc, arith::AddIOp::create(b, loc, phases, constant(1)),
        constant(32));
    Value arrived = arith::AddIOp::create(b, loc, word, constant(1));
    memref::AtomicYieldOp::create(
        b, loc, arith::SelectOp::create(b, loc, completes, next, arrived));
  }
  return rmw.getResult();
}

/// The parity (i1) of the current phase of a barrier word: the low bit of
/// its completed phases.
static Value getPhaseParity(OpBuilder &b, Location loc, Value word) {
  Value phases = arith::ShRUIOp::create(
      b, loc, word, arith::ConstantIntOp::create(b, loc, b.getI64Type(), 32));
  return arith::TruncIOp::create(b, loc, b.getI1Type(), phases);
}

void mlir::tile::buildMemoryBarrierWait(
    OpBuilder &b, Location loc, Value state, Value index, Value parity,
    function_ref<void(OpBuilder &, Location)> pause) {
  Type i64 = b.getI64Type();
  scf::WhileOp::create(
      b, loc, TypeRange(), ValueRange(),
      [&](OpBuilder &before, Location l, ValueRange) {
        // An atomic read (or with 0) that acquires what the arrivals
        // released.
        Value word = memref::AtomicRMWOp::create(
            before, l, arith::AtomicRMWKind::ori,
            arith::ConstantIntOp::create(before, l, i64, 0), state, index);
        Value waiting =
            arith::CmpIOp::create(before, l, arith::CmpIPredicate::eq,
                                  getPhaseParity(before, l, word), parity);
        scf::ConditionOp::create(before, l, waiting, ValueRange());
      },
      [&](OpBuilder &after, Location l, ValueRange) {
        pause(after, l);
        scf::YieldOp::create(after, l);
      });
}

void mlir::tile::buildMemoryBarrierSync(
    OpBuilder &b, Location loc, Value state, Value index, int64_t count,
    function_ref<void(OpBuilder &, Location)> pause) {
  Value old = buildMemoryBarrierArrive(
      b, loc, state, index,
      arith::ConstantIntOp::create(b, loc, b.getI64Type(), count));
  buildMemoryBarrierWait(b, loc, state, index, getPhaseParity(b, loc, old),
                         pause);
}

Value mlir::tile::buildLowBit(OpBuilder &b, Location loc, Value index) {
  Value word = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  return arith::TruncIOp::create(b, loc, b.getI1Type(), word);
}
