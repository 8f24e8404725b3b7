//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The .npy format (version 1.0/2.0/3.0): a magic string, a header dict with
// 'descr', 'fortran_order' and 'shape', then the raw data. tile-run reads
// little-endian C-order arrays of bool, integers and floats, and writes
// version 1.0 files.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_TILE_RUN_NPY_H
#define TILE_TOOLS_TILE_RUN_NPY_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::tile::run {

struct NpyArray {
  /// NumPy's dtype string without the byte-order mark: "f4", "i8", "b1"...
  std::string dtype;
  SmallVector<int64_t> shape;
  std::string data;
};

/// Reads `path`; fails with a message in `error`.
FailureOr<NpyArray> readNpy(StringRef path, std::string &error);

/// Writes `array` to `path`.
LogicalResult writeNpy(StringRef path, const NpyArray &array,
                       std::string &error);

} // namespace mlir::tile::run

#endif // TILE_TOOLS_TILE_RUN_NPY_H
