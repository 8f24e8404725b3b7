/*===- Dialects.h - C API: registering tile -----------------------*- C -*-===*
 *
 * Part of the tile project.
 *
 *===----------------------------------------------------------------------===*
 * The tile dialect's handle (declared with upstream's
 * MLIR_DECLARE_CAPI_DIALECT_REGISTRATION), and registration of everything
 * tile's pipelines need and of its passes. Part of libTileC, which also
 * carries MLIR's core C API (mlir-c/IR.h, mlir-c/Pass.h).
 *===----------------------------------------------------------------------===*/

#ifndef TILE_C_DIALECTS_H
#define TILE_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__tile__(): the tile dialect alone. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tile, tile);

/* Registers the tile dialect and every dialect, interface extension, GPU
 * target and LLVM IR translation its pipelines use (func, arith, memref,
 * scf, gpu, nvvm, llvm, ...). What a context needs to parse a tile program
 * and lower it. */
MLIR_CAPI_EXPORTED void tileRegisterAllDialects(MlirDialectRegistry registry);

/* Registers tile's passes and pipelines (tile-infer-layouts,
 * convert-tile-to-cpu, convert-tile-to-gpu, tile-to-cpu, tile-to-nvvm) with
 * the global registry, so that mlirParsePassPipeline finds them. Calling it
 * again does nothing. */
MLIR_CAPI_EXPORTED void tileRegisterPasses(void);

#ifdef __cplusplus
}
#endif

#endif /* TILE_C_DIALECTS_H */
