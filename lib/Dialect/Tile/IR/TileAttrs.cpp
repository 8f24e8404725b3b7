//===- TileAttrs.cpp - tile dialect attributes ----------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileAttrs.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/Tile/IR/TileEnums.cpp.inc"
#include "tile/Dialect/Tile/IR/TileInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrDefs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/Tile/IR/TileAttrDefs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Factor lists: parsing, printing, checking
//===----------------------------------------------------------------------===//

namespace {
/// How factors are written: `size:stride` for shared layouts, `size:tN` or
/// `size:sN` for fragment layouts.
enum class FactorSyntax { Offset, ThreadSlot };
} // namespace

static ParseResult parseFactor(AsmParser &parser, FactorSyntax syntax,
                               LayoutFactor &factor) {
  if (parser.parseInteger(factor.size) || parser.parseColon())
    return failure();
  if (syntax == FactorSyntax::Offset) {
    factor.outDim = 0;
    return parser.parseInteger(factor.stride);
  }
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  if (keyword.starts_with("t"))
    factor.outDim = kThreadAxis;
  else if (keyword.starts_with("s"))
    factor.outDim = kSlotAxis;
  else
    return parser.emitError(loc, "expected a thread stride 't<N>' or a slot "
                                 "stride 's<N>', got '")
           << keyword << "'";
  if (keyword.drop_front().getAsInteger(10, factor.stride))
    return parser.emitError(loc, "expected an integer stride after '")
           << keyword.front() << "', got '" << keyword << "'";
  return success();
}

static ParseResult parseFactorList(AsmParser &parser, FactorSyntax syntax,
                                   SmallVectorImpl<LayoutFactor> &factors) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        LayoutFactor f;
        if (parseFactor(parser, syntax, f))
          return failure();
        factors.push_back(f);
        return success();
      });
}

/// Parses `[[f, f], [f]]` into flat factors and a count per dim.
static ParseResult parseDims(AsmParser &parser, FactorSyntax syntax,
                             SmallVectorImpl<LayoutFactor> &factors,
                             SmallVectorImpl<int64_t> &factorsPerDim) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        size_t before = factors.size();
        if (parseFactorList(parser, syntax, factors))
          return failure();
        factorsPerDim.push_back(factors.size() - before);
        return success();
      });
}

static void printFactor(AsmPrinter &printer, const LayoutFactor &f,
                        FactorSyntax syntax) {
  printer << f.size << ":";
  if (syntax == FactorSyntax::ThreadSlot)
    printer << (f.outDim == kThreadAxis ? "t" : "s");
  printer << f.stride;
}

static void printFactorList(AsmPrinter &printer, ArrayRef<LayoutFactor> list,
                            FactorSyntax syntax) {
  printer << "[";
  llvm::interleaveComma(list, printer, [&](const LayoutFactor &f) {
    printFactor(printer, f, syntax);
  });
  printer << "]";
}

static void printDims(AsmPrinter &printer, ArrayRef<Layout::DimFactors> dims,
                      FactorSyntax syntax) {
  printer << "[";
  llvm::interleaveComma(dims, printer, [&](const Layout::DimFactors &dim) {
    printFactorList(printer, dim, syntax);
  });
  printer << "]";
}

static SmallVector<Layout::DimFactors>
groupFactors(ArrayRef<LayoutFactor> factors, ArrayRef<int64_t> perDim) {
  SmallVector<Layout::DimFactors> dims;
  size_t next = 0;
  for (int64_t count : perDim) {
    dims.emplace_back(factors.slice(next, count));
    next += count;
  }
  return dims;
}

static LogicalResult
verifyFactors(function_ref<InFlightDiagnostic()> emitError,
              ArrayRef<LayoutFactor> factors, ArrayRef<int64_t> perDim) {
  if (perDim.empty())
    return emitError() << "layout must have rank 1 or more";
  int64_t total = 0;
  for (int64_t count : perDim) {
    if (count < 0)
      return emitError() << "negative factor count in layout";
    total += count;
  }
  if (total != static_cast<int64_t>(factors.size()))
    return emitError() << "layout factor counts do not add up to "
                       << factors.size() << " factors";
  // Tiles are small: bounding sizes and strides keeps all layout arithmetic
  // far from overflow.
  constexpr int64_t kMaxPoints = int64_t(1) << 32;
  constexpr int64_t kMaxStride = int64_t(1) << 32;
  int64_t points = 1;
  for (const LayoutFactor &f : factors) {
    if (f.size < 1)
      return emitError() << "layout factor size must be positive, got "
                         << f.size;
    if (f.stride < 0)
      return emitError() << "layout factor stride must be non-negative, got "
                         << f.stride;
    if (f.stride > kMaxStride || f.size > kMaxPoints / points)
      return emitError() << "layout is too large: at most 2^32 elements and "
                            "strides below 2^32";
    points *= f.size;
  }
  return success();
}

