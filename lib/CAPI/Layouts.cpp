//===- Layouts.cpp - C API: tile's layout attributes ----------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile-c/Layouts.h"

#include "tile/Dialect/Tile/IR/TileAttrs.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
Layout *unwrapLayout(TileLayout layout) {
  return static_cast<Layout *>(layout.ptr);
}

/// The attributes' storage is private to the dialect library: parameterized
/// layouts are built from their text, which the dialect parses and
/// verifies (diagnostics go to the context, the result is then null).
MlirAttribute parseLayout(MLIRContext *context, const std::string &text) {
  return wrap(parseAttribute(text, context));
}

/// Appends `[[f, f], [f]]`, failing (with a diagnostic) on an axis the
/// layout kind does not have.
LogicalResult printDims(MLIRContext *context, llvm::raw_ostream &os,
                        intptr_t rank, const intptr_t *factorsPerDim,
                        const TileLayoutFactor *factors, bool fragment) {
  os << "[";
  const TileLayoutFactor *next = factors;
  for (intptr_t d = 0; d < rank; ++d) {
    os << (d ? ", [" : "[");
    for (intptr_t i = 0; i < factorsPerDim[d]; ++i, ++next) {
      if (next->axis > (fragment ? 1u : 0u))
        return emitError(UnknownLoc::get(context))
               << (fragment ? "fragment layout factors map to a thread (0) "
                              "or a slot (1)"
                            : "shared layout factors map to the offset (0)")
               << ", got axis " << next->axis;
      os << (i ? ", " : "") << next->size << ":";
      if (fragment)
        os << (next->axis == TILE_FRAGMENT_THREAD ? "t" : "s");
      os << next->stride;
    }
    os << "]";
  }
  os << "]";
  return success();
}
} // namespace

bool tileAttributeIsALayout(MlirAttribute attr) {
  return isa<LayoutAttrInterface>(unwrap(attr));
}
bool tileAttributeIsALinearLayout(MlirAttribute attr) {
  return isa<LinearLayoutAttr>(unwrap(attr));
}
bool tileAttributeIsAPaddedLayout(MlirAttribute attr) {
  return isa<PaddedLayoutAttr>(unwrap(attr));
}
bool tileAttributeIsASwizzleLayout(MlirAttribute attr) {
  return isa<SwizzleLayoutAttr>(unwrap(attr));
}
bool tileAttributeIsASharedLayout(MlirAttribute attr) {
  return isa<SharedLayoutAttr>(unwrap(attr));
}
bool tileAttributeIsAFragmentLayout(MlirAttribute attr) {
  return isa<FragmentLayoutAttr>(unwrap(attr));
}

MlirAttribute tileLinearLayoutAttrGet(MlirContext ctx) {
  return wrap(LinearLayoutAttr::get(unwrap(ctx)));
}

MlirAttribute tilePaddedLayoutAttrGet(MlirContext ctx, int64_t padding) {
  return parseLayout(unwrap(ctx),
                     "#tile.padded<" + std::to_string(padding) + ">");
}

int64_t tilePaddedLayoutAttrGetPadding(MlirAttribute attr) {
  return cast<PaddedLayoutAttr>(unwrap(attr)).getPadding();
}

MlirAttribute tileSwizzleLayoutAttrGet(MlirContext ctx, int64_t mode) {
  return parseLayout(unwrap(ctx),
                     "#tile.swizzle<" + std::to_string(mode) + ">");
}

int64_t tileSwizzleLayoutAttrGetMode(MlirAttribute attr) {
  return cast<SwizzleLayoutAttr>(unwrap(attr)).getMode();
}

MlirAttribute tileSharedLayoutAttrGet(MlirContext ctx, intptr_t rank,
                                      const intptr_t *factorsPerDim,
                                      const TileLayoutFactor *factors,
                                      int64_t swizzle) {
  MLIRContext *context = unwrap(ctx);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "#tile.shared<";
  if (failed(printDims(context, os, rank, factorsPerDim, factors,
                       /*fragment=*/false)))
    return {nullptr};
  if (swizzle)
    os << ", swizzle " << swizzle;
  os << ">";
  return parseLayout(context, text);
}

