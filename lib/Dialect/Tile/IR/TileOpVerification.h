//===- TileOpVerification.h - What the op verifiers share -------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the tile dialect's op files (TileOps.cpp, TileMemoryOps.cpp,
// TileComputeOps.cpp, TileLoopOps.cpp): the helpers their verifiers share.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_DIALECT_TILE_IR_TILEOPVERIFICATION_H
#define TILE_LIB_DIALECT_TILE_IR_TILEOPVERIFICATION_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include <string>

namespace mlir::tile::detail {

/// In a kernel with thread ranges: each fragment is used by the threads of
/// one range (or by the whole block), else a located error.
LogicalResult verifyFragmentThreads(KernelOp kernel);

/// A shape as `[a, b]` for diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);

inline ArrayRef<int64_t> getShape(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

inline Type getElementType(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

/// Checks that `layout` suits a buffer of `shape` x `elementType` in the
/// kernel enclosing `op`.
LogicalResult verifyBufferLayout(Operation *op, LayoutAttrInterface attr,
                                 ArrayRef<int64_t> shape, Type elementType,
                                 bool wantFragment);

/// Verifies a reducer's allocation (TileReducerOps.cpp).
LogicalResult verifyReducerFragment(FragmentOp op);
/// Verifies a tile.store into a reducer: an update of the element
/// (TileReducerOps.cpp).
LogicalResult verifyReducerUpdate(StoreOp store, ReduceKind kind);
/// Verifies a tile.load of a reducer in a tile.parallel body: in a loop
/// that updates the reducer, only an update reads it.
LogicalResult verifyReducerLoad(LoadOp load);
/// Checks the order of the reducer operations of `kernel`: that no reducer
/// is updated after its finalize (without a tile.fill in between),
/// finalized twice, read before its finalize, or written by an op other
/// than tile.fill, its updates and tile.finalize_reducer.
LogicalResult verifyReducerOrder(KernelOp kernel);

} // namespace mlir::tile::detail

#endif // TILE_LIB_DIALECT_TILE_IR_TILEOPVERIFICATION_H
