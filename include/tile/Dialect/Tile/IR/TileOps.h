//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEOPS_H
#define TILE_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tile/Dialect/Tile/IR/TileAttrs.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/IR/TileTypes.h"
#include "tile/Dialect/Tile/IR/LayoutInference.h"

namespace mlir::tile {
/// Verifies that a block-level op sits in a tile.kernel and not in a
/// tile.parallel body.
LogicalResult verifyBlockLevel(Operation *op);

template <typename ConcreteType>
class BlockLevel : public OpTrait::TraitBase<ConcreteType, BlockLevel> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyBlockLevel(op);
  }
};
} // namespace mlir::tile

#include "tile/Dialect/Tile/IR/TileOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::tile {
/// The threads `op` runs across: those of its tile.thread_range (or the
/// range itself), else its kernel's; 0 outside a kernel.
int64_t getThreadCount(Operation *op);
/// Whether `kernel` has tile.thread_range regions.
bool hasThreadRanges(KernelOp kernel);
/// Whether `kernel`'s code names its threads: it reads a thread index, has
/// thread ranges or makes barriers (whose arrival counts count threads).
/// Its threads then differ, and their count is as written.
bool namesThreads(KernelOp kernel);

/// How a fragment element access in a tile.parallel body (tile.load /
/// tile.store) indexes each dim of the fragment: by an induction variable of
/// `parallel` (its number), or by a uniform value, the same for every
/// iteration (defined outside the loop, or a constant; kUniformDim).
inline constexpr unsigned kUniformDim = ~0u;
SmallVector<unsigned> getFragmentAccessDims(ParallelOp parallel,
                                            ValueRange indices);
/// Calls `callback` with the op, the buffer and getFragmentAccessDims of
/// each fragment element access (tile.load / tile.store) whose nearest
/// tile.parallel is `parallel`.
void forEachFragmentAccess(
    ParallelOp parallel,
    function_ref<void(Operation *access, Value buffer, ArrayRef<unsigned> dims)>
        callback);

/// The kind of a reducer (a fragment allocated by `tile.fragment
/// reducer(kind)`); std::nullopt for any other value.
std::optional<ReduceKind> getReducerKind(Value buffer);
/// For an update of a reducer element (a tile.store of `kind(tile.load of
/// the same element, x)`, see StoreOp): the load of the element; null when
/// `store` is not one.
LoadOp getReducerUpdateLoad(StoreOp store);
/// The tile.parallel loops whose bodies update `reducer`, in program order.
SmallVector<ParallelOp> getReducerUpdateLoops(Value reducer);

/// The buffer `memory` is a view of (through view-like ops; `memory`
/// itself when no view defines it).
Value getViewRoot(Value memory);
} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_TILEOPS_H