static std::string formatIndex(ArrayRef<int64_t> index) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(index, os);
  os << "]";
  return s;
}

//===----------------------------------------------------------------------===//
// Shared-memory layouts
//===----------------------------------------------------------------------===//

/// Element width in bytes of a shared-memory element type, for swizzles.
static FailureOr<int64_t>
getElementBytes(Type elementType,
                function_ref<InFlightDiagnostic()> emitError) {
  if (!elementType.isIntOrFloat() ||
      elementType.getIntOrFloatBitWidth() % 8 != 0)
    return emitError() << "swizzled layouts need an element type of whole "
                          "bytes, got "
                       << elementType;
  return elementType.getIntOrFloatBitWidth() / 8;
}

bool LinearLayoutAttr::isFragmentLayout() const { return false; }

FailureOr<Layout>
LinearLayoutAttr::getLayout(ArrayRef<int64_t> shape, Type elementType,
                            function_ref<InFlightDiagnostic()> emitError) const {
  return Layout::rowMajor(shape);
}

LogicalResult
PaddedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t padding) {
  if (padding < 0)
    return emitError() << "padding must be non-negative, got " << padding;
  return success();
}

bool PaddedLayoutAttr::isFragmentLayout() const { return false; }

FailureOr<Layout>
PaddedLayoutAttr::getLayout(ArrayRef<int64_t> shape, Type elementType,
                            function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() < 2)
    return emitError() << "padded layout needs a buffer of rank 2 or more, "
                          "got rank "
                       << shape.size();
  SmallVector<Layout::DimFactors> dims(shape.size());
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    dims[d].push_back({shape[d], 0, stride});
    stride *= shape[d];
    if (d == static_cast<int64_t>(shape.size()) - 1)
      stride += getPadding();
  }
  return Layout(dims, 1);
}

LogicalResult
SwizzleLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          int64_t mode) {
  if (mode != 32 && mode != 64 && mode != 128)
    return emitError() << "swizzle mode must be 32, 64 or 128 bytes, got "
                       << mode;
  return success();
}

bool SwizzleLayoutAttr::isFragmentLayout() const { return false; }

FailureOr<Layout> SwizzleLayoutAttr::getLayout(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() < 2)
    return emitError() << "swizzle<" << getMode()
                       << "> needs a buffer of rank 2 or more, got rank "
                       << shape.size();
  FailureOr<int64_t> bytes = getElementBytes(elementType, emitError);
  if (failed(bytes))
    return failure();
  std::optional<Swizzle> swizzle = Swizzle::forMode(getMode(), *bytes);
  if (!swizzle)
    return emitError() << "swizzle<" << getMode()
                       << "> does not support element type " << elementType;
  int64_t cols = shape.back();
  if ((cols * *bytes) % getMode() != 0)
    return emitError() << "swizzle<" << getMode()
                       << "> needs the innermost dimension to span a multiple "
                          "of "
                       << getMode() << " bytes, got " << cols * *bytes
                       << " bytes (" << cols << " x " << elementType << ")";
  // Panels `mode` bytes wide, stored one after the other, each row-major.
  int64_t panel = getMode() / *bytes;
  int64_t rows = 1;
  for (int64_t size : shape.drop_back())
    rows *= size;
  SmallVector<Layout::DimFactors> dims(shape.size());
  int64_t stride = panel;
  for (int64_t d = shape.size() - 2; d >= 0; --d) {
    dims[d].push_back({shape[d], 0, stride});
    stride *= shape[d];
  }
  dims.back().push_back({cols / panel, 0, rows * panel});
  dims.back().push_back({panel, 0, 1});
  return Layout(dims, 1, swizzle);
}

Attribute SharedLayoutAttr::parse(AsmParser &parser, Type) {
  SmallVector<LayoutFactor> factors;
  SmallVector<int64_t> perDim;
  int64_t swizzle = 0;
  if (parser.parseLess() ||
      parseDims(parser, FactorSyntax::Offset, factors, perDim))
    return {};
  if (succeeded(parser.parseOptionalComma()))
    if (parser.parseKeyword("swizzle") || parser.parseInteger(swizzle))
      return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<SharedLayoutAttr>(parser.getContext(), factors,
                                             perDim, swizzle);
}

void SharedLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printDims(printer, getDims(), FactorSyntax::Offset);
  if (getSwizzle())
    printer << ", swizzle " << getSwizzle();
  printer << ">";
}

