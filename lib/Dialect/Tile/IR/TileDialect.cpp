//===- TileDialect.cpp - the tile dialect ---------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/Tile/IR/TileDialect.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == TargetAttr::getAttrName() &&
      !isa<TargetAttr>(attr.getValue()))
    return op->emitError("'") << TargetAttr::getAttrName()
                              << "' must be a #tile.target, got "
                              << attr.getValue();
  return success();
}
