//===- TileMemoryOps.cpp - Allocation and data movement ops ---------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.alloc_shared, tile.fragment (allocation) and tile.copy,
// tile.atomic_add, tile.fill (data movement): their parsers, printers and
// verifiers.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "TileOpVerification.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::detail;

/// Element types a tile op may convert between: equal, both integers or
/// both floats.
static bool areConvertible(Type a, Type b) {
  return a == b || (isa<FloatType>(a) && isa<FloatType>(b)) ||
         (a.isSignlessInteger() && b.isSignlessInteger());
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
  if (getReducerAttr() && failed(verifyReducerFragment(*this)))
    return failure();
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
  // barrier(%bars[%i])
  OpAsmParser::UnresolvedOperand barrier, barrierIndex;
  bool signals = false;
  if (succeeded(parser.parseOptionalKeyword("barrier"))) {
    if (parser.parseLParen() || parser.parseOperand(barrier) ||
        parser.parseLSquare() || parser.parseOperand(barrierIndex) ||
        parser.parseRSquare() || parser.parseRParen())
      return failure();
    signals = true;
  }
  Type barrierType;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(sourceType) || parser.parseComma() ||
      parser.parseType(destType) ||
      (signals && (parser.parseComma() || parser.parseType(barrierType))))
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
  if (signals &&
      (parser.resolveOperand(barrier, barrierType, result.operands) ||
       parser.resolveOperand(barrierIndex, index, result.operands)))
    return failure();
  int32_t optional = signals ? 1 : 0;
  result.addAttribute(
      getOperandSegmentSizesAttrName(result.name),
      parser.getBuilder().getDenseI32ArrayAttr(
          {1, 1, static_cast<int32_t>(offsets.size()), optional, optional}));
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
  if (Value barrier = getBarrier())
    p << " barrier(" << barrier << "[" << getBarrierIndex() << "])";
  p.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getStaticOffsetsAttrName(), getOperandSegmentSizesAttrName()});
  p << " : " << getSource().getType() << ", " << getDest().getType();
  if (Value barrier = getBarrier())
    p << ", " << barrier.getType();
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
  if (getBarrier() &&
      (!isGlobalMemRef(sourceType) || !isSharedMemRef(destType)))
    return emitOpError("signals a barrier, so it must copy from global to "
                       "shared memory (TileLang's T.tma_copy load)");
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
// Im2ColOp
//===----------------------------------------------------------------------===//

LogicalResult Im2ColOp::verify() {
  Type imageType = getImage().getType(), colType = getCol().getType();
  if (!isGlobalMemRef(imageType) || cast<MemRefType>(imageType).getRank() != 4)
    return emitOpError("expects the image to be a 4-d (N, H, W, C) global "
                       "memref, got ")
           << imageType;
  if (!isSharedMemRef(colType) || cast<MemRefType>(colType).getRank() != 2)
    return emitOpError(
               "expects the column tile to be a 2-d shared memref, got ")
           << colType;
  if (getElementType(getImage()) != getElementType(getCol()))
    return emitOpError("image element type ")
           << getElementType(getImage()) << " does not match the column tile's "
           << getElementType(getCol());
  return success();
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
