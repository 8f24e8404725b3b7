//===- Print.cpp - tile.print on the GPU ----------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.print as gpu.printf calls (vprintf on NVIDIA, the hostcall printf on
// AMD), in TileLang's lines (PrintLines.h). Every thread prints a message,
// a scalar and its own thread-local buffer (in a tile.parallel body: each
// thread that runs the iteration, Parallel.cpp). A global tensor, a shared
// buffer or a fragment is printed by one thread after a barrier, element by
// element in row-major order; a fragment is first gathered into shared
// scratch by the threads that hold its elements, so the print reads it
// whatever its layout and constrains none.
//
//===----------------------------------------------------------------------===//

#include "KernelContext.h"

#include "tile/Dialect/Tile/Utils/PrintLines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

using Printed = PrintOp::Printed;

/// A fragment is gathered into row-major shared scratch.
static int64_t getPrintScratchBytes(const KernelPlan &plan, PrintOp op) {
  if (op.getPrinted() != Printed::Fragment)
    return 0;
  auto type = cast<FragmentType>(op.getValue().getType());
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

static void emitPrintf(OpBuilder &b, Location loc, StringRef format,
                       ValueRange args) {
  gpu::PrintfOp::create(b, loc, format, args);
}

LogicalResult mlir::tile::gpu_lowering::lowerPrint(const KernelContext &k,
                                                   PatternRewriter &rewriter,
                                                   PrintOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  Printed printed = op.getPrinted();
  PrintOrigin origin;
  for (gpu::Dimension dim :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
    origin.blockIds.push_back(gpu::BlockIdOp::create(b, loc, dim));
  origin.thread = k.threadId;
  Value value = op.getValue();

  if (printed == Printed::Message || printed == Printed::Scalar) {
    buildPrintLine(b, loc, op, origin, Value(), value, emitPrintf);
    rewriter.eraseOp(op);
    return success();
  }

  // How an element at a logical index is read.
  std::function<Value(OpBuilder &, Location, Value, ValueRange)> read;
  if (printed == Printed::Fragment) {
    // Gathered in row-major order: the flat index is the offset.
    const FragmentStorage &fragment = *k.getFragment(value);
    Type element = fragment.type.getElementType();
    SharedStorage scratch;
    scratch.type = MemRefType::get(fragment.type.getShape(), element);
    scratch.layout = Layout::rowMajor(fragment.type.getShape());
    scratch.memory =
        k.getScratch(b, loc, op, fragment.type.getNumElements(), element);
    k.barrier(b, loc);
    storeFragmentToShared(k, b, loc, fragment, scratch);
    k.barrier(b, loc);
    Value memory = scratch.memory;
    read = [memory](OpBuilder &at, Location l, Value flat, ValueRange) {
      return memref::LoadOp::create(at, l, memory, flat).getResult();
    };
  } else if (printed == Printed::Shared) {
    // Written by other threads: read after a barrier, through the layout
    // (and at the stage a pipelined loop reads).
    k.barrier(b, loc);
    const SharedStorage *shared = k.getShared(value);
    read = [&k, shared](OpBuilder &at, Location l, Value, ValueRange index) {
      Value offset = k.sharedOffset(at, l, *shared, index);
      return memref::LoadOp::create(at, l, shared->memory, offset).getResult();
    };
  } else {
    // A global tensor (after a barrier, for the block's writes to it) or
    // this thread's own buffer.
    if (printed == Printed::Global)
      k.barrier(b, loc);
    read = [value](OpBuilder &at, Location l, Value, ValueRange index) {
      return memref::LoadOp::create(at, l, value, index).getResult();
    };
  }

  auto printElements = [&](OpBuilder &at) {
    buildRowMajorLoop(
        at, loc, value,
        [&](OpBuilder &inner, Location l, Value flat, ValueRange index) {
          buildPrintLine(inner, l, op, origin, flat,
                         read(inner, l, flat, index), emitPrintf);
        });
  };
  if (printed == Printed::Local) {
    printElements(b);
  } else {
    Value thread = k.constant(b, loc, op.getPrintingThread());
    Value isPrinter = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            k.threadId, thread);
    auto branch = scf::IfOp::create(b, loc, isPrinter);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    printElements(b);
  }
  rewriter.eraseOp(op);
  return success();
}

void mlir::tile::gpu_lowering::attachPrintLowering(MLIRContext *context) {
  PrintOp::attachInterface<
      LowerWithScratch<PrintOp, getPrintScratchBytes, lowerPrint>>(*context);
}
