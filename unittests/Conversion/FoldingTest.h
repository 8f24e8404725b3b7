//===- FoldingTest.h - Evaluating built IR by folding -----------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A gtest fixture for the GPU lowering's code builders: code is built into
// functions of index arguments and evaluated by folding each op on its
// operands' values, as the GPU would compute it, so the arithmetic can be
// checked against the library it implements without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_CONVERSION_FOLDINGTEST_H
#define TILE_UNITTESTS_CONVERSION_FOLDINGTEST_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

namespace mlir::tile {

class FoldingTest : public ::testing::Test {
protected:
  FoldingTest() {
    context.loadDialect<TileDialect, arith::ArithDialect,
                        func::FuncDialect>();
    module = ModuleOp::create(loc);
  }
  ~FoldingTest() override { module->erase(); }

  /// A function of `n` index arguments to build code in.
  Block *newFunction(unsigned n) {
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    SmallVector<Type> types(n, mb.getIndexType());
    auto fn = func::FuncOp::create(mb, loc, "f",
                                   mb.getFunctionType(types, {}));
    Block *body = fn.addEntryBlock();
    b.setInsertionPointToEnd(body);
    return body;
  }

  /// `v` with the block's arguments bound to `args`: each op folded on its
  /// operands' values, as the GPU would compute it. Fails the test if an op
  /// does not fold.
  int64_t evaluate(Value v, ArrayRef<int64_t> args) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return args[arg.getArgNumber()];
    Operation *op = v.getDefiningOp();
    SmallVector<Attribute> operands;
    for (Value operand : op->getOperands())
      operands.push_back(
          IntegerAttr::get(operand.getType(), evaluate(operand, args)));
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(operands, results)) || results.empty()) {
      ADD_FAILURE() << "does not fold: "
                    << op->getName().getStringRef().str();
      return 0;
    }
    OpFoldResult result = results[cast<OpResult>(v).getResultNumber()];
    if (auto value = dyn_cast<Value>(result))
      return evaluate(value, args);
    APInt bits = cast<IntegerAttr>(cast<Attribute>(result)).getValue();
    return bits.getBitWidth() == 1 ? bits.getZExtValue() : bits.getSExtValue();
  }

  MLIRContext context;
  Location loc = UnknownLoc::get(&context);
  ModuleOp module;
  OpBuilder b{&context};
};

} // namespace mlir::tile

#endif // TILE_UNITTESTS_CONVERSION_FOLDINGTEST_H
