//===- TileComputeOps.cpp - Compute ops -----------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.gemm, tile.reduce and tile.cumsum: their verifiers and gemm's
// dimensions.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "TileOpVerification.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::detail;

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
