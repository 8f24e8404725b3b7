//===- TileOps.cpp - tile dialect operations ------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static constexpr int64_t kMaxThreadsPerBlock = 1024;

/// A shape as `[a, b]` for diagnostics.
static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

static ArrayRef<int64_t> getShape(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

static Type getElementType(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

/// Element types a tile op may convert between: equal, both integers or
/// both floats.
static bool areConvertible(Type a, Type b) {
  return a == b || (isa<FloatType>(a) && isa<FloatType>(b)) ||
         (a.isSignlessInteger() && b.isSignlessInteger());
}

LogicalResult mlir::tile::verifyBlockLevel(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("must be nested in a 'tile.kernel'");
  if (op->getParentOfType<ParallelOp>())
    return op->emitOpError("cannot be nested in a 'tile.parallel' body");
  return success();
}

/// Checks that `layout` suits a buffer of `shape` x `elementType` in the
/// kernel enclosing `op`.
static LogicalResult verifyBufferLayout(Operation *op, LayoutAttrInterface attr,
                                        ArrayRef<int64_t> shape,
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
  return success();
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

//===----------------------------------------------------------------------===//
// AllocSharedOp, FragmentOp
//===----------------------------------------------------------------------===//

void AllocSharedOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "shared");
}

void FragmentOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "frag");
}

LogicalResult AllocSharedOp::verify() {
  MemRefType type = getType();
  if (!isSharedMemRef(type))
    return emitOpError("expects a memref in #gpu.address_space<workgroup>, "
                       "got ")
           << type;
  if (!type.getLayout().isIdentity())
    return emitOpError("expects the identity memref layout; give the shared "
                       "layout in 'layout(...)'");
  if (!type.getElementType().isIntOrFloat())
    return emitOpError("expects an integer or float element type, got ")
           << type.getElementType();
  if (llvm::any_of(type.getShape(), [](int64_t size) { return size <= 0; }))
    return emitOpError("expects every dim of the buffer to be positive, got ")
           << type;
  return verifyBufferLayout(*this, getLayoutAttr(), type.getShape(),
                            type.getElementType(), /*wantFragment=*/false);
}

LogicalResult FragmentOp::verify() {
  return verifyBufferLayout(*this, getLayoutAttr(), getType().getShape(),
                            getType().getElementType(), /*wantFragment=*/true);
}

//===----------------------------------------------------------------------===//
// CopyOp, AtomicAddOp
//===----------------------------------------------------------------------===//

/// Verifies offsets into a global operand for a tile of `tileType`.
static LogicalResult verifyGlobalOffsets(Operation *op, Type globalType,
                                         Type tileType,
                                         ArrayRef<int64_t> staticOffsets,
                                         ValueRange offsets) {
  auto global = cast<MemRefType>(globalType);
  auto tile = cast<ShapedType>(tileType);
  if (tile.getRank() != global.getRank())
    return op->emitOpError("tile rank ")
           << tile.getRank() << " does not match global rank "
           << global.getRank()
           << "; take a rank-reducing memref.subview of the global first";
  if (static_cast<int64_t>(staticOffsets.size()) != global.getRank())
    return op->emitOpError("expects ")
           << global.getRank() << " offsets into the rank-"
           << global.getRank() << " global operand, got "
           << staticOffsets.size();
  for (int64_t offset : staticOffsets)
    if (!ShapedType::isDynamic(offset) && offset < 0)
      return op->emitOpError("offsets must be non-negative, got ") << offset;
  return verifyListOfOperandsOrIntegers(op, "offset", staticOffsets.size(),
                                        staticOffsets, offsets);
}

/// One side of a copy: global memref, shared memref or fragment.
static LogicalResult verifyCopySide(Operation *op, Type type, StringRef name) {
  if (isGlobalMemRef(type) || isBlockTile(type))
    return success();
  return op->emitOpError("expects the ")
         << name
         << " to be a global memref, a shared memref or a fragment, got "
         << type;
}

Value CopyOp::getGlobal() {
  if (isGlobalMemRef(getSource().getType()))
    return getSource();
  if (isGlobalMemRef(getDest().getType()))
    return getDest();
  return {};
}

Value CopyOp::getTile() {
  return getGlobal() == getSource() ? getDest() : getSource();
}

