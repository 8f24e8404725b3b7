//===- LayoutCodegen.h - Layouts evaluated in per-thread code ---*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tile-to-gpu. The arithmetic the GPU code does with
// layouts: a fragment slot's logical index on a thread, whether a thread
// holds a slot, a shared buffer's (swizzled) offset of an index, and the
// static facts (which slots exist, where an element of one fragment sits in
// another) that decide what code to emit.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_LAYOUTCODEGEN_H
#define TILE_LIB_CONVERSION_TILETOGPU_LAYOUTCODEGEN_H

#include "tile/Layout/FragmentLayouts.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile::gpu_lowering {

/// An `index` constant.
Value constantIndex(OpBuilder &b, Location loc, int64_t value);

/// Output `outDim` of `layout` at a run-time `index` (one value per input
/// dim; constants fold), before any swizzle.
Value applyLayout(OpBuilder &b, Location loc, const Layout &layout,
                  ValueRange index, unsigned outDim);
/// `offset` through `swizzle`.
Value applySwizzle(OpBuilder &b, Location loc, Value offset,
                   const Swizzle &swizzle);

/// The logical index of slot `slot` of `thread` in a fragment layout, for
/// thread ids below `threadBound`; threads that hold nothing there compute
/// garbage (see buildOwnsSlot).
SmallVector<Value> fragmentIndex(OpBuilder &b, Location loc,
                                 const Layout &fragment, int64_t slot,
                                 Value thread, int64_t threadBound);
/// The thread holding replica `replica` of fragment element `index`.
Value fragmentThread(OpBuilder &b, Location loc, const Layout &fragment,
                     ValueRange index, int64_t replica);

/// Whether slot `slot` exists in `fragment` for some thread (static).
bool isSlotUsed(const Layout &fragment, int64_t slot);
/// i1: `thread` (one of `threads`) holds slot `slot` of `fragment` (and,
/// with `firstCopyOnly`, holds copy 0 of the element there); null when that
/// is always true.
Value buildOwnsSlot(OpBuilder &b, Location loc, const Layout &fragment,
                    int64_t slot, bool firstCopyOnly, Value thread,
                    int64_t threads);
/// The slot of `target` that holds, on every one of `threads` threads, the
/// element `source` has in slot `sourceSlot`; std::nullopt when it differs
/// between threads or a thread lacks it. `dims[d]` is the dim of `source`
/// that target dim d reads (a projection when target has fewer dims), or
/// kUniformDim for a dim read at a uniform index: index 0 there (the slot
/// of another index adds its slot digits, which layout inference keeps
/// apart from threads).
std::optional<int64_t> mapSlot(const Layout &source, int64_t sourceSlot,
                               const Layout &target, ArrayRef<unsigned> dims,
                               int64_t threads);

/// The row-major index of `linear` in `shape` (the outermost dim is not
/// bounded).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> shape);
/// i1: `v % n == 0` (`v` an index or integer; `n` a power of two, so
/// that negative values test right).
Value isMultipleOf(OpBuilder &b, Location loc, Value v, int64_t n);
/// i1, uniform over the block: every row of the global `memref` starts at
/// an address aligned to `elements` elements (base pointer, offset and
/// every stride but the innermost). Runs of `elements` starting at a
/// column that is a multiple of `elements` are then aligned too.
Value areRowsAligned(OpBuilder &b, Location loc, Value memref,
                     int64_t elements);

/// Bytes one element of `type` takes in memory.
int64_t elementBytes(Type type);
/// A vector load (store) of `memref` at `index` that claims the alignment
/// of the whole vector (the callers test it, or it holds by construction).
Value vectorLoad(OpBuilder &b, Location loc, VectorType type, Value memref,
                 ValueRange index);
void vectorStore(OpBuilder &b, Location loc, Value v, Value memref,
                 ValueRange index);

} // namespace mlir::tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_LAYOUTCODEGEN_H
