//===- FuzzTarget.h - Shared code of the tile fuzz targets ------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Each fuzz target takes its input as tile program text and runs it through
// the parser, the verifier and one pass pipeline in a fresh MLIRContext, with
// every diagnostic swallowed (printed with TILE_FUZZ_VERBOSE=1): a
// diagnostic is a correct answer; a crash, a sanitizer report or a timeout
// (libFuzzer's -timeout) is a finding.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_TILE_FUZZ_FUZZTARGET_H
#define TILE_TOOLS_TILE_FUZZ_FUZZTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>

namespace mlir::tile::fuzz {

/// What to do with a module that parsed and verified; its result does not
/// matter.
using Stage = void (*)(ModuleOp module);

/// Parses `data` as a tile program, verifies it, then runs the pass pipeline
/// `pipeline` (textual, on the module: "tile-to-cpu") and, if given, `after`
/// on the result. Returns 0, as LLVMFuzzerTestOneInput must.
int runOneInput(const uint8_t *data, size_t size, llvm::StringRef pipeline,
                Stage after = nullptr);

} // namespace mlir::tile::fuzz

#endif // TILE_TOOLS_TILE_FUZZ_FUZZTARGET_H
