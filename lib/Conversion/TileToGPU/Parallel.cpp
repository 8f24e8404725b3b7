//===- Parallel.cpp - tile.parallel on the GPU ----------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.parallel: each thread runs the body once per slot of the loop layout it
// holds, with the iteration's index; element accesses become loads and stores
// of fragment slots (the slot the loop's slot maps to) or of global and shared
// memory. Writes to shared memory are fenced by barriers on both sides.
// Where a thread's slots come in runs along the innermost dim and the body
// reads or writes memory there, the runs execute on vectors instead
// (ParallelVectors.cpp), with this code as the fallback for unaligned
// tensors.
//
//===----------------------------------------------------------------------===//

#include "Copies.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

Value mlir::tile::gpu_lowering::uniformSlotOffset(
    OpBuilder &b, Location loc, const FragmentStorage &fragment,
    ValueRange indices, ArrayRef<unsigned> dims) {
  if (!llvm::is_contained(dims, kUniformDim))
    return Value();
  SmallVector<Value> index;
  for (auto [d, value] : llvm::zip(dims, indices))
    index.push_back(d == kUniformDim ? value : constantIndex(b, loc, 0));
  return applyLayout(b, loc, fragment.layout, index, kSlotAxis);
}

namespace {
/// An element access of a tile.parallel's body and, for a fragment, the
/// loop dim each of its dims reads.
struct Access {
  Operation *op;
  SmallVector<unsigned> dims;
};
} // namespace

/// Each slot of `loop` a thread holds runs the body once, element by
/// element, at `rewriter`'s insertion point.
static LogicalResult buildScalarIterations(const KernelContext &k,
                                           PatternRewriter &rewriter,
                                           ParallelOp op, const Layout &loop,
                                           ArrayRef<Access> accesses,
                                           ArrayRef<PrintOp> prints) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  Block &body = op.getBody().front();
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
          if (const FragmentStorage *fragment =
                  k.getFragment(load.getBuffer())) {
            std::optional<int64_t> from =
                k.mapSlot(loop, slot, fragment->layout, access.dims);
            if (!from) {
              status = load.emitOpError("reads a fragment element that the "
                                        "thread running this iteration "
                                        "does not hold in a fixed slot");
              return;
            }
            v = fragment->load(at, l, *from,
                               uniformSlotOffset(at, l, *fragment,
                                                 load.getIndices(),
                                                 access.dims));
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
          fragment->store(at, l, *to, store.getValue(),
                          uniformSlotOffset(at, l, *fragment,
                                            store.getIndices(), access.dims));
        } else {
          Side side = describe(k, at, l, store.getBuffer(), {});
          side.offsets.assign(store.getIndices().size(),
                              k.constant(at, l, 0));
          writeMemory(k, at, l, side, store.getIndices(), store.getValue());
        }
        rewriter.eraseOp(store);
      }
      // Prints of the iteration, from the thread that runs it.
      for (PrintOp print : prints) {
        auto clone = cast<PrintOp>(mapping.lookup(print.getOperation()));
        rewriter.setInsertionPoint(clone);
        if (failed(lowerPrint(k, rewriter, clone)))
          status = failure();
      }
    });
    if (failed(status))
      return failure();
  }
  return success();
}

LogicalResult mlir::tile::gpu_lowering::lowerParallel(const KernelContext &k,
                                                      PatternRewriter &rewriter,
                                                      ParallelOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  const Layout &loop = k.getLoopLayout(op);
  Block &body = op.getBody().front();

  SmallVector<Access> accesses;
  SmallVector<PrintOp> prints;
  bool storesToShared = false;
  body.walk([&](Operation *nested) {
    if (auto print = dyn_cast<PrintOp>(nested))
      prints.push_back(print);
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
  LogicalResult status = success();
  auto scalarBody = [&](OpBuilder &at) {
    OpBuilder::InsertionGuard insertion(rewriter);
    rewriter.setInsertionPoint(at.getInsertionBlock(), at.getInsertionPoint());
    status = buildScalarIterations(k, rewriter, op, loop, accesses, prints);
  };
  if (std::optional<ParallelVectors> plan =
          planParallelVectors(k, b, op, loop)) {
    // Runs in vectors where every vector access is aligned, else (an
    // unaligned global tensor or offset) element by element.
    Value aligned = buildParallelAlignment(k, b, op, *plan);
    withAlignment(
        b, loc, aligned,
        [&](OpBuilder &at) {
          status = buildVectorIterations(k, at, op, loop, *plan);
        },
        [&](OpBuilder &at) {
          LogicalResult vectorStatus = status;
          scalarBody(at);
          status = succeeded(vectorStatus) ? status : vectorStatus;
        });
  } else {
    scalarBody(b);
  }
  if (failed(status))
    return failure();
  if (storesToShared)
    k.publishShared(b, loc);
  rewriter.eraseOp(op);
  return success();
}