SmallVector<Layout::DimFactors> SharedLayoutAttr::getDims() const {
  return groupFactors(getFactors(), getFactorsPerDim());
}

LogicalResult
SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<LayoutFactor> factors,
                         ArrayRef<int64_t> factorsPerDim, int64_t swizzle) {
  if (failed(verifyFactors(emitError, factors, factorsPerDim)))
    return failure();
  if (swizzle != 0 && failed(SwizzleLayoutAttr::verify(emitError, swizzle)))
    return failure();
  Layout layout(groupFactors(factors, factorsPerDim), 1);
  if (layout.isInjective())
    return success();
  if (auto collision = layout.findCollision())
    return emitError() << "layout maps elements "
                       << formatIndex(layout.delinearize(collision->first))
                       << " and "
                       << formatIndex(layout.delinearize(collision->second))
                       << " to the same offset "
                       << layout.applyLinear(collision->first)[0];
  return emitError() << "layout is too large to check that it is injective";
}

bool SharedLayoutAttr::isFragmentLayout() const { return false; }

FailureOr<Layout>
SharedLayoutAttr::getLayout(ArrayRef<int64_t> shape, Type elementType,
                            function_ref<InFlightDiagnostic()> emitError) const {
  Layout layout(getDims(), 1);
  if (!llvm::equal(layout.getInShape(), shape))
    return emitError() << "layout covers shape "
                       << formatIndex(layout.getInShape())
                       << " but the buffer has shape " << formatIndex(shape);
  if (!getSwizzle())
    return layout;
  FailureOr<int64_t> bytes = getElementBytes(elementType, emitError);
  if (failed(bytes))
    return failure();
  std::optional<Swizzle> swizzle = Swizzle::forMode(getSwizzle(), *bytes);
  if (!swizzle)
    return emitError() << "swizzle " << getSwizzle()
                       << " does not support element type " << elementType;
  return Layout(getDims(), 1, swizzle);
}

//===----------------------------------------------------------------------===//
// Fragment layouts
//===----------------------------------------------------------------------===//

Attribute FragmentLayoutAttr::parse(AsmParser &parser, Type) {
  SmallVector<LayoutFactor> factors, replicate;
  SmallVector<int64_t> perDim;
  if (parser.parseLess() ||
      parseDims(parser, FactorSyntax::ThreadSlot, factors, perDim))
    return {};
  if (succeeded(parser.parseOptionalComma()))
    if (parser.parseKeyword("replicate") ||
        parseFactorList(parser, FactorSyntax::ThreadSlot, replicate))
      return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<FragmentLayoutAttr>(parser.getContext(), factors,
                                               perDim, replicate);
}

void FragmentLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printDims(printer, getDims(), FactorSyntax::ThreadSlot);
  if (!getReplicate().empty()) {
    printer << ", replicate ";
    printFactorList(printer, getReplicate(), FactorSyntax::ThreadSlot);
  }
  printer << ">";
}

SmallVector<Layout::DimFactors> FragmentLayoutAttr::getDims() const {
  return groupFactors(getFactors(), getFactorsPerDim());
}

static Layout buildFragmentLayout(ArrayRef<LayoutFactor> factors,
                                  ArrayRef<int64_t> perDim,
                                  ArrayRef<LayoutFactor> replicate) {
  return makeFragment(groupFactors(factors, perDim), replicate);
}

LogicalResult
FragmentLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           ArrayRef<LayoutFactor> factors,
                           ArrayRef<int64_t> factorsPerDim,
                           ArrayRef<LayoutFactor> replicate) {
  if (failed(verifyFactors(emitError, factors, factorsPerDim)) ||
      failed(verifyFactors(emitError, replicate, {int64_t(replicate.size())})))
    return failure();
  for (const LayoutFactor &f : factors)
    if (f.outDim > kSlotAxis)
      return emitError() << "fragment layout factors map to a thread or a "
                            "slot";
  for (const LayoutFactor &f : replicate)
    if (f.outDim != kThreadAxis)
      return emitError() << "replication must be across threads ('t<N>' "
                            "strides), got a slot stride";
  Layout layout = buildFragmentLayout(factors, factorsPerDim, replicate);
  if (layout.isInjective())
    return success();
  auto describe = [&](int64_t linear) {
    SmallVector<int64_t> index = layout.delinearize(linear);
    int64_t copy = index.pop_back_val();
    std::string s = "element " + formatIndex(index);
    if (copy)
      s += " (copy " + std::to_string(copy) + ")";
    return s;
  };
  if (auto collision = layout.findCollision()) {
    SmallVector<int64_t> place = layout.applyLinear(collision->first);
    return emitError() << "fragment layout maps " << describe(collision->first)
                       << " and " << describe(collision->second)
                       << " to the same thread " << place[kThreadAxis]
                       << ", slot " << place[kSlotAxis];
  }
  return emitError() << "fragment layout is too large to check that no two "
                        "elements share a (thread, slot)";
}