SmallVector<OpFoldResult> CopyOp::getMixedOffsets() {
  return getMixedValues(getStaticOffsets(), getOffsets(), getContext());
}

ParseResult CopyOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand source, dest;
  SmallVector<OpAsmParser::UnresolvedOperand> offsets;
  DenseI64ArrayAttr staticOffsets;
  Type sourceType, destType;
  bool offsetsOnSource = false, offsetsOnDest = false;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperand(source))
    return failure();
  if (succeeded(parser.parseOptionalLSquare())) {
    // Re-enter the list parser with the bracket already consumed.
    if (parseDynamicIndexList(parser, offsets, staticOffsets, nullptr,
                              AsmParser::Delimiter::None) ||
        parser.parseRSquare())
      return failure();
    offsetsOnSource = true;
  }
  if (parser.parseArrow() || parser.parseOperand(dest))
    return failure();
  if (!offsetsOnSource && succeeded(parser.parseOptionalLSquare())) {
    if (parseDynamicIndexList(parser, offsets, staticOffsets, nullptr,
                              AsmParser::Delimiter::None) ||
        parser.parseRSquare())
      return failure();
    offsetsOnDest = true;
  }
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(sourceType) || parser.parseComma() ||
      parser.parseType(destType))
    return failure();
  if ((offsetsOnSource && !isGlobalMemRef(sourceType)) ||
      (offsetsOnDest && !isGlobalMemRef(destType)))
    return parser.emitError(loc, "offsets must follow the global memref "
                                 "operand of a copy");
  if (!staticOffsets)
    staticOffsets = parser.getBuilder().getDenseI64ArrayAttr({});
  result.addAttribute(getStaticOffsetsAttrName(result.name), staticOffsets);
  Type index = parser.getBuilder().getIndexType();
  if (parser.resolveOperand(source, sourceType, result.operands) ||
      parser.resolveOperand(dest, destType, result.operands) ||
      parser.resolveOperands(offsets, index, result.operands))
    return failure();
  return success();
}

void CopyOp::print(OpAsmPrinter &p) {
  Value global = getGlobal();
  auto printSide = [&](Value side) {
    p << " ";
    p.printOperand(side);
    if (side == global)
      printDynamicIndexList(p, *this, getOffsets(), getStaticOffsets());
  };
  printSide(getSource());
  p << " ->";
  printSide(getDest());
  p.printOptionalAttrDict((*this)->getAttrs(), {getStaticOffsetsAttrName()});
  p << " : " << getSource().getType() << ", " << getDest().getType();
}

LogicalResult CopyOp::verify() {
  Type sourceType = getSource().getType(), destType = getDest().getType();
  if (failed(verifyCopySide(*this, sourceType, "source")) ||
      failed(verifyCopySide(*this, destType, "destination")))
    return failure();
  if (isGlobalMemRef(sourceType) && isGlobalMemRef(destType))
    return emitOpError("cannot copy between two global memrefs: neither side "
                       "gives a tile shape");
  Type sourceElement = getElementType(getSource());
  Type destElement = getElementType(getDest());
  if (!areConvertible(sourceElement, destElement))
    return emitOpError("cannot convert element type ")
           << sourceElement << " to " << destElement;
  if (Value global = getGlobal()) {
    if (failed(verifyGlobalOffsets(*this, global.getType(),
                                   getTile().getType(), getStaticOffsets(),
                                   getOffsets())))
      return failure();
  } else {
    if (!getStaticOffsets().empty())
      return emitOpError("offsets are only allowed on a global memref operand");
    if (getShape(getSource()) != getShape(getDest()))
      return emitOpError("source shape ")
             << formatShape(getShape(getSource()))
             << " does not match destination shape "
             << formatShape(getShape(getDest()));
  }
  if (auto pad = getPadAttr()) {
    if (getGlobal() != getSource())
      return emitOpError("'pad' needs a global source: only global reads can "
                         "fall outside a tensor");
    if (pad.getType() != sourceElement)
      return emitOpError("'pad' type ")
             << pad.getType() << " does not match the source element type "
             << sourceElement;
  }
  return success();
}

SmallVector<OpFoldResult> AtomicAddOp::getMixedOffsets() {
  return getMixedValues(getStaticOffsets(), getOffsets(), getContext());
}

