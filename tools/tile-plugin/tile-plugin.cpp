//===- tile-plugin.cpp - tile as a plugin of upstream MLIR tools ----------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// TilePlugin.so, for tools built on MlirOptMain (Debian's mlir-opt-22):
//
//   mlir-opt-22 --load-dialect-plugin=TilePlugin.so \
//               --load-pass-plugin=TilePlugin.so \
//               --pass-pipeline='builtin.module(tile-infer-layouts)' k.mlir
//
// The dialect entry point registers the tile dialect with what its
// pipelines need; the pass entry point registers tile's passes and
// pipelines. The plugin links libMLIR.so, so it shares the tool's MLIR.
//
//===----------------------------------------------------------------------===//

#include "tile/InitTile.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

#include <mutex>

using namespace mlir;

static void registerPasses() {
  static std::once_flag once;
  std::call_once(once, [] { tile::registerTilePassesAndPipelines(); });
}

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Tile", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            tile::registerTileDialects(*registry);
            // Loading only the dialect plugin is enough for pipelines too.
            registerPasses();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TilePasses", LLVM_VERSION_STRING,
          registerPasses};
}
