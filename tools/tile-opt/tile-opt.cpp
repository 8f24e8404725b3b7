//===- tile-opt.cpp - the tile optimizer driver ---------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// An mlir-opt for tile programs: the tile dialect and its passes, plus the
// upstream dialects and passes that tile pipelines lower through.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tile/InitTile.h"

using namespace mlir;

namespace mlir::tile::test {
void registerTestLayoutTablesPass();
} // namespace mlir::tile::test

int main(int argc, char **argv) {
  registerAllPasses();
  tile::registerTilePassesAndPipelines();
  tile::test::registerTestLayoutTablesPass();

  DialectRegistry registry;
  tile::registerTileDialects(registry);
  return asMainReturnCode(
      MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