ParseResult AtomicAddOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand source, dest;
  SmallVector<OpAsmParser::UnresolvedOperand> offsets;
  DenseI64ArrayAttr staticOffsets;
  Type sourceType, destType;
  if (parser.parseOperand(source) || parser.parseArrow() ||
      parser.parseOperand(dest) ||
      parseDynamicIndexList(parser, offsets, staticOffsets) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(sourceType) || parser.parseComma() ||
      parser.parseType(destType))
    return failure();
  result.addAttribute(getStaticOffsetsAttrName(result.name), staticOffsets);
  Type index = parser.getBuilder().getIndexType();
  if (parser.resolveOperand(source, sourceType, result.operands) ||
      parser.resolveOperand(dest, destType, result.operands) ||
      parser.resolveOperands(offsets, index, result.operands))
    return failure();
  return success();
}

void AtomicAddOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printOperand(getSource());
  p << " -> ";
  p.printOperand(getDest());
  printDynamicIndexList(p, *this, getOffsets(), getStaticOffsets());
  p.printOptionalAttrDict((*this)->getAttrs(), {getStaticOffsetsAttrName()});
  p << " : " << getSource().getType() << ", " << getDest().getType();
}

LogicalResult AtomicAddOp::verify() {
  if (!isBlockTile(getSource().getType()))
    return emitOpError("expects the source to be a shared memref or a "
                       "fragment, got ")
           << getSource().getType();
  if (!isGlobalMemRef(getDest().getType()))
    return emitOpError("expects the destination to be a global memref, got ")
           << getDest().getType();
  Type sourceElement = getElementType(getSource());
  Type destElement = getElementType(getDest());
  if (sourceElement != destElement &&
      !(isa<FloatType>(sourceElement) && isa<FloatType>(destElement)))
    return emitOpError("cannot atomically add ")
           << sourceElement << " into " << destElement;
  return verifyGlobalOffsets(*this, getDest().getType(),
                             getSource().getType(), getStaticOffsets(),
                             getOffsets());
}

//===----------------------------------------------------------------------===//
// FillOp
//===----------------------------------------------------------------------===//

LogicalResult FillOp::verify() {
  if (!isBlockTile(getDest().getType()))
    return emitOpError("expects a shared memref or a fragment, got ")
           << getDest().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

/// The element type combinations gemm supports: (A, B) -> C.
static bool isSupportedGemmCombination(Type a, Type b, Type c) {
  auto isF8 = [](Type t) {
    return isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
               Float8E5M2FNUZType>(t);
  };
  if (isF8(a) && isF8(b))
    return c.isF32();
  if (a != b)
    return false;
  if (a.isF16())
    return c.isF16() || c.isF32();
  if (a.isBF16() || a.isF32())
    return c.isF32();
  if (a.isF64())
    return c.isF64();
  if (a.isSignlessInteger(8))
    return c.isSignlessInteger(32);
  return false;
}

static int64_t gemmDim(Value v, bool transposed, bool rows) {
  ArrayRef<int64_t> shape = getShape(v);
  return shape[(rows != transposed) ? 0 : 1];
}

int64_t GemmOp::getM() { return gemmDim(getA(), getTransposeA(), true); }
int64_t GemmOp::getN() { return gemmDim(getB(), getTransposeB(), false); }
int64_t GemmOp::getK() { return gemmDim(getA(), getTransposeA(), false); }

LogicalResult GemmOp::verify() {
  for (auto [name, v] : {std::pair<StringRef, Value>{"A", getA()},
                         std::pair<StringRef, Value>{"B", getB()},
                         std::pair<StringRef, Value>{"C", getC()}}) {
    if (!isBlockTile(v.getType()))
      return emitOpError("expects operand ")
             << name << " to be a shared memref or a fragment, got "
             << v.getType();
    if (getShape(v).size() != 2)
      return emitOpError("expects 2-d operands, ")
             << name << " has rank " << getShape(v).size();
  }
  int64_t kOfB = gemmDim(getB(), getTransposeB(), true);
  if (getK() != kOfB)
    return emitOpError("K mismatch: op(A) is ")
           << getM() << "x" << getK() << " but op(B) is " << kOfB << "x"
           << getN();
  ArrayRef<int64_t> c = getShape(getC());
  if (c[0] != getM() || c[1] != getN())
    return emitOpError("C shape ")
           << c[0] << "x" << c[1] << " does not match op(A) x op(B) = "
           << getM() << "x" << getN();
  Type a = getElementType(getA()), b = getElementType(getB()),
       cType = getElementType(getC());
  if (!isSupportedGemmCombination(a, b, cType))
    return emitOpError("unsupported element types: A ")
           << a << ", B " << b << ", C " << cType;
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp, CumSumOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  if (!isBlockTile(getSource().getType()) || !isBlockTile(getDest().getType()))
    return emitOpError("expects shared memref or fragment operands");
  ArrayRef<int64_t> source = getShape(getSource());
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= static_cast<int64_t>(source.size()))
    return emitOpError("reduce dim ")
           << dim << " is out of range for a rank-" << source.size()
           << " source";
  SmallVector<int64_t> expected(source);
  expected.erase(expected.begin() + dim);
  if (expected.empty())
    expected.push_back(1);
  if (ArrayRef<int64_t>(expected) != getShape(getDest()))
    return emitOpError("expects destination shape ")
           << formatShape(expected) << " (source " << formatShape(source)
           << " without dim " << dim << "), got "
           << formatShape(getShape(getDest()));
  Type sourceElement = getElementType(getSource());
  Type destElement = getElementType(getDest());
  if (sourceElement != destElement &&
      !(isa<FloatType>(sourceElement) && isa<FloatType>(destElement)))
    return emitOpError("cannot reduce ")
           << sourceElement << " into " << destElement;
  return success();
}

