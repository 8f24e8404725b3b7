//===- TileOps.cpp - tile dialect operations ------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The generated op classes, the helpers the op verifiers share
// (TileOpVerification.h) and tile.kernel. The other ops are implemented by
// family: TileMemoryOps.cpp (allocation, data movement), TileComputeOps.cpp
// (gemm, reduce, cumsum) and TileLoopOps.cpp (parallel, pipelined, and the
// element accesses of parallel bodies).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "TileOpVerification.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::detail;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static constexpr int64_t kMaxThreadsPerBlock = 1024;

std::string mlir::tile::detail::formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

Value mlir::tile::getViewRoot(Value memory) {
  while (auto view = memory.getDefiningOp<ViewLikeOpInterface>())
    memory = view.getViewSource();
  return memory;
}

LogicalResult mlir::tile::verifyBlockLevel(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("must be nested in a 'tile.kernel'");
  if (op->getParentOfType<ParallelOp>())
    return op->emitOpError("cannot be nested in a 'tile.parallel' body");
  return success();
}

LogicalResult mlir::tile::detail::verifyBufferLayout(
    Operation *op, LayoutAttrInterface attr, ArrayRef<int64_t> shape,
    Type elementType, bool wantFragment) {
  if (!attr)
    return success();
  if (attr.isFragmentLayout() != wantFragment)
    return op->emitOpError("expects a ")
           << (wantFragment ? "fragment" : "shared-memory") << " layout, got "
           << attr;
  FailureOr<Layout> layout = attr.getLayout(
      shape, elementType, [&] { return op->emitOpError(); });
  if (failed(layout))
    return failure();
  if (!wantFragment)
    return success();
  auto kernel = op->getParentOfType<KernelOp>();
  int64_t threads = layout->getOutExtents()[kThreadAxis];
  if (kernel && threads > static_cast<int64_t>(kernel.getThreads()))
    return op->emitOpError("layout places elements on thread ")
           << threads - 1 << ", but the kernel has " << kernel.getThreads()
           << " threads";
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> blockIds;
  SmallVector<OpAsmParser::UnresolvedOperand> dynamicGrid;
  DenseI64ArrayAttr staticGrid;
  int64_t threads;
  Builder &builder = parser.getBuilder();
  if (parser.parseKeyword("grid") ||
      parser.parseArgumentList(blockIds, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parseDynamicIndexList(parser, dynamicGrid, staticGrid,
                            /*valueTypes=*/nullptr,
                            AsmParser::Delimiter::Paren) ||
      parser.parseKeyword("threads") || parser.parseLParen() ||
      parser.parseInteger(threads) || parser.parseRParen())
    return failure();
  if (parser.resolveOperands(dynamicGrid, builder.getIndexType(),
                             result.operands))
    return failure();
  result.addAttribute(getStaticGridAttrName(result.name), staticGrid);
  result.addAttribute(getThreadsAttrName(result.name),
                      builder.getI64IntegerAttr(threads));
  if (succeeded(parser.parseOptionalKeyword("raster"))) {
    RasterAttr raster;
    if (parser.parseLParen() || parser.parseAttribute(raster) ||
        parser.parseRParen())
      return failure();
    result.addAttribute(getRasterAttrName(result.name), raster);
  }
  bool persistent = succeeded(parser.parseOptionalKeyword("persistent"));
  bool specialize = succeeded(parser.parseOptionalKeyword("specialize"));
  SMLoc attrsLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  for (StringRef keyword : {"persistent", "specialize"})
    if (result.attributes.get(keyword))
      return parser.emitError(attrsLoc, "'")
             << keyword << "' is a keyword of tile.kernel (after "
             << "threads/raster), not an attribute";
  if (persistent)
    result.addAttribute(getPersistentAttrName(result.name),
                        builder.getUnitAttr());
  if (specialize)
    result.addAttribute(getSpecializeAttrName(result.name),
                        builder.getUnitAttr());
  for (OpAsmParser::Argument &arg : blockIds)
    arg.type = builder.getIndexType();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, blockIds))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << " grid(";
  llvm::interleaveComma(getBlockIds(), p,
                        [&](BlockArgument arg) { p.printOperand(arg); });
  p << ") in ";
  printDynamicIndexList(p, *this, getDynamicGrid(), getStaticGrid(),
                        /*valueTypes=*/{}, AsmParser::Delimiter::Paren);
  p << " threads(" << getThreadsAttr().getInt() << ")";
  if (getRasterAttr())
    p << " raster(" << getRasterAttr() << ")";
  if (getPersistent())
    p << " persistent";
  if (getSpecialize())
    p << " specialize";
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getStaticGridAttrName(), getThreadsAttrName(), getRasterAttrName(),
       getPersistentAttrName(), getSpecializeAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

