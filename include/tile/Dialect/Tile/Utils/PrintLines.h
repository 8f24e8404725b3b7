//===- PrintLines.h - The lines tile.print writes ---------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// What every target lowers the same way for tile.print: the text of a line
// (TileLang's debug_print_* formats, with its names of the types) and the
// printf arguments after C's default promotions, and the walk over a
// buffer's elements. A target supplies the printf call: gpu.printf on a GPU,
// the C library's printf on the host.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_UTILS_PRINTLINES_H
#define TILE_DIALECT_TILE_UTILS_PRINTLINES_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::tile {

/// Emits one printf call of the C format `format` with `args` (i32, i64 or
/// f64 values).
using PrintfBuilder = function_ref<void(OpBuilder &, Location, StringRef format,
                                        ValueRange args)>;

/// Where a line comes from: the block's place in the launched grid (three
/// index values) and the thread's index in the block (index).
struct PrintOrigin {
  SmallVector<Value, 3> blockIds;
  Value thread;
};

/// TileLang's name of a printed element type (`int`, `half_t`, `bool`, ...);
/// `isUnsigned` for integers printed as unsigned, `inBuffer` for an element
/// of a buffer (TileLang names unsigned 16-bit buffer elements apart).
std::string getPrintTypeName(Type type, bool isUnsigned, bool inBuffer);

/// Emits `op`'s line through `printf`: the message line, or with `element`
/// a scalar's line, or with `flatIndex` as well a buffer element's line.
void buildPrintLine(OpBuilder &b, Location loc, PrintOp op,
                    const PrintOrigin &origin, Value flatIndex, Value element,
                    PrintfBuilder printf);

/// Calls `body` with the flat index and the logical index of each element
/// of `buffer` (a shaped value: static sizes from its type, dynamic ones
/// read with memref.dim), in row-major order: one scf.for over the
/// elements.
void buildRowMajorLoop(
    OpBuilder &b, Location loc, Value buffer,
    function_ref<void(OpBuilder &, Location, Value flat, ValueRange index)>
        body);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_UTILS_PRINTLINES_H
