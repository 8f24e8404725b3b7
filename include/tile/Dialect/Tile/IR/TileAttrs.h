//===- TileAttrs.h - tile dialect attributes --------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEATTRS_H
#define TILE_DIALECT_TILE_IR_TILEATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "tile/Layout/FragmentLayouts.h"
#include "tile/Layout/Layout.h"
#include "tile/Target/Target.h"

#include "llvm/ADT/Hashing.h"

namespace mlir::tile {
inline llvm::hash_code hash_value(const LayoutFactor &f) {
  return llvm::hash_combine(f.size, f.outDim, f.stride);
}
} // namespace mlir::tile

#include "tile/Dialect/Tile/IR/TileEnums.h.inc"
#include "tile/Dialect/Tile/IR/TileInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrDefs.h.inc"

namespace mlir::tile {
/// The layout attribute of a buffer: the `layout` of the tile.alloc_shared or
/// tile.fragment that defines it; for a shared buffer without one,
/// `#tile.linear` (row-major, what every lowering gives it); null for a
/// fragment without one and for other values.
LayoutAttrInterface getBufferLayoutAttr(Value buffer);

/// The target of `op`: the `tile.target` of its nearest ancestor that has
/// one (usually the module). Emits an error on `op` when there is none.
FailureOr<TargetInfo> getTarget(Operation *op);

/// The `tile.target` of the nearest ancestor of `op` (or `op`) that has one;
/// null when none has.
TargetAttr findTargetAttr(Operation *op);
} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_TILEATTRS_H
