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

def Tile_LayoutInferenceOpInterface : OpInterface<"LayoutInferenceOpInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    How an op constrains the layouts of the fragments, shared buffers and
    loops it touches. tile-infer-layouts asks every op of a kernel that
    implements it: `requireLayouts` once, for fixed needs (an instruction's
    operand layouts), then `propagateLayouts` repeatedly, deriving unknown
    layouts from known ones and checking that known ones agree, until no op
    decides anything new. Both speak through the LayoutInferenceState, which
    records each decision with its reason and reports conflicts. The
    dialect's ops get their rules from the transforms library
    (registerLayoutInferenceModels); a new op opts in by implementing this
    interface.
  }];
  let methods = [
    InterfaceMethod<[{
        States the layouts this op fixes (before any propagation).
      }], "::mlir::LogicalResult", "requireLayouts",
      (ins "::mlir::tile::LayoutInferenceState &":$state), "",
      [{ return ::mlir::success(); }]>,
    InterfaceMethod<[{
        Derives the layouts of this op's buffers from those already decided;
        fails (after reporting) when two disagree.
      }], "::mlir::LogicalResult", "propagateLayouts",
      (ins "::mlir::tile::LayoutInferenceState &":$state), "",
      [{ return ::mlir::success(); }]>
  ];
}

#endif // TILE_DIALECT_TILE_IR_TILEINTERFACES_TD
