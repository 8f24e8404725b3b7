//===- SpecializeKernels.cpp - One kernel per value of its host flags ----===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile-specialize-kernels: a tile.kernel marked `specialize` that reads
// i1 values from outside it is replaced by
//
//   scf.if %flag0 { scf.if %flag1 { kernel[true, true] } else { ... } }
//   else { ... }
//
// where each copy sees its flags as constants and is folded (scf.if,
// arith.select and what becomes dead), so no launched kernel branches on
// them.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESPECIALIZEKERNELS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr unsigned kMaxFlags = 3;

/// The i1 values defined outside `kernel` that ops inside it use, in the
/// order of their first use.
SmallVector<Value> getFlags(KernelOp kernel) {
  SetVector<Value> flags;
  kernel.getBody().walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (operand.getType().isInteger(1) &&
          !kernel->isAncestor(operand.getParentRegion()->getParentOp()))
        flags.insert(operand);
  });
  return flags.takeVector();
}

/// Folds what the constant flags decide in a copy of the kernel.
LogicalResult fold(KernelOp kernel) {
  MLIRContext *context = kernel.getContext();
  RewritePatternSet patterns(context);
  scf::IfOp::getCanonicalizationPatterns(patterns, context);
  // arith's (arith.select's among them).
  for (RegisteredOperationName name : context->getRegisteredOperations())
    if (name.getDialectNamespace() == "arith")
      name.getCanonicalizationPatterns(patterns, context);
  GreedyRewriteConfig config;
  config.setScope(&kernel.getBody());
  return applyPatternsGreedily(kernel.getBody(), std::move(patterns), config);
}

/// Emits, at `b`, the copies of `kernel` for every value of `flags[i..]`,
/// `values` holding those of `flags[..i]`.
LogicalResult emitVariants(OpBuilder &b, KernelOp kernel,
                           ArrayRef<Value> flags,
                           SmallVectorImpl<bool> &values) {
  Location loc = kernel.getLoc();
  if (values.size() == flags.size()) {
    auto copy = cast<KernelOp>(b.clone(*kernel));
    copy.setSpecialize(false);
    OpBuilder inner = OpBuilder::atBlockBegin(&copy.getBody().front());
    for (auto [i, value] : llvm::enumerate(values)) {
      Value flag = flags[i];
      Value constant = arith::ConstantIntOp::create(inner, loc, value, 1);
      flag.replaceUsesWithIf(constant, [&](OpOperand &use) {
        return copy->isAncestor(use.getOwner());
      });
    }
    return fold(copy);
  }
  Value flag = flags[values.size()];
  auto branch = scf::IfOp::create(b, loc, flag, /*withElseRegion=*/true);
  for (bool value : {true, false}) {
    OpBuilder side = value ? branch.getThenBodyBuilder()
                           : branch.getElseBodyBuilder();
    values.push_back(value);
    LogicalResult done = emitVariants(side, kernel, flags, values);
    values.pop_back();
    if (failed(done))
      return failure();
  }
  return success();
}

struct TileSpecializeKernelsPass
    : public tile::impl::TileSpecializeKernelsBase<TileSpecializeKernelsPass> {
  void runOnOperation() override {
    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp kernel) {
      if (kernel.getSpecialize())
        kernels.push_back(kernel);
    });
    for (KernelOp kernel : kernels) {
      SmallVector<Value> flags = getFlags(kernel);
      if (flags.empty()) {
        kernel.emitOpError("is marked 'specialize' but uses no i1 value "
                           "defined outside it to specialize on");
        return signalPassFailure();
      }
      if (flags.size() > kMaxFlags) {
        kernel.emitOpError("is marked 'specialize' and uses ")
            << flags.size() << " i1 values defined outside it; at most " << kMaxFlags
            << " (" << (1 << kMaxFlags) << " kernels) are specialized on";
        return signalPassFailure();
      }
      OpBuilder b(kernel);
      SmallVector<bool> values;
      if (failed(emitVariants(b, kernel, flags, values))) {
        kernel.emitOpError("could not fold its specialized copies");
        return signalPassFailure();
      }
      kernel.erase();
    }
  }
};

} // namespace
