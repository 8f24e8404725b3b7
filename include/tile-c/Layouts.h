/*===- Layouts.h - C API: tile's layout attributes ----------------*- C -*-===*
 *
 * Part of the tile project.
 *
 *===----------------------------------------------------------------------===*
 * Constructing the layout attributes (#tile.linear, #tile.padded,
 * #tile.swizzle, #tile.shared, #tile.fragment) and asking any of them, as
 * passes do through the layout attribute interface, where each element of a
 * buffer goes: an offset for shared memory, a (thread, slot) for a fragment.
 *
 * Constructors verify their parameters: on invalid ones they emit the
 * dialect's diagnostic on the context and return a null attribute.
 *===----------------------------------------------------------------------===*/

#ifndef TILE_C_LAYOUTS_H
#define TILE_C_LAYOUTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Output axes of a fragment layout. */
enum { TILE_FRAGMENT_THREAD = 0, TILE_FRAGMENT_SLOT = 1 };

/* One digit of a logical dimension: `size` index values, each adding
 * `digit * stride` to output `axis` (0, the offset, for shared layouts;
 * TILE_FRAGMENT_THREAD or TILE_FRAGMENT_SLOT for fragments). Dimensions
 * list their factors outermost first, as the dialect's `size:stride`. */
typedef struct TileLayoutFactor {
  int64_t size;
  int64_t stride;
  unsigned axis;
} TileLayoutFactor;

/*===--------------------------------------------------------------------===*/
/* Construction and parameters                                            */
/*===--------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED bool tileAttributeIsALayout(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool tileAttributeIsALinearLayout(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool tileAttributeIsAPaddedLayout(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool tileAttributeIsASwizzleLayout(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool tileAttributeIsASharedLayout(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool tileAttributeIsAFragmentLayout(MlirAttribute attr);

/* #tile.linear */
MLIR_CAPI_EXPORTED MlirAttribute tileLinearLayoutAttrGet(MlirContext ctx);
/* #tile.padded<padding> */
MLIR_CAPI_EXPORTED MlirAttribute tilePaddedLayoutAttrGet(MlirContext ctx,
                                                         int64_t padding);
MLIR_CAPI_EXPORTED int64_t tilePaddedLayoutAttrGetPadding(MlirAttribute attr);
/* #tile.swizzle<mode>, mode 32, 64 or 128 (bytes) */
MLIR_CAPI_EXPORTED MlirAttribute tileSwizzleLayoutAttrGet(MlirContext ctx,
                                                          int64_t mode);
MLIR_CAPI_EXPORTED int64_t tileSwizzleLayoutAttrGetMode(MlirAttribute attr);

/* #tile.shared<[[...], ...], swizzle S>: `rank` logical dimensions, the d-th
 * with factorsPerDim[d] of `factors` (in order); `swizzle` 0 (none), 32, 64
 * or 128. */
MLIR_CAPI_EXPORTED MlirAttribute tileSharedLayoutAttrGet(
    MlirContext ctx, intptr_t rank, const intptr_t *factorsPerDim,
    const TileLayoutFactor *factors, int64_t swizzle);

/* #tile.fragment<[[...], ...], replicate [...]>: as tileSharedLayoutAttrGet,
 * plus `numReplicate` replication factors (thread axis only). */
MLIR_CAPI_EXPORTED MlirAttribute tileFragmentLayoutAttrGet(
    MlirContext ctx, intptr_t rank, const intptr_t *factorsPerDim,
    const TileLayoutFactor *factors, intptr_t numReplicate,
    const TileLayoutFactor *replicate);
/* The logical rank and shape a fragment layout covers. */
MLIR_CAPI_EXPORTED intptr_t tileFragmentLayoutAttrGetRank(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t tileFragmentLayoutAttrGetDimSize(MlirAttribute attr,
                                                            intptr_t dim);
/* Threads needed (1 + the largest thread), slots per thread (1 + the
 * largest slot), copies of each element. */
MLIR_CAPI_EXPORTED int64_t
tileFragmentLayoutAttrGetThreadExtent(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t
tileFragmentLayoutAttrGetSlotExtent(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t
tileFragmentLayoutAttrGetNumReplicas(MlirAttribute attr);

/*===--------------------------------------------------------------------===*/
/* Queries through the layout attribute interface                         */
/*===--------------------------------------------------------------------===*/

/* A layout applied to one buffer: a map from (logical index) to (offset),
 * or for fragments from (logical index..., copy) to (thread, slot). */
typedef struct TileLayout {
  void *ptr;
} TileLayout;

static inline bool tileLayoutIsNull(TileLayout layout) { return !layout.ptr; }

/* Whether the attribute places fragment elements on (thread, slot) rather
 * than shared-memory elements at offsets. */
MLIR_CAPI_EXPORTED bool tileLayoutAttrIsFragment(MlirAttribute attr);

/* The layout of a buffer of `shape` and `elementType` under `attr`; null
 * when `attr` is not a layout attribute (or null), or (with a diagnostic on
 * the context) does not fit such a buffer. Destroy it with
 * tileLayoutDestroy. */
MLIR_CAPI_EXPORTED TileLayout tileLayoutAttrGetLayout(MlirAttribute attr,
                                                      intptr_t rank,
                                                      const int64_t *shape,
                                                      MlirType elementType);
MLIR_CAPI_EXPORTED void tileLayoutDestroy(TileLayout layout);

/* Input rank (the buffer's rank, plus one copy index for fragments) and
 * output rank (1 for offsets, 2 for thread and slot). */
MLIR_CAPI_EXPORTED intptr_t tileLayoutGetInRank(TileLayout layout);
MLIR_CAPI_EXPORTED intptr_t tileLayoutGetOutRank(TileLayout layout);
/* One past the largest value of each output: the offsets a shared buffer
 * spans, or threads and slots. Writes tileLayoutGetOutRank values. */
MLIR_CAPI_EXPORTED void tileLayoutGetOutExtents(TileLayout layout,
                                                int64_t *extents);
/* Writes where input `index` (tileLayoutGetInRank values) goes; fails
 * when the index is outside the input space. */
MLIR_CAPI_EXPORTED MlirLogicalResult tileLayoutApply(TileLayout layout,
                                                     const int64_t *index,
                                                     int64_t *result);
/* No two inputs share an output / and every output is used. */
MLIR_CAPI_EXPORTED bool tileLayoutIsInjective(TileLayout layout);
MLIR_CAPI_EXPORTED bool tileLayoutIsBijective(TileLayout layout);
/* The layout in the layout algebra's notation. */
MLIR_CAPI_EXPORTED void
tileLayoutPrint(TileLayout layout, MlirStringCallback callback, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TILE_C_LAYOUTS_H */