LogicalResult CumSumOp::verify() {
  if (!isBlockTile(getSource().getType()) || !isBlockTile(getDest().getType()))
    return emitOpError("expects shared memref or fragment operands");
  ArrayRef<int64_t> source = getShape(getSource());
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= static_cast<int64_t>(source.size()))
    return emitOpError("cumsum dim ")
           << dim << " is out of range for a rank-" << source.size()
           << " source";
  if (source != getShape(getDest()))
    return emitOpError("source shape ")
           << formatShape(source) << " does not match destination shape "
           << formatShape(getShape(getDest()));
  if (getElementType(getSource()) != getElementType(getDest()))
    return emitOpError("source and destination element types differ: ")
           << getElementType(getSource()) << " vs "
           << getElementType(getDest());
  return success();
}

//===----------------------------------------------------------------------===//
// ParallelOp
//===----------------------------------------------------------------------===//

ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<int64_t> shape;
  Builder &builder = parser.getBuilder();
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Paren,
          [&]() { return parser.parseInteger(shape.emplace_back()); }))
    return failure();
  result.addAttribute(getShapeAttrName(result.name),
                      builder.getDenseI64ArrayAttr(shape));
  if (succeeded(parser.parseOptionalKeyword("layout"))) {
    LayoutAttrInterface layout;
    if (parser.parseLParen() || parser.parseAttribute(layout) ||
        parser.parseRParen())
      return failure();
    result.addAttribute(getLayoutAttrName(result.name), layout);
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  for (OpAsmParser::Argument &iv : ivs)
    iv.type = builder.getIndexType();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, ivs))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getInductionVars(), p,
                        [&](BlockArgument iv) { p.printOperand(iv); });
  p << ") in (";
  llvm::interleaveComma(getShape(), p);
  p << ")";
  if (getLayoutAttr())
    p << " layout(" << getLayoutAttr() << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getShapeAttrName(), getLayoutAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

void ParallelOp::getAsmBlockArgumentNames(Region &region,
                                          OpAsmSetValueNameFn setNameFn) {
  static constexpr StringLiteral names[] = {"i", "j", "k", "l", "m", "n"};
  for (auto [iv, name] : llvm::zip(getInductionVars(), names))
    setNameFn(iv, name);
}

LogicalResult ParallelOp::verify() {
  if (getShape().empty())
    return emitOpError("expects an iteration space of rank 1 or more");
  for (int64_t size : getShape())
    if (size <= 0)
      return emitOpError("iteration space extents must be positive, got ")
             << size;
  if (!getLayoutAttr())
    return success();
  // The loop layout is a fragment layout over the iteration space.
  return verifyBufferLayout(*this, getLayoutAttr(), getShape(),
                            IndexType::get(getContext()),
                            /*wantFragment=*/true);
}

