//===- TileInterfaces.td - tile dialect interfaces ---------*- tablegen -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEINTERFACES_TD
#define TILE_DIALECT_TILE_IR_TILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_LayoutAttrInterface : AttrInterface<"LayoutAttrInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    The one interface through which passes read layouts. A layout attribute
    produces a `tile::Layout` for a buffer of a given shape and element type:
    for a shared buffer, a map from logical index to element offset; for a
    fragment, a map from (logical index..., replica) to (thread, slot).
    Parametric attributes (`#tile.swizzle<128>`) apply to many shapes;
    explicit ones (`#tile.fragment<...>`) to exactly one.
  }];
  let methods = [
    InterfaceMethod<[{
        Whether this layout places fragment elements on (thread, slot) rather
        than shared-memory elements at offsets.
      }], "bool", "isFragmentLayout">,
    InterfaceMethod<[{
        Returns the layout of a buffer of `shape` with `elementType`, or
        emits an error through `emitError` and fails if this attribute does
        not fit such a buffer.
      }], "::mlir::FailureOr<::mlir::tile::Layout>", "getLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError)>
  ];
}

#endif // TILE_DIALECT_TILE_IR_TILEINTERFACES_TD
