//===- FuzzTarget.cpp - Shared code of the tile fuzz targets --------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "tile/InitTile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

using namespace mlir;

/// The dialects and passes, registered once per process.
static const DialectRegistry &getRegistry() {
  static DialectRegistry *registry = [] {
    auto *result = new DialectRegistry();
    tile::registerTileDialects(*result);
    tile::registerTilePassesAndPipelines();
    return result;
  }();
  return *registry;
}

int mlir::tile::fuzz::runOneInput(const uint8_t *data, size_t size,
                                  StringRef pipeline, Stage after) {
  const DialectRegistry &registry = getRegistry();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  // TILE_FUZZ_VERBOSE=1 prints the diagnostics (to see what an input does).
  static const bool verbose = getenv("TILE_FUZZ_VERBOSE");
  context.getDiagEngine().registerHandler([](Diagnostic &diag) {
    if (verbose)
      llvm::errs() << diag.getLocation() << ": " << diag << "\n";
  });
  // The lexer relies on a null byte after the text, which std::string
  // keeps and libFuzzer's buffer does not.
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      text, ParserConfig(&context), "fuzz-input");
  if (!module || failed(verify(*module))) {
    if (verbose)
      llvm::errs() << "fuzz input: does not parse or verify\n";
    return 0;
  }
  PassManager pm(&context);
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("the fuzz target's pipeline does not parse");
  if (failed(pm.run(*module))) {
    if (verbose)
      llvm::errs() << "fuzz input: refused by " << pipeline << "\n";
    return 0;
  }
  if (verbose) {
    int64_t ops = 0;
    module->walk([&](Operation *) { ++ops; });
    llvm::errs() << "fuzz input: passed " << pipeline << " (" << ops
                 << " ops)\n";
    if (StringRef(getenv("TILE_FUZZ_VERBOSE")) == "2")
      module->print(llvm::errs());
  }
  if (after)
    after(*module);
  return 0;
}