LogicalResult ParallelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getShape().size() ||
      llvm::any_of(body.getArgumentTypes(),
                   [](Type t) { return !t.isIndex(); }))
    return emitOpError("expects ")
           << getShape().size()
           << " induction variables of type index, one per dim";
  return success();
}

//===----------------------------------------------------------------------===//
// PipelinedOp
//===----------------------------------------------------------------------===//

static ParseResult parseI64List(OpAsmParser &parser,
                                SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square,
      [&]() { return parser.parseInteger(values.emplace_back()); });
}

ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lower, upper, step;
  int64_t stages;
  Builder &builder = parser.getBuilder();
  Type index = builder.getIndexType();
  if (parser.parseArgument(iv) || parser.parseEqual() ||
      parser.parseOperand(lower) || parser.parseKeyword("to") ||
      parser.parseOperand(upper) || parser.parseKeyword("step") ||
      parser.parseOperand(step) || parser.parseKeyword("stages") ||
      parser.parseLParen() || parser.parseInteger(stages) ||
      parser.parseRParen())
    return failure();
  if (parser.resolveOperand(lower, index, result.operands) ||
      parser.resolveOperand(upper, index, result.operands) ||
      parser.resolveOperand(step, index, result.operands))
    return failure();
  result.addAttribute(getNumStagesAttrName(result.name),
                      builder.getI64IntegerAttr(stages));
  for (StringRef keyword : {"order", "stage"}) {
    if (failed(parser.parseOptionalKeyword(keyword)))
      continue;
    SmallVector<int64_t> values;
    if (parseI64List(parser, values))
      return failure();
    result.addAttribute(keyword, builder.getDenseI64ArrayAttr(values));
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  iv.type = index;
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {iv}))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

void PipelinedOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printOperand(getInductionVar());
  p << " = ";
  p.printOperand(getLower());
  p << " to ";
  p.printOperand(getUpper());
  p << " step ";
  p.printOperand(getStep());
  p << " stages(" << getNumStagesAttr().getInt() << ")";
  if (auto order = getOrder()) {
    p << " order [";
    llvm::interleaveComma(*order, p);
    p << "]";
  }
  if (auto stage = getStage()) {
    p << " stage [";
    llvm::interleaveComma(*stage, p);
    p << "]";
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getNumStagesAttrName(), getOrderAttrName(), getStageAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

void PipelinedOp::getAsmBlockArgumentNames(Region &region,
                                           OpAsmSetValueNameFn setNameFn) {
  setNameFn(getInductionVar(), "k");
}

LogicalResult PipelinedOp::verify() {
  int64_t stages = getNumStagesAttr().getInt();
  if (stages < 0)
    return emitOpError("num_stages must be non-negative, got ") << stages;
  return success();
}

LogicalResult PipelinedOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError("expects one induction variable of type index");
  int64_t numOps = body.getOperations().size();
  if (auto order = getOrder()) {
    if (static_cast<int64_t>(order->size()) != numOps)
      return emitOpError("'order' has ")
             << order->size() << " entries but the body has " << numOps
             << " ops";
    SmallVector<bool> seen(numOps, false);
    for (int64_t position : *order) {
      if (position < 0 || position >= numOps || seen[position])
        return emitOpError("'order' must be a permutation of 0..")
               << numOps - 1;
      seen[position] = true;
    }
  }
  if (auto stage = getStage()) {
    if (static_cast<int64_t>(stage->size()) != numOps)
      return emitOpError("'stage' has ")
             << stage->size() << " entries but the body has " << numOps
             << " ops";
    int64_t limit = std::max<int64_t>(1, getNumStagesAttr().getInt());
    for (int64_t s : *stage)
      if (s < 0 || s >= limit)
        return emitOpError("stage ")
               << s << " is out of range for " << limit << " pipeline stages";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp, StoreOp
//===----------------------------------------------------------------------===//

/// Whether `index` is the same in every iteration of `parallel`: a constant,
/// or a value defined outside its body.
static bool isUniformIndex(Value index, ParallelOp parallel) {
  if (matchPattern(index, m_Constant()))
    return true;
  return !parallel.getBody().isAncestor(index.getParentRegion());
}

SmallVector<unsigned> mlir::tile::getFragmentAccessDims(ParallelOp parallel,
                                                        ValueRange indices) {
  SmallVector<unsigned> dims;
  for (Value index : indices) {
    auto iv = dyn_cast<BlockArgument>(index);
    if (iv && iv.getOwner()->getParentOp() == parallel)
      dims.push_back(iv.getArgNumber());
    else
      dims.push_back(kUniformDim);
  }
  return dims;
}

void mlir::tile::forEachFragmentAccess(
    ParallelOp parallel,
    function_ref<void(Value buffer, ArrayRef<unsigned> dims)> callback) {
  parallel.getBody().walk([&](Operation *nested) {
    Value buffer;
    ValueRange indices;
    if (auto load = dyn_cast<LoadOp>(nested)) {
      buffer = load.getBuffer();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<StoreOp>(nested)) {
      buffer = store.getBuffer();
      indices = store.getIndices();
    }
    if (!buffer || !isa<FragmentType>(buffer.getType()) ||
        nested->getParentOfType<ParallelOp>() != parallel)
      return;
    callback(buffer, getFragmentAccessDims(parallel, indices));
  });
}

/// Verifies an element access of `buffer[indices]` in a tile.parallel body.
/// `isStore`: a fragment store must use every induction variable once.
static LogicalResult verifyElementAccess(Operation *op, Value buffer,
                                         ValueRange indices, bool isStore) {
  auto parallel = op->getParentOfType<ParallelOp>();
  if (!parallel)
    return op->emitOpError("must be nested in a 'tile.parallel' body");
  Type type = buffer.getType();
  if (!isGlobalMemRef(type) && !isBlockTile(type))
    return op->emitOpError("expects a global memref, a shared memref or a "
                           "fragment, got ")
           << type;
  int64_t rank = getShape(buffer).size();
  if (static_cast<int64_t>(indices.size()) != rank)
    return op->emitOpError("expects ")
           << rank << " indices for a rank-" << rank << " buffer, got "
           << indices.size();
  if (!isa<FragmentType>(type))
    return success();
  // Fragments: each index is an induction variable of the nearest parallel,
  // or uniform (the same in every iteration: constant or defined outside
  // it), which layout inference keeps in each thread's slots.
  llvm::SmallDenseSet<unsigned, 4> used;
  for (auto [dim, iv] :
       llvm::enumerate(getFragmentAccessDims(parallel, indices))) {
    if (iv == kUniformDim) {
      if (isUniformIndex(indices[dim], parallel))
        continue;
      return op->emitOpError("fragment index #")
             << dim
             << " must be an induction variable of the enclosing "
                "'tile.parallel' or the same in every iteration (a constant "
                "or a value defined outside it)";
    }
    if (!used.insert(iv).second)
      return op->emitOpError("fragment indices must be distinct induction "
                             "variables");
    int64_t extent = parallel.getShape()[iv];
    if (getShape(buffer)[dim] != extent)
      return op->emitOpError("fragment dim ")
             << dim << " has size " << getShape(buffer)[dim]
             << " but its induction variable ranges over " << extent;
  }
  if (isStore && used.size() != parallel.getShape().size())
    return op->emitOpError("a fragment store must use every induction "
                           "variable of the enclosing 'tile.parallel'");
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyElementAccess(*this, getBuffer(), getIndices(),
                                 /*isStore=*/false)))
    return failure();
  if (auto pad = getPadAttr()) {
    if (!isGlobalMemRef(getBuffer().getType()))
      return emitOpError("'pad' needs a global memref: only global reads can "
                         "fall outside a tensor");
    if (pad.getType() != getType())
      return emitOpError("'pad' type ")
             << pad.getType() << " does not match the element type "
             << getType();
  }
  return success();
}

LogicalResult StoreOp::verify() {
  return verifyElementAccess(*this, getBuffer(), getIndices(),
                             /*isStore=*/true);
}

LayoutInferenceState::~LayoutInferenceState() = default;

#include "tile/Dialect/Tile/IR/TileOpInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
