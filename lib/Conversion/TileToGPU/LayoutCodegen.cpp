//===- LayoutCodegen.cpp - Layouts evaluated in per-thread code -----------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "LayoutCodegen.h"

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

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

/// Digit `f` of a run-time thread id.
Value digitOf(OpBuilder &b, Location loc, Value thread, const LayoutFactor &f) {
  Value quotient =
      arith::DivUIOp::create(b, loc, thread, constantIndex(b, loc, f.stride));
  return arith::RemUIOp::create(b, loc, quotient,
                                constantIndex(b, loc, f.size));
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

Value mlir::tile::gpu_lowering::constantIndex(OpBuilder &b, Location loc,
                                              int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value mlir::tile::gpu_lowering::applyLayout(OpBuilder &b, Location loc,
                                            const Layout &layout,
                                            ValueRange index,
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
                                           constantIndex(b, loc, position));
          if (i != 0) // The outermost digit needs no wrap-around.
            digit = arith::RemUIOp::create(b, loc, digit,
                                           constantIndex(b, loc, f.size));
          if (f.stride != 1)
            digit = arith::MulIOp::create(b, loc, digit,
                                          constantIndex(b, loc, f.stride));
          offset = offset ? arith::AddIOp::create(b, loc, offset, digit)
                                .getResult()
                          : digit;
        }
      }
      position *= f.size;
    }
  }
  Value result = constantIndex(b, loc, staticOffset);
  if (offset)
    result = staticOffset
                 ? arith::AddIOp::create(b, loc, offset, result).getResult()
                 : offset;
  return result;
}

Value mlir::tile::gpu_lowering::applySwizzle(OpBuilder &b, Location loc,
                                             Value offset,
                                             const Swizzle &swizzle) {
  int64_t mask = ((int64_t(1) << swizzle.bits) - 1)
                 << (swizzle.base + swizzle.shift);
  Value bits =
      arith::AndIOp::create(b, loc, offset, constantIndex(b, loc, mask));
  Value moved = arith::ShRUIOp::create(b, loc, bits,
                                       constantIndex(b, loc, swizzle.shift));
  return arith::XOrIOp::create(b, loc, offset, moved);
}

SmallVector<Value> mlir::tile::gpu_lowering::fragmentIndex(
    OpBuilder &b, Location loc, const Layout &fragment, int64_t slot,
    Value thread, int64_t threadBound) {
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
                                         constantIndex(b, loc, f.stride));
        if (f.stride * f.size < threadBound)
          digit = arith::RemUIOp::create(b, loc, digit,
                                         constantIndex(b, loc, f.size));
        if (position != 1)
          digit = arith::MulIOp::create(b, loc, digit,
                                        constantIndex(b, loc, position));
        dynamicPart = dynamicPart
                          ? arith::AddIOp::create(b, loc, dynamicPart, digit)
                                .getResult()
                          : digit;
      }
      position *= f.size;
    }
    Value value = constantIndex(b, loc, staticPart);
    if (dynamicPart)
      value = staticPart ? arith::AddIOp::create(b, loc, dynamicPart, value)
                               .getResult()
                         : dynamicPart;
    index.push_back(value);
  }
  return index;
}

Value mlir::tile::gpu_lowering::fragmentThread(OpBuilder &b, Location loc,
                                               const Layout &fragment,
                                               ValueRange index,
                                               int64_t replica) {
  SmallVector<Value> point(index);
  point.push_back(constantIndex(b, loc, replica));
  return applyLayout(b, loc, fragment, point, kThreadAxis);
}

bool mlir::tile::gpu_lowering::isSlotUsed(const Layout &fragment,
                                          int64_t slot) {
  return reconstructs(fragment, kSlotAxis, slot);
}