LogicalResult KernelOp::verify() {
  ArrayRef<int64_t> grid = getStaticGrid();
  if (grid.empty() || grid.size() > 3)
    return emitOpError("expects 1 to 3 grid dims, got ") << grid.size();
  for (int64_t size : grid)
    if (!ShapedType::isDynamic(size) && size <= 0)
      return emitOpError("grid size must be positive, got ") << size;
  if (failed(verifyListOfOperandsOrIntegers(*this, "grid", grid.size(), grid,
                                            getDynamicGrid())))
    return failure();
  int64_t threads = getThreadsAttr().getInt();
  if (threads < 1 || threads > kMaxThreadsPerBlock)
    return emitOpError("threads must be in [1, ")
           << kMaxThreadsPerBlock << "], got " << threads;
  if (getRasterAttr() && grid.size() != 2)
    return emitOpError("raster needs a 2-d grid, got ")
           << grid.size() << " grid dims";
  if ((*this)->getParentOfType<KernelOp>())
    return emitOpError("cannot be nested in another 'tile.kernel'");
  // The marks of earlier versions, as discardable attributes, would now be
  // ignored: name the keywords instead.
  for (StringRef old : {"tile.persistent", "tile.specialize"})
    if ((*this)->hasAttr(old))
      return emitOpError("'")
             << old << "' is spelled as the keyword '"
             << old.drop_front(strlen("tile.")) << "' (after threads/raster)";
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getGridRank() ||
      llvm::any_of(body.getArgumentTypes(),
                   [](Type t) { return !t.isIndex(); }))
    return emitOpError("expects ")
           << getGridRank()
           << " block id arguments of type index, one per grid dim";
  if (failed(verifyFragmentThreads(*this)))
    return failure();
  return verifyReducerOrder(*this);
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  static constexpr StringLiteral names[] = {"bx", "by", "bz"};
  for (auto [arg, name] : llvm::zip(getBlockIds(), names))
    setNameFn(arg, name);
}

SmallVector<OpFoldResult> KernelOp::getMixedGrid() {
  return getMixedValues(getStaticGrid(), getDynamicGrid(), getContext());
}

LayoutInferenceState::~LayoutInferenceState() = default;

//===----------------------------------------------------------------------===//
// Custom directives of the generated formats
//===----------------------------------------------------------------------===//

/// `reducer(kind)`, or nothing for an ordinary fragment.
static ParseResult parseReducer(OpAsmParser &parser, ReduceKindAttr &kind) {
  if (failed(parser.parseOptionalKeyword("reducer")))
    return success();
  StringRef name;
  SMLoc at = parser.getCurrentLocation();
  if (parser.parseLParen() || parser.parseKeyword(&name) ||
      parser.parseRParen())
    return failure();
  std::optional<ReduceKind> value = symbolizeReduceKind(name);
  if (!value)
    return parser.emitError(at, "unknown reducer kind '") << name << "'";
  kind = ReduceKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printReducer(OpAsmPrinter &p, Operation *, ReduceKindAttr kind) {
  if (kind)
    p << " reducer(" << stringifyReduceKind(kind.getValue()) << ")";
}

#include "tile/Dialect/Tile/IR/TileOpInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
