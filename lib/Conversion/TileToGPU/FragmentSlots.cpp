//===- FragmentSlots.cpp - Fragment slots ---------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A fragment lowered to per-thread registers (a private array of slots):
// loads and stores of one slot, and whole fragments moved to and from memory,
// each thread moving the elements its slots hold, in runs of consecutive
// slots where the other side allows vectors.
//
//===----------------------------------------------------------------------===//

#include "Copies.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

/// Slot runs of `fragment` that hold `width` consecutive innermost elements:
/// calls `body` with the run's first slot and the logical index of its first
/// element, under the thread's ownership guard.
static void
forEachSlotRun(const KernelContext &k, OpBuilder &b, Location loc,
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

void mlir::tile::gpu_lowering::storeFragment(const KernelContext &k,
                                             OpBuilder &b, Location loc,
                                             const FragmentStorage &fragment,
                                             const Side &dst) {
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
            Value v = fragment.load(inner, loc, slot);
            writeMemory(k, inner, loc, dst, index,
                        convertScalar(inner, loc, v, type));
            return;
          }
          SmallVector<Value> elements;
          for (int64_t i = 0; i < runWidth; ++i)
            elements.push_back(convertScalar(
                inner, loc, fragment.load(inner, loc, slot + i), type));
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

void mlir::tile::gpu_lowering::loadFragment(const KernelContext &k,
                                            OpBuilder &b, Location loc,
                                            const Side &src,
                                            const FragmentStorage &fragment,
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
            fragment.store(inner, loc, slot,
                           convertScalar(inner, loc, v, type));
            return;
          }
          Value v = readVector(k, inner, loc, src, index, runWidth, pad);
          for (int64_t i = 0; i < runWidth; ++i)
            fragment.store(
                inner, loc, slot + i,
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

void mlir::tile::gpu_lowering::storeFragmentToShared(
    const KernelContext &k, OpBuilder &b, Location loc,
    const FragmentStorage &fragment, const SharedStorage &shared) {
  storeFragment(k, b, loc, fragment, sharedSide(shared));
}

void mlir::tile::gpu_lowering::loadFragmentFromShared(
    const KernelContext &k, OpBuilder &b, Location loc,
    const SharedStorage &shared, const FragmentStorage &fragment) {
  loadFragment(k, b, loc, sharedSide(shared), fragment, {});
}
