//===- TileTypes.cpp - tile dialect types ---------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileTypes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

/// Parses `128x64xf32` into a shape and an element type.
static ParseResult parseShape(AsmParser &parser, SmallVector<int64_t> &shape,
                              Type &elementType) {
  if (parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

static void printShape(AsmPrinter &printer, ArrayRef<int64_t> shape,
                       Type elementType) {
  printer.printDimensionList(shape);
  printer << "x" << elementType;
}

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

LogicalResult
FragmentType::verify(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<int64_t> shape, Type elementType) {
  if (shape.empty())
    return emitError() << "fragment must have rank 1 or more";
  int64_t elements = 1;
  for (int64_t size : shape) {
    if (size <= 0)
      return emitError() << "fragment dims must be static and positive";
    if (size > (int64_t(1) << 32) / elements)
      return emitError() << "fragment has more than 2^32 elements";
    elements *= size;
  }
  if (!elementType.isIntOrFloat())
    return emitError() << "fragment element type must be an integer or "
                          "float, got "
                       << elementType;
  return success();
}

ShapedType FragmentType::cloneWith(std::optional<ArrayRef<int64_t>> shape,
                                   Type elementType) const {
  return FragmentType::get(shape ? *shape : getShape(), elementType);
}

bool mlir::tile::isSharedMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(memref.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

bool mlir::tile::isGlobalMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  Attribute space = memref.getMemorySpace();
  if (!space)
    return true;
  auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space);
  return gpuSpace && gpuSpace.getValue() == gpu::AddressSpace::Global;
}

bool mlir::tile::isBlockTile(Type type) {
  return isa<FragmentType>(type) || isSharedMemRef(type);
}

LogicalResult BarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t count) {
  if (count < 1)
    return emitError() << "a barrier group holds at least one barrier, got "
                       << count;
  return success();
}
