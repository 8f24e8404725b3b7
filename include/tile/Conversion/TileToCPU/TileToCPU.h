//===- TileToCPU.h - Lowering tile kernels to host loops --------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOCPU_TILETOCPU_H
#define TILE_CONVERSION_TILETOCPU_TILETOCPU_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tile {

/// Fragments become memrefs of their shape; memrefs in a GPU address space
/// lose it.
class TileToCPUTypeConverter : public TypeConverter {
public:
  TileToCPUTypeConverter();
};

/// Patterns lowering every tile op to scf/memref/arith on the host; with
/// `openmp`, kernels' grids become OpenMP worksharing loops
/// (convert-tile-to-cpu).
void populateTileToCPUConversionPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         bool openmp = false);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOCPU_TILETOCPU_H