MlirAttribute tileFragmentLayoutAttrGet(MlirContext ctx, intptr_t rank,
                                        const intptr_t *factorsPerDim,
                                        const TileLayoutFactor *factors,
                                        intptr_t numReplicate,
                                        const TileLayoutFactor *replicate) {
  MLIRContext *context = unwrap(ctx);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "#tile.fragment<";
  if (failed(printDims(context, os, rank, factorsPerDim, factors,
                       /*fragment=*/true)))
    return {nullptr};
  if (numReplicate) {
    // One more "dimension": the replication factors, thread axis only.
    std::string list;
    llvm::raw_string_ostream replicateOs(list);
    intptr_t count = numReplicate;
    if (failed(printDims(context, replicateOs, 1, &count, replicate,
                         /*fragment=*/true)))
      return {nullptr};
    // printDims wrote [[...]]: the syntax takes one list.
    os << ", replicate " << StringRef(list).drop_front().drop_back();
  }
  os << ">";
  return parseLayout(context, text);
}

intptr_t tileFragmentLayoutAttrGetRank(MlirAttribute attr) {
  return cast<FragmentLayoutAttr>(unwrap(attr)).getFactorsPerDim().size();
}

int64_t tileFragmentLayoutAttrGetDimSize(MlirAttribute attr, intptr_t dim) {
  return cast<FragmentLayoutAttr>(unwrap(attr)).getShape()[dim];
}

int64_t tileFragmentLayoutAttrGetThreadExtent(MlirAttribute attr) {
  return cast<FragmentLayoutAttr>(unwrap(attr)).getThreadExtent();
}

int64_t tileFragmentLayoutAttrGetSlotExtent(MlirAttribute attr) {
  return cast<FragmentLayoutAttr>(unwrap(attr)).getSlotExtent();
}

int64_t tileFragmentLayoutAttrGetNumReplicas(MlirAttribute attr) {
  return cast<FragmentLayoutAttr>(unwrap(attr)).getNumReplicas();
}

bool tileLayoutAttrIsFragment(MlirAttribute attr) {
  return cast<LayoutAttrInterface>(unwrap(attr)).isFragmentLayout();
}

TileLayout tileLayoutAttrGetLayout(MlirAttribute attr, intptr_t rank,
                                   const int64_t *shape,
                                   MlirType elementType) {
  auto layoutAttr = dyn_cast_or_null<LayoutAttrInterface>(unwrap(attr));
  if (!layoutAttr)
    return {nullptr};
  FailureOr<Layout> layout = layoutAttr.getLayout(
      ArrayRef<int64_t>(shape, rank), unwrap(elementType),
      [&] { return emitError(UnknownLoc::get(layoutAttr.getContext())); });
  if (failed(layout))
    return {nullptr};
  return {new Layout(std::move(*layout))};
}

void tileLayoutDestroy(TileLayout layout) { delete unwrapLayout(layout); }

intptr_t tileLayoutGetInRank(TileLayout layout) {
  return unwrapLayout(layout)->getInRank();
}

intptr_t tileLayoutGetOutRank(TileLayout layout) {
  return unwrapLayout(layout)->getOutRank();
}

void tileLayoutGetOutExtents(TileLayout layout, int64_t *extents) {
  for (auto [i, extent] :
       llvm::enumerate(unwrapLayout(layout)->getOutExtents()))
    extents[i] = extent;
}

MlirLogicalResult tileLayoutApply(TileLayout layout, const int64_t *index,
                                  int64_t *result) {
  const Layout &map = *unwrapLayout(layout);
  SmallVector<int64_t> shape = map.getInShape();
  for (auto [i, size] : llvm::enumerate(shape))
    if (index[i] < 0 || index[i] >= size)
      return mlirLogicalResultFailure();
  SmallVector<int64_t> out = map.apply(ArrayRef<int64_t>(index, shape.size()));
  for (auto [i, value] : llvm::enumerate(out))
    result[i] = value;
  return mlirLogicalResultSuccess();
}

bool tileLayoutIsInjective(TileLayout layout) {
  return unwrapLayout(layout)->isInjective();
}

bool tileLayoutIsBijective(TileLayout layout) {
  return unwrapLayout(layout)->isBijective();
}

void tileLayoutPrint(TileLayout layout, MlirStringCallback callback,
                     void *userData) {
  mlir::detail::CallbackOstream stream(callback, userData);
  unwrapLayout(layout)->print(stream);
  stream.flush();
}