SmallVector<int64_t> FragmentLayoutAttr::getShape() const {
  return Layout(getDims(), 2).getInShape();
}

int64_t FragmentLayoutAttr::getNumReplicas() const {
  int64_t copies = 1;
  for (const LayoutFactor &f : getReplicate())
    copies *= f.size;
  return copies;
}

Layout FragmentLayoutAttr::toLayout() const {
  return buildFragmentLayout(getFactors(), getFactorsPerDim(), getReplicate());
}

FragmentLayoutAttr FragmentLayoutAttr::get(MLIRContext *context,
                                           const Layout &layout) {
  assert(layout.getOutRank() == 2 && layout.getInRank() >= 2 &&
         "expected a (logical..., replica) -> (thread, slot) layout");
  SmallVector<LayoutFactor> factors;
  SmallVector<int64_t> perDim;
  for (const Layout::DimFactors &dim : layout.getDims().drop_back()) {
    factors.append(dim.begin(), dim.end());
    perDim.push_back(dim.size());
  }
  return get(context, factors, perDim, layout.getDims().back());
}

int64_t FragmentLayoutAttr::getThreadExtent() const {
  return toLayout().getOutExtents()[kThreadAxis];
}

int64_t FragmentLayoutAttr::getSlotExtent() const {
  return toLayout().getOutExtents()[kSlotAxis];
}

bool FragmentLayoutAttr::isFragmentLayout() const { return true; }

FailureOr<Layout> FragmentLayoutAttr::getLayout(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (!llvm::equal(getShape(), shape))
    return emitError() << "fragment layout covers shape "
                       << formatIndex(getShape()) << " but the buffer has shape "
                       << formatIndex(shape);
  return toLayout();
}

//===----------------------------------------------------------------------===//
// RasterAttr
//===----------------------------------------------------------------------===//

LogicalResult RasterAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t panel, RasterOrder order) {
  if (panel < 1)
    return emitError() << "raster panel must be positive, got " << panel;
  return success();
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

/// The feature names of a verified `features` list.
static std::optional<SmallVector<StringRef>> getFeatureNames(ArrayAttr list) {
  if (!list)
    return std::nullopt;
  SmallVector<StringRef> names;
  for (Attribute name : list)
    names.push_back(cast<StringAttr>(name).getValue());
  return names;
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef chip, ArrayAttr features) {
  if (features && !llvm::all_of(features, llvm::IsaPred<StringAttr>))
    return emitError() << "target features must be strings, got " << features;
  std::string error;
  std::optional<SmallVector<StringRef>> names = getFeatureNames(features);
  if (failed(TargetInfo::get(chip,
                             names ? std::optional<ArrayRef<StringRef>>(*names)
                                   : std::nullopt,
                             error)))
    return emitError() << error;
  return success();
}

TargetInfo TargetAttr::getInfo() const {
  std::string error;
  std::optional<SmallVector<StringRef>> names = getFeatureNames(getFeatures());
  return *TargetInfo::get(getChip(),
                          names ? std::optional<ArrayRef<StringRef>>(*names)
                                : std::nullopt,
                          error);
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

TargetAttr mlir::tile::findTargetAttr(Operation *op) {
  for (Operation *at = op; at; at = at->getParentOp())
    if (auto target =
            at->getAttrOfType<TargetAttr>(TargetAttr::getAttrName()))
      return target;
  return {};
}

FailureOr<TargetInfo> mlir::tile::getTarget(Operation *op) {
  if (TargetAttr target = findTargetAttr(op))
    return target.getInfo();
  return op->emitOpError("has no target: give the module a `tile.target` "
                         "attribute (tile-attach-target, e.g. "
                         "--tile-attach-target=chip=sm_90a)");
}

LayoutAttrInterface mlir::tile::getBufferLayoutAttr(Value buffer) {
  Operation *def = buffer.getDefiningOp();
  if (auto alloc = dyn_cast_or_null<AllocSharedOp>(def)) {
    if (LayoutAttrInterface layout = alloc.getLayoutAttr())
      return layout;
    return LinearLayoutAttr::get(alloc.getContext());
  }
  if (auto fragment = dyn_cast_or_null<FragmentOp>(def))
    return fragment.getLayoutAttr();
  return {};
}