Value mlir::tile::gpu_lowering::buildOwnsSlot(OpBuilder &b, Location loc,
                                              const Layout &fragment,
                                              int64_t slot, bool firstCopyOnly,
                                              Value thread, int64_t threads) {
  Value guard;
  auto conjoin = [&](Value condition) {
    guard = guard ? arith::AndIOp::create(b, loc, guard, condition).getResult()
                  : condition;
  };
  int64_t extent = getThreadExtent(fragment);
  if (threadsAreCompact(fragment)) {
    if (extent < threads)
      conjoin(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, thread,
                                    constantIndex(b, loc, extent)));
  } else {
    // Rebuild the thread id from its digits: holes do not.
    Value sum = constantIndex(b, loc, 0);
    for (const LayoutFactor &f : threadFactors(fragment)) {
      Value digit = digitOf(b, loc, thread, f);
      sum = arith::AddIOp::create(
          b, loc, sum,
          arith::MulIOp::create(b, loc, digit,
                                constantIndex(b, loc, f.stride)));
    }
    conjoin(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, sum, thread));
  }
  if (firstCopyOnly) {
    for (const LayoutFactor &f : fragment.getDims().back()) {
      if (f.size <= 1 || f.outDim != kThreadAxis)
        continue;
      Value digit = digitOf(b, loc, thread, f);
      conjoin(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, digit,
                                    constantIndex(b, loc, 0)));
    }
  }
  return guard;
}

std::optional<int64_t>
mlir::tile::gpu_lowering::mapSlot(const Layout &source, int64_t sourceSlot,
                                  const Layout &target,
                                  ArrayRef<unsigned> dims, int64_t threads) {
  std::optional<int64_t> result;
  int64_t copies = target.getInShape().back();
  for (int64_t t = 0; t < threads; ++t) {
    if (!reconstructs(source, kThreadAxis, t) ||
        t >= getThreadExtent(source))
      continue;
    SmallVector<int64_t> index = evalIndex(source, t, sourceSlot);
    SmallVector<int64_t> projected;
    for (unsigned d : dims)
      projected.push_back(d == kUniformDim ? 0 : index[d]);
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

SmallVector<Value> mlir::tile::gpu_lowering::delinearize(
    OpBuilder &b, Location loc, Value linear, ArrayRef<int64_t> shape) {
  SmallVector<Value> index(shape.size());
  if (shape.empty())
    return index;
  for (int64_t d = shape.size() - 1; d > 0; --d) {
    Value size = constantIndex(b, loc, shape[d]);
    index[d] = arith::RemUIOp::create(b, loc, linear, size);
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  index[0] = linear;
  return index;
}

Value mlir::tile::gpu_lowering::isMultipleOf(OpBuilder &b, Location loc,
                                             Value v, int64_t n) {
  // Any integer type (index, or a variable's i32).
  auto constant = [&](int64_t c) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(v.getType(), c));
  };
  Value remainder = arith::RemUIOp::create(b, loc, v, constant(n));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, remainder,
                               constant(0));
}

Value mlir::tile::gpu_lowering::areRowsAligned(OpBuilder &b, Location loc,
                                               Value memref,
                                               int64_t elements) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t bytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value start = arith::AddIOp::create(
      b, loc, base,
      arith::MulIOp::create(b, loc, metadata.getOffset(),
                            constantIndex(b, loc, bytes)));
  Value ok = isMultipleOf(b, loc, start, elements * bytes);
  for (Value stride : metadata.getStrides().drop_back())
    ok = arith::AndIOp::create(b, loc, ok,
                               isMultipleOf(b, loc, stride, elements));
  return ok;
}

int64_t mlir::tile::gpu_lowering::elementBytes(Type type) {
  return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
}

/// Bytes of one `vector`'s elements together.
static int64_t vectorBytes(VectorType type) {
  return type.getNumElements() * elementBytes(type.getElementType());
}

Value mlir::tile::gpu_lowering::vectorLoad(OpBuilder &b, Location loc,
                                           VectorType type, Value memref,
                                           ValueRange index) {
  auto load = vector::LoadOp::create(b, loc, type, memref, index);
  load->setAttr("alignment", b.getI64IntegerAttr(vectorBytes(type)));
  return load;
}

void mlir::tile::gpu_lowering::vectorStore(OpBuilder &b, Location loc, Value v,
                                           Value memref, ValueRange index) {
  auto store = vector::StoreOp::create(b, loc, v, memref, index);
  store->setAttr("alignment", b.getI64IntegerAttr(vectorBytes(
                                  cast<VectorType>(v.getType()))));
}
