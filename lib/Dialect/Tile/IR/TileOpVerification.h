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

} // namespace mlir::tile::detail

#endif // TILE_LIB_DIALECT_TILE_IR_TILEOPVERIFICATION_H
