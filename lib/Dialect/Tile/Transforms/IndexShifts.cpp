//===- IndexShifts.cpp - How values differ between merged instances ------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/IndexShifts.h"

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

IndexShifts::IndexShifts(Region &scope,
                         ArrayRef<std::pair<Value, int64_t>> seeds,
                         AccessShiftFn accessShift)
    : scope(scope), accessShift(accessShift) {
  for (auto [value, shift] : seeds)
    memo[value] = shift;
}

std::optional<int64_t> IndexShifts::get(Value value) {
  if (auto it = memo.find(value); it != memo.end())
    return it->second;
  std::optional<int64_t> result = compute(value);
  memo[value] = result;
  return result;
}

bool IndexShifts::indicesMatch(Value buffer, ValueRange indices) {
  for (auto [dim, index] : llvm::enumerate(indices)) {
    std::optional<int64_t> expected = accessShift(buffer, dim);
    if (!expected || get(index) != expected)
      return false;
  }
  return true;
}

std::optional<int64_t> IndexShifts::compute(Value value) {
  if (!scope.isAncestor(value.getParentRegion()) ||
      matchPattern(value, m_Constant()))
    return 0;
  Operation *def = value.getDefiningOp();
  if (!def)
    return 0;
  if (auto load = dyn_cast<LoadOp>(def)) {
    if (indicesMatch(load.getBuffer(), load.getIndices()))
      return 0;
    return std::nullopt;
  }
  if (auto load = dyn_cast<memref::LoadOp>(def)) {
    if (indicesMatch(load.getMemRef(), load.getIndices()))
      return 0;
    return std::nullopt;
  }
  if (!isPure(def) || def->getNumRegions() != 0)
    return std::nullopt;
  SmallVector<int64_t> shifts;
  for (Value operand : def->getOperands()) {
    std::optional<int64_t> shift = get(operand);
    if (!shift)
      return std::nullopt;
    shifts.push_back(*shift);
  }
  // A pure op of values that do not shift does not.
  if (llvm::all_of(shifts, [](int64_t d) { return d == 0; }))
    return 0;
  auto constant = [&](unsigned i) {
    return getConstantIntValue(def->getOperand(i));
  };
  if (isa<arith::AddIOp>(def))
    return shifts[0] + shifts[1];
  if (isa<arith::SubIOp>(def))
    return shifts[0] - shifts[1];
  if (isa<arith::MulIOp>(def)) {
    if (std::optional<int64_t> c = constant(1))
      return *c * shifts[0];
    if (std::optional<int64_t> c = constant(0))
      return *c * shifts[1];
  }
  // (x + d) / e == x / e + d / e and (x + d) % e == x % e where e divides d.
  if (isa<arith::FloorDivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(
          def)) {
    std::optional<int64_t> e = constant(1);
    if (!e || *e <= 0 || shifts[0] % *e != 0)
      return std::nullopt;
    return isa<arith::FloorDivSIOp, arith::DivUIOp>(def) ? shifts[0] / *e : 0;
  }
  return std::nullopt;
}
