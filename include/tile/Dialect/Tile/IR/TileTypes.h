//===- TileTypes.h - tile dialect types -------------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILETYPES_H
#define TILE_DIALECT_TILE_IR_TILETYPES_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.h.inc"

namespace mlir::tile {
/// A memref in `#gpu.address_space<workgroup>`.
bool isSharedMemRef(Type type);
/// A memref in global memory (no memory space or `#gpu.address_space<global>`).
bool isGlobalMemRef(Type type);
/// A shared-memory memref or a fragment: a tile owned by one block.
bool isBlockTile(Type type);
} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_TILETYPES_H
