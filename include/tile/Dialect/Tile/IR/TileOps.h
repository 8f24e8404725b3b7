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

#endif // TILE_DIALECT_TILE_IR_TILEOPS_H
