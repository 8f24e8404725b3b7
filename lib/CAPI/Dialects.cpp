//===- Dialects.cpp - C API: registering tile -----------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile-c/Dialects.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/InitTile.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

#include <mutex>

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tile, tile, mlir::tile::TileDialect)

void tileRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::tile::registerTileDialects(*unwrap(registry));
}

void tileRegisterPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] { mlir::tile::registerTilePassesAndPipelines(); });
}
